import Accounts
import Fluent
import Platform
import Vapor

/// What a service tells the inbox: who should know, who did it, what happened.
package struct NotificationDraft: Sendable {
    package let recipient: UUID
    package let actor: UUID?
    package let service: String
    package let kind: String
    package var subjectID: UUID? = nil
    package var link: String? = nil
    package var excerpt: String? = nil
    /// Tell the recipient only the first time this actor does this to this subject (a like
    /// taken back and given again is not news twice).
    package var once = false
    /// While the recipient has not read this actor's last notice of this kind about this
    /// subject, a new one replaces it (newest text, moved to the top) instead of adding another:
    /// ten comments in a row are one unread entry, not ten.
    package var collapsesUnread = false

    package init(recipient: UUID, actor: UUID?, service: String, kind: String, subjectID: UUID? = nil, link: String? = nil, excerpt: String? = nil,
                 once: Bool = false, collapsesUnread: Bool = false) {
        self.once = once
        self.collapsesUnread = collapsesUnread
        self.recipient = recipient
        self.actor = actor
        self.service = service
        self.kind = kind
        self.subjectID = subjectID
        self.link = link
        self.excerpt = excerpt
    }
}

/// The one inbox every service posts to. Posting writes the row and tells the recipient's live
/// sockets (on every instance, through the event bus) that something arrived.
package struct NotificationInbox {
    package static let maxExcerptCharacters = 80

    package let database: any Database
    package let events: any EventBus

    package static func topic(for user: UUID) -> String { "notifications.\(user.uuidString.lowercased())" }

    /// Posts a notification; one's own actions notify nobody.
    package func post(_ draft: NotificationDraft) async throws {
        guard draft.actor != draft.recipient else { return }
        if draft.once {
            let earlier = InboxNotification.query(on: database).filter(\.$recipient.$id == draft.recipient)
                .filter(\.$actor.$id == draft.actor).filter(\.$kind == draft.kind).filter(\.$subjectID == draft.subjectID)
            if try await earlier.first() != nil { return }
        }
        if draft.collapsesUnread, let unread = try await InboxNotification.query(on: database).filter(\.$recipient.$id == draft.recipient)
            .filter(\.$actor.$id == draft.actor).filter(\.$kind == draft.kind).filter(\.$subjectID == draft.subjectID)
            .filter(\.$readAt == nil).first() {
            unread.excerpt = draft.excerpt.map { String($0.prefix(Self.maxExcerptCharacters)) }
            unread.link = draft.link
            unread.createdAt = Date()
            try await unread.update(on: database)
            await events.publish(try unread.requireID().uuidString, to: Self.topic(for: draft.recipient))
            return
        }
        let row = InboxNotification()
        row.$recipient.id = draft.recipient
        row.$actor.id = draft.actor
        row.service = draft.service
        row.kind = draft.kind
        row.subjectID = draft.subjectID
        row.link = draft.link
        row.excerpt = draft.excerpt.map { String($0.prefix(Self.maxExcerptCharacters)) }
        try await row.create(on: database)
        await events.publish(try row.requireID().uuidString, to: Self.topic(for: draft.recipient))
    }

    /// Takes back what was said about a subject that is gone (a deleted review).
    package func withdraw(subject: UUID) async throws {
        try await InboxNotification.query(on: database).filter(\.$subjectID == subject).delete()
    }

    package func page(for user: UUID, _ page: CursorPageRequest) async throws -> (items: [InboxNotification], nextCursor: String?) {
        try await InboxNotification.query(on: database).filter(\.$recipient.$id == user).with(\.$actor)
            .paginate(newestFirst: \.$createdAt, page)
    }

    package func notification(_ id: UUID, for user: UUID) async throws -> InboxNotification? {
        try await InboxNotification.query(on: database).filter(\.$id == id).filter(\.$recipient.$id == user).with(\.$actor).first()
    }

    package func unreadCount(for user: UUID) async throws -> Int {
        try await InboxNotification.query(on: database).filter(\.$recipient.$id == user).filter(\.$readAt == nil).count()
    }

    /// Marks the given notifications read, or all of them when `ids` is nil. Ids of other
    /// people's notifications change nothing.
    package func markRead(for user: UUID, ids: [UUID]?) async throws {
        let query = InboxNotification.query(on: database).filter(\.$recipient.$id == user).filter(\.$readAt == nil)
        if let ids { query.filter(\.$id ~~ ids) }
        try await query.set(\.$readAt, to: Date()).update()
        await events.publish("read", to: Self.topic(for: user))
    }

    package init(database: any Database, events: any EventBus) {
        self.database = database
        self.events = events
    }
}

extension Request {
    package var inbox: NotificationInbox { NotificationInbox(database: db, events: application.events) }
}
