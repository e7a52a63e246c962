package import Foundation
import Vapor

/// One JSON style for every response: keys sorted, so bodies are stable (the shipped apps' routes
/// are compared byte for byte), and slashes unescaped, so URLs read as written.
package enum AppJSON {
    package static func encoder() -> JSONEncoder {
        JSONEncoder.custom(dates: .iso8601, format: [.sortedKeys, .withoutEscapingSlashes])
    }
}
