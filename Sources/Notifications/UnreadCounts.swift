import Foundation
import NIOConcurrencyHelpers
import Platform
import Vapor

/// Each person's number of unread notifications, kept in memory so the bell in every page's
/// header does not count rows on every request (it did: one query per signed-in page).
///
/// Every change to someone's inbox — a notification posted or collapsed, some read, some withdrawn
/// — calls `forget` for that person through `NotificationInbox`; the rules (announced to every
/// instance, a lifetime, the generation check) are `PersonMemory`'s.
package final class UnreadCounts: Sendable {
    package static let topic = "notifications.unread-counts"

    private let memory: PersonMemory<Int>

    package init(lifetime: TimeInterval = 30, capacity: Int = 100_000) {
        memory = PersonMemory(topic: Self.topic, lifetime: lifetime, capacity: capacity)
    }

    package var lifetime: TimeInterval { memory.lifetime }
    package var capacity: Int { memory.capacity }

    /// The remembered count, or nil: count the rows.
    package func count(for user: UUID, now: Date = Date()) -> Int? { memory.value(for: user, now: now) }

    /// Taken before counting; hand it back to `remember`.
    package var generation: UInt64 { memory.generation }

    package func remember(_ count: Int, for user: UUID, countedAt generation: UInt64, now: Date = Date()) {
        memory.remember(count, for: user, readAt: generation, now: now)
    }

    /// Drops the person's count here and tells the other instances.
    package func forget(_ user: UUID, announcingOn events: any EventBus) async { await memory.forget(user, announcingOn: events) }

    /// Drops the person's count in this process only (what the event follower calls).
    package func apply(forgetting user: UUID) { memory.apply(forgetting: user) }

    package func follow(_ app: Application) { memory.follow(app) }

    package var count: Int { memory.count }
}

extension Application {
    private struct UnreadCountsKey: StorageKey { typealias Value = UnreadCounts }

    package var unreadCounts: UnreadCounts {
        get { configured(UnreadCountsKey.self) }
        set { storage[UnreadCountsKey.self] = newValue }
    }
}
