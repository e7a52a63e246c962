import Foundation
import NIOConcurrencyHelpers

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
