import Foundation
import NIOConcurrencyHelpers
import Platform
import Vapor

/// Each person's number of unread notifications, kept in memory so the bell in every page's
/// header does not count rows on every request (it did: one query per signed-in page).
///
/// Every change to someone's inbox — a notification posted or collapsed, some read, some withdrawn
/// — calls `forget` for that person through `NotificationInbox`, which drops the number here at
/// once and announces it on the event bus (`topic`), so every other instance drops it too.
/// `lifetime` bounds how long a number lives without being counted again, should an announcement
/// be lost. A count that started before a `forget` is never kept (the generation check).
package final class UnreadCounts: Sendable {
    package static let topic = "notifications.unread-counts"

    private struct Entry {
        let count: Int
        let storedAt: Date
    }

    private struct State {
        var entries: [UUID: Entry] = [:]
        var generation: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())
    package let lifetime: TimeInterval
    package let capacity: Int

    package init(lifetime: TimeInterval = 30, capacity: Int = 100_000) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// The remembered count, or nil: count the rows.
    package func count(for user: UUID, now: Date = Date()) -> Int? {
        guard let entry = state.withLockedValue({ $0.entries[user] }), now.timeIntervalSince(entry.storedAt) < lifetime else { return nil }
        return entry.count
    }

    /// Taken before counting; hand it back to `remember`.
    package var generation: UInt64 { state.withLockedValue { $0.generation } }

    package func remember(_ count: Int, for user: UUID, countedAt generation: UInt64, now: Date = Date()) {
        state.withLockedValue { state in
            guard state.generation == generation else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[user] = Entry(count: count, storedAt: now)
        }
    }

    /// Drops the person's count here and tells the other instances.
    package func forget(_ user: UUID, announcingOn events: any EventBus) async {
        apply(forgetting: user)
        await events.publish(user.uuidString, to: Self.topic)
    }

    /// Drops the person's count in this process only (what the event follower calls).
    package func apply(forgetting user: UUID) {
        state.withLockedValue { state in
            state.generation &+= 1
            state.entries[user] = nil
        }
    }

    package var count: Int { state.withLockedValue { $0.entries.count } }
}

extension Application {
    private struct UnreadCountsKey: StorageKey { typealias Value = UnreadCounts }

    package var unreadCounts: UnreadCounts {
        get { configured(UnreadCountsKey.self) }
        set { storage[UnreadCountsKey.self] = newValue }
    }
}
