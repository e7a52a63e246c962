import NIOConcurrencyHelpers
package import Vapor

/// A count an owner moves after each committed write of what it keeps — here at once, and on
/// every other instance through the bus (`topic`) — so what was read at one version (a console
/// page's figures, a queue) is read again once it moved, and costs no statement until then.
/// Take `current` before reading; what is kept at it is stale as soon as it differs.
///
/// Moving it before the write committed would let a read in between keep the old rows at the new
/// version: `changed` belongs after the commit (inside a transaction, in the owner's change log).
package final class ChangeVersion: Sendable {
    package let topic: String
    private let value = NIOLockedValueBox(0)

    package init(topic: String) {
        self.topic = topic
    }

    package var current: Int { value.withLockedValue { $0 } }

    /// Moves here only (what another instance announced; a write this process alone can see).
    package func moveOn() {
        value.withLockedValue { $0 &+= 1 }
    }

    /// A write committed: moves here and on every other instance.
    package func changed(announcingOn events: any EventBus) async {
        moveOn()
        await events.publish("changed", to: topic)
    }

    /// Moves whenever another instance (or this one, echoed back) announces a change.
    package func follow(_ app: Application) {
        app.follow(topic) { [self] _, _ in moveOn() }
    }
}
