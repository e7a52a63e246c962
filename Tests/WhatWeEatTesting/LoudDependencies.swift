package import Foundation
import NIOConcurrencyHelpers
package import Platform
import XCTest

/// What a test environment holds for a dependency its test did not give (issue 59): touching it
/// fails the test with the dependency's name, instead of quietly reaching a whole site. A store
/// test built on `withTestDatabase` gives what the store should use and leaves the rest to these.
package enum Unexpected {
    /// A clock that fails the test when the code under test reads it.
    package static let clock: Now = {
        XCTFail("the code under test read the clock, but the test gave it none")
        return Date(timeIntervalSince1970: 0)
    }

    /// An event bus that fails the test on any publish or subscription.
    package static let events: any EventBus = UnexpectedEventBus()
}

private struct UnexpectedEventBus: EventBus {
    func publish(_ message: String, to topic: String) async {
        XCTFail("the code under test announced \(message) on \(topic), but the test gave it no event bus")
    }

    func subscribe(to topic: String) -> AsyncStream<String> {
        XCTFail("the code under test listened to \(topic), but the test gave it no event bus")
        return AsyncStream { $0.finish() }
    }

    func subscriberCount(of topic: String) -> Int { 0 }
}

/// An event bus of one process that keeps every announcement, for a test to read what a write
/// announced (and in what order).
package final class RecordingEventBus: EventBus {
    private let bus = InProcessEventBus()
    private let published = NIOLockedValueBox<[(topic: String, message: String)]>([])

    package init() {}

    /// Every announcement so far, oldest first.
    package var announcements: [(topic: String, message: String)] { published.withLockedValue { $0 } }

    /// The topics announced so far, oldest first.
    package var topics: [String] { announcements.map(\.topic) }

    package func publish(_ message: String, to topic: String) async {
        published.withLockedValue { $0.append((topic, message)) }
        await bus.publish(message, to: topic)
    }

    package func subscribe(to topic: String) -> AsyncStream<String> { bus.subscribe(to: topic) }

    package func subscriberCount(of topic: String) -> Int { bus.subscriberCount(of: topic) }
}
