import Accounts
import Fluent
import Platform
import SQLKit
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
    static let maxExcerptCharacters = 80

    package let database: any Database
    package let events: any EventBus
    let unreadCounts: UnreadCounts

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
            await unreadCounts.forget(draft.recipient, announcingOn: events)
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
        await unreadCounts.forget(draft.recipient, announcingOn: events)
        await events.publish(try row.requireID().uuidString, to: Self.topic(for: draft.recipient))
    }

    /// Takes back what was said about a subject that is gone (a deleted review).
    package func withdraw(subject: UUID) async throws {
        let withdrawn = InboxNotification.query(on: database).filter(\.$subjectID == subject)
        let recipients = Set(try await withdrawn.all().map { $0.$recipient.id })
        try await InboxNotification.query(on: database).filter(\.$subjectID == subject).delete()
        for recipient in recipients { await unreadCounts.forget(recipient, announcingOn: events) }
    }

    /// Takes back the words of a deleted comment: the notices its author's comments of `kind` on
    /// `subject` raised lose their quote (a notice collapses a person's comments into one, so it
    /// may quote this comment or a later one; a missing quote says less than a deleted one).
    package func forgetWords(of actor: UUID, kind: String, subject: UUID) async throws {
        let blanked = try await database.sql.update(InboxNotification.schema).set("excerpt", to: SQLLiteral.null)
            .where("actor_id", .equal, SQLBind(actor)).where("kind", .equal, SQLBind(kind)).where("subject_id", .equal, SQLBind(subject))
            .where("excerpt", .isNot, SQLLiteral.null).returning("recipient_id").all()
        let recipients = Set(try blanked.map { try $0.decode(column: "recipient_id", as: UUID.self) })
        for recipient in recipients {
            await unreadCounts.forget(recipient, announcingOn: events)
            await events.publish("changed", to: Self.topic(for: recipient))
        }
    }

    /// Takes back every quote of an account's words, inside the transaction that deletes it: the
    /// lines stay ("someone liked your review", its name gone with the account), its words do not.
    /// Returns the inboxes that changed.
    package static func forgetWords(ofDeleted actor: UUID, on database: any Database) async throws -> Set<UUID> {
        let blanked = try await database.sql.update(InboxNotification.schema).set("excerpt", to: SQLLiteral.null)
            .where("actor_id", .equal, SQLBind(actor)).where("excerpt", .isNot, SQLLiteral.null).returning("recipient_id").all()
        return Set(try blanked.map { try $0.decode(column: "recipient_id", as: UUID.self) })
    }

    /// A notification as the inbox lists it, with its actor's current name and picture.
    package struct Listed: NewestFirstRow, Sendable {
        package let id: UUID
        package let service: String
        package let kind: String
        package let actor: (id: UUID, nickname: String, profileImageKey: String?)?
        package let subjectID: UUID?
        package let link: String?
        package let excerpt: String?
        package let readAt: Date?
        package let createdAt: Date
    }

    /// One newest-first page of a person's inbox, as rows joined with their actors: one statement
    /// (the inbox page and its API built the models and their actors as two, 0.13× of `/healthz`).
    package func page(for user: UUID, _ page: CursorPageRequest) async throws -> (items: [Listed], nextCursor: String?) {
        // The first page at the usual size is what nearly every view asks: from memory, kept
        // until the inbox or an account changes (`UnreadCounts`).
        guard page.cursor == nil, page.orderedCursor == nil, page.limit == CursorPageRequest.defaultLimit else {
            return try await read(for: user, page)
        }
        if let remembered = unreadCounts.firstPage(for: user) { return (remembered.items, remembered.nextCursor) }
        let generation = unreadCounts.firstPageGeneration
        let read = try await read(for: user, page)
        unreadCounts.remember(firstPage: FirstPage(items: read.items, nextCursor: read.nextCursor), for: user, readAt: generation)
        return read
    }

    /// The first page of an inbox as `page` read it.
    package struct FirstPage: Sendable {
        package let items: [Listed]
        package let nextCursor: String?
    }

    private func read(for user: UUID, _ page: CursorPageRequest) async throws -> (items: [Listed], nextCursor: String?) {
        let notifications = InboxNotification.schema, users = User.schema
        let rows = try await database.sql.select()
            .column(SQLColumn(SQLLiteral.all, table: SQLIdentifier(notifications)))
            .column(SQLColumn("nickname", table: users), as: "actor_nickname")
            .column(SQLColumn("profile_image_key", table: users), as: "actor_image")
            .from(notifications)
            .join(users, method: SQLJoinMethod.left, on: SQLColumn("actor_id", table: notifications), .equal, SQLColumn("id", table: users))
            .where(SQLColumn("recipient_id", table: notifications), .equal, SQLBind(user))
            .newestFirst(createdAt: SQLColumn("created_at", table: notifications), id: SQLColumn("id", table: notifications), page)
            .all()
        let listed = try rows.map { row in
            // No actor, or an actor whose account was deleted (the join found no row).
            var actor: (id: UUID, nickname: String, profileImageKey: String?)?
            if let actorID = try row.decode(column: "actor_id", as: UUID?.self),
               let nickname = try row.decode(column: "actor_nickname", as: String?.self) {
                actor = (actorID, nickname, try row.decode(column: "actor_image", as: String?.self))
            }
            return Listed(
                id: try row.decode(column: "id", as: UUID.self), service: try row.decode(column: "service", as: String.self),
                kind: try row.decode(column: "kind", as: String.self), actor: actor,
                subjectID: try row.decode(column: "subject_id", as: UUID?.self), link: try row.decode(column: "link", as: String?.self),
                excerpt: try row.decode(column: "excerpt", as: String?.self), readAt: try row.decode(column: "read_at", as: Date?.self),
                createdAt: try row.decode(column: "created_at", as: Date.self))
        }
        return page.page(of: listed)
    }

    package func notification(_ id: UUID, for user: UUID) async throws -> InboxNotification? {
        try await InboxNotification.query(on: database).filter(\.$id == id).filter(\.$recipient.$id == user).with(\.$actor).first()
    }

    /// From memory when counted recently (`UnreadCounts`); every change above forgets it.
    package func unreadCount(for user: UUID) async throws -> Int {
        if let remembered = unreadCounts.count(for: user) { return remembered }
        let generation = unreadCounts.generation
        let counted = try await InboxNotification.query(on: database).filter(\.$recipient.$id == user).filter(\.$readAt == nil).count()
        unreadCounts.remember(counted, for: user, countedAt: generation)
        return counted
    }

    /// Marks the given notifications read, or all of them when `ids` is nil. Ids of other
    /// people's notifications change nothing.
    package func markRead(for user: UUID, ids: [UUID]?) async throws {
        let query = InboxNotification.query(on: database).filter(\.$recipient.$id == user).filter(\.$readAt == nil)
        if let ids { query.filter(\.$id ~~ ids) }
        try await query.set(\.$readAt, to: Date()).update()
        await unreadCounts.forget(user, announcingOn: events)
        await events.publish("read", to: Self.topic(for: user))
    }

    package init(database: any Database, events: any EventBus, unreadCounts: UnreadCounts) {
        self.database = database
        self.events = events
        self.unreadCounts = unreadCounts
    }

    package init(database: any Database, application: Application) {
        self.init(database: database, events: application.events, unreadCounts: application.unreadCounts)
    }
}

extension Request {
    package var inbox: NotificationInbox { NotificationInbox(database: db, application: application) }
}
