package import Foundation
import NIOConcurrencyHelpers
package import Platform
package import Vapor

/// A clock a test moves by hand (`advance(by:)`); `now` is what the code under test reads.
package final class TestClock: Sendable {
    private let current: NIOLockedValueBox<Date>

    package init(_ start: Date = Date()) {
        current = NIOLockedValueBox(start)
    }

    package var now: Date { current.withLockedValue { $0 } }

    package func advance(by seconds: TimeInterval) {
        current.withLockedValue { $0 = $0.addingTimeInterval(seconds) }
    }
}

extension Application {
    /// Runs `body` with a feature's clock (`\.banchanEnvironment`, `\.burgerMapEnvironment`, …)
    /// `seconds` ahead of the wall clock, then puts it back; services and stores made inside
    /// `body` read the moved clock.
    package func withClock<Environment: FeatureEnvironment, T>(_ environment: ReferenceWritableKeyPath<Application, Environment>,
                                                               ahead seconds: TimeInterval, _ body: () async throws -> T) async throws -> T {
        let before = self[keyPath: environment].now
        self[keyPath: environment].now = { Date().addingTimeInterval(seconds) }
        defer { self[keyPath: environment].now = before }
        return try await body()
    }
}
