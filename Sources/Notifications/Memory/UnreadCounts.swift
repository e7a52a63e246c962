package import Foundation
import NIOConcurrencyHelpers
package import Platform
package import Vapor

/// Each person's number of unread notifications, kept in memory so the bell in every page's
/// header does not count rows on every request (it did: one query per signed-in page), and the
/// first page of their inbox (what the inbox page and `GET /api/v1/notifications` show unless one
/// pages on).
///
/// Every change to someone's inbox — a notification posted or collapsed, some read, some withdrawn
/// or blanked — calls `forget` for that person through `NotificationStore`; the rules (announced
/// to every instance, a lifetime, the generation check) are `PersonMemory`'s. The first pages show
/// their actors' names and pictures, so a change of any account forgets them all
/// (`forgetFirstPages`, followed from the session cache's announcements). Beside the count, what
/// the unread entries are about (`UnreadAbout`): a page that marks its subject's entries read on
/// every view (an order, a chat, a group's result) needs no statement when none is unread.
package final class UnreadCounts: Sendable {
    package static let topic = "notifications.unread-counts"

    /// The kinds and subjects of a person's unread entries, when there are at most `limit`.
    struct UnreadAbout: Sendable {
        static let limit = 100
        let kindsBySubject: [UUID: Set<String>]
        /// False: more unread entries than `limit`, so `kindsBySubject` may leave some out.
        let complete: Bool

        /// Whether an entry of one of `kinds` about `subject` may be unread.
        func mayHave(_ kinds: [String], about subject: UUID) -> Bool {
            guard complete else { return true }
            return kindsBySubject[subject].map { !$0.isDisjoint(with: kinds) } ?? false
        }
    }

    private let memory: PersonMemory<Int>
    private let firstPages: PersonMemory<NotificationStore.FirstPage>
    private let unreadAbout: PersonMemory<UnreadAbout>

    package init(lifetime: TimeInterval = 30, capacity: Int = 100_000) {
        memory = PersonMemory(topic: Self.topic, lifetime: lifetime, capacity: capacity)
        firstPages = PersonMemory(topic: Self.topic, lifetime: lifetime, capacity: capacity)
        unreadAbout = PersonMemory(topic: Self.topic, lifetime: lifetime, capacity: capacity)
    }

    /// What the person's unread entries are about, remembered or read by `read`.
    func unreadAbout(for user: UUID, read: () async throws -> UnreadAbout) async throws -> UnreadAbout {
        try await unreadAbout.value(for: user, read: read)
    }

    /// The remembered first page of the person's inbox, or nil: read it.
    func firstPage(for user: UUID) -> NotificationStore.FirstPage? { firstPages.value(for: user) }

    /// Taken before reading a first page; hand it back to `remember(firstPage:)`.
    var firstPageGeneration: UInt64 { firstPages.generation }

    package func remember(firstPage: NotificationStore.FirstPage, for user: UUID, readAt generation: UInt64) {
        firstPages.remember(firstPage, for: user, readAt: generation)
    }

    /// Forgets every first page in this process (an account changed its name or picture, or went).
    func forgetFirstPages() { firstPages.applyForgettingEveryone() }

    package var lifetime: TimeInterval { memory.lifetime }
    package var capacity: Int { memory.capacity }

    /// The remembered count, or nil: count the rows.
    package func count(for user: UUID, now: Date) -> Int? { memory.value(for: user, now: now) }

    /// Taken before counting; hand it back to `remember`.
    package var generation: UInt64 { memory.generation }

    package func remember(_ count: Int, for user: UUID, countedAt generation: UInt64, now: Date) {
        memory.remember(count, for: user, readAt: generation, now: now)
    }

    /// Drops the person's count here and tells the other instances.
    package func forget(_ user: UUID, announcingOn events: any EventBus) async {
        firstPages.apply(forgetting: user)
        unreadAbout.apply(forgetting: user)
        await memory.forget(user, announcingOn: events)
    }

    /// Drops the person's count in this process only (what the event follower calls).
    package func apply(forgetting user: UUID) {
        firstPages.apply(forgetting: user)
        unreadAbout.apply(forgetting: user)
        memory.apply(forgetting: user)
    }

    package func follow(_ app: Application) {
        memory.follow(app)
        firstPages.follow(app)
        unreadAbout.follow(app)
    }

    package var count: Int { memory.count }
}
