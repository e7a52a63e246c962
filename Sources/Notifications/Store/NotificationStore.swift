import Accounts
package import Fluent
package import Platform
import SQLKit
package import Vapor

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
    /// How many events the entry stands for ("3 new messages"): this number when given, else one
    /// more than the unread entry it collapses into (one for a new entry).
    package var count: Int? = nil

    package init(recipient: UUID, actor: UUID?, service: String, kind: String, subjectID: UUID? = nil, link: String? = nil, excerpt: String? = nil,
                 once: Bool = false, collapsesUnread: Bool = false, count: Int? = nil) {
        self.count = count
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

/// The one owner of `notifications`, the inbox every service posts to: the only code that reads or
/// writes it, names its columns (`Column`; the model's keys are these too) and announces each
/// change. Posting writes the row and tells the recipient's live sockets (on every instance,
/// through the event bus) that something arrived; every change forgets the recipient's count and
/// first page in memory (`UnreadCounts`), here and on the other instances.
package struct NotificationStore {
    package static let maxExcerptCharacters = 80

    package let database: any Database
    /// The clock, the bus, the remembered counts and the push queue (`NotificationsEnvironment`).
    let environment: NotificationsEnvironment
    package var events: any EventBus { environment.events }
    var unreadCounts: UnreadCounts { environment.unreadCounts }

    package static func topic(for user: UUID) -> String { "notifications.\(user.uuidString.lowercased())" }

    /// The columns of `notifications`, each named once in `Row`'s coding keys, used by the model's
    /// keys and every statement.
    typealias Column = Row.CodingKeys

    /// A row of `notifications` as the reads decode it (`NotificationStoreTests` checks it against
    /// `InboxNotification`).
    struct Row: Codable, Sendable, Equatable {
        let id: UUID
        let recipientID: UUID
        let actorID: UUID?
        let service: String
        let kind: String
        let subjectID: UUID?
        let link: String?
        let excerpt: String?
        let readAt: Date?
        let createdAt: Date
        /// How many events the entry stands for (collapsed comments, a conversation's new lines).
        let eventCount: Int

        enum CodingKeys: String, TableColumn {
            case id, service, kind, link, excerpt
            case recipientID = "recipient_id", actorID = "actor_id", subjectID = "subject_id"
            case readAt = "read_at", createdAt = "created_at", eventCount = "event_count"
        }

        init(id: UUID, recipientID: UUID, actorID: UUID?, service: String, kind: String, subjectID: UUID?, link: String?,
             excerpt: String?, readAt: Date?, createdAt: Date, eventCount: Int) {
            self.id = id
            self.recipientID = recipientID
            self.actorID = actorID
            self.service = service
            self.kind = kind
            self.subjectID = subjectID
            self.link = link
            self.excerpt = excerpt
            self.readAt = readAt
            self.createdAt = createdAt
            self.eventCount = eventCount
        }

        /// The row a saved model stands for.
        init(_ model: InboxNotification) throws {
            id = try model.requireID()
            recipientID = model.$recipient.id
            actorID = model.$actor.id
            service = model.service
            kind = model.kind
            subjectID = model.subjectID
            link = model.link
            excerpt = model.excerpt
            readAt = model.readAt
            eventCount = model.eventCount
            guard let createdAt = model.createdAt else { throw FluentError.missingField(name: Column.createdAt.stringValue) }
            self.createdAt = createdAt
        }
    }

    private var sql: any SQLDatabase { database.sql }
    private static var table: SQLIdentifier { SQLIdentifier(InboxNotification.schema) }
    private static func column(_ name: some TableColumn) -> SQLColumn { SQLColumn(name, table: InboxNotification.schema) }

    // MARK: Writes (each announced)

    /// Posts a notification; one's own actions notify nobody.
    package func post(_ draft: NotificationDraft) async throws {
        guard draft.actor != draft.recipient else { return }
        // One reading of the clock: the entry's time, new or moved to the top.
        let now = environment.now().wholeMicroseconds
        if draft.once, try await sameNotice(draft).first() != nil { return }
        let excerpt = draft.excerpt.map { String($0.prefix(Self.maxExcerptCharacters)) }
        if draft.collapsesUnread, let unread = try await sameNotice(draft).where(SQLIdentifier(Column.readAt), .is, SQLLiteral.null)
            .first(decoding: Row.self) {
            try await sql.update(Self.table).set(Column.excerpt, to: excerpt).set(Column.link, to: draft.link)
                .set(Column.eventCount, to: draft.count ?? unread.eventCount + 1).set(Column.createdAt, to: now)
                .where(SQLIdentifier(Column.id), .equal, SQLBind(unread.id)).run()
            try await arrived(unread.id, for: draft.recipient)
            return
        }
        let row = Row(id: UUID(), recipientID: draft.recipient, actorID: draft.actor, service: draft.service, kind: draft.kind,
                      subjectID: draft.subjectID, link: draft.link, excerpt: excerpt, readAt: nil, createdAt: now, eventCount: draft.count ?? 1)
        try await sql.insert(row, into: InboxNotification.schema)
        try await arrived(row.id, for: draft.recipient)
    }

    /// The recipient's entries from the same actor, of the same kind, about the same subject (a
    /// missing actor or subject matches only a missing one).
    private func sameNotice(_ draft: NotificationDraft) -> SQLSelectBuilder {
        let select = sql.select().columns(Column.allCases).from(Self.table)
            .where(SQLIdentifier(Column.recipientID), .equal, SQLBind(draft.recipient))
            .where(SQLIdentifier(Column.kind), .equal, SQLBind(draft.kind))
        for (column, value) in [(Column.actorID, draft.actor), (Column.subjectID, draft.subjectID)] {
            if let value { select.where(SQLIdentifier(column), .equal, SQLBind(value)) } else { select.where(SQLIdentifier(column), .is, SQLLiteral.null) }
        }
        return select
    }

    /// An entry arrived or moved to the top: the recipient's pages hear it, their browsers get it pushed.
    private func arrived(_ id: UUID, for recipient: UUID) async throws {
        await announce(arrived: id, for: recipient)
        if let queue = environment.pushQueue { await PushDeliveries.enqueue(id, for: recipient, on: queue, logger: environment.logger, database: database) }
    }

    /// Forgets entries read before `cutoff` (the daily prune). How many went.
    package func pruneRead(before cutoff: Date) async throws -> Int {
        try await sql.delete(from: Self.table).where(SQLIdentifier(Column.readAt), .lessThan, SQLBind(cutoff))
            .returning(SQLIdentifier(Column.id)).all().count
    }

    /// Takes back what was said about a subject that is gone (a deleted review).
    package func withdraw(subject: UUID) async throws {
        let withdrawn = try await sql.delete(from: Self.table)
            .where(SQLIdentifier(Column.subjectID), .equal, SQLBind(subject))
            .returning(SQLIdentifier(Column.recipientID)).all(decodingColumn: Column.recipientID, as: UUID.self)
        for recipient in Set(withdrawn) { await unreadCounts.forget(recipient, announcingOn: events) }
    }

    /// Takes back the words of a deleted comment: the notices its author's comments of `kind` on
    /// `subject` raised lose their quote (a notice collapses a person's comments into one, so it
    /// may quote this comment or a later one; a missing quote says less than a deleted one).
    package func forgetWords(of actor: UUID, kind: String, subject: UUID) async throws {
        let recipients = try await Self.blankExcerpts(on: database) { update in
            update.where(SQLIdentifier(Column.actorID), .equal, SQLBind(actor))
                .where(SQLIdentifier(Column.kind), .equal, SQLBind(kind))
                .where(SQLIdentifier(Column.subjectID), .equal, SQLBind(subject))
        }
        for recipient in recipients { await announceChange(for: recipient) }
    }

    /// Takes back every quote of an account's words, inside the transaction that deletes it: the
    /// lines stay ("someone liked your review", its name gone with the account), its words do not.
    /// Returns the inboxes that changed; announce them after the transaction (`announceChange`).
    package static func forgetWords(ofDeleted actor: UUID, on database: any Database) async throws -> Set<UUID> {
        try await blankExcerpts(on: database) { $0.where(SQLIdentifier(Column.actorID), .equal, SQLBind(actor)) }
    }

    /// Sets the quote of the chosen rows that have one to null; returns their recipients.
    private static func blankExcerpts(on database: any Database, _ choose: (SQLUpdateBuilder) -> SQLUpdateBuilder) async throws -> Set<UUID> {
        let update = database.sql.update(InboxNotification.schema).set(SQLIdentifier(Column.excerpt), to: SQLLiteral.null)
        let blanked = try await choose(update).where(SQLIdentifier(Column.excerpt), .isNot, SQLLiteral.null)
            .returning(SQLIdentifier(Column.recipientID)).all(decodingColumn: Column.recipientID, as: UUID.self)
        return Set(blanked)
    }

    /// Marks the given notifications read, or all of them when `ids` is nil. Ids of other
    /// people's notifications change nothing.
    package func markRead(for user: UUID, ids: [UUID]?) async throws {
        let update = sql.update(Self.table).set(Column.readAt, to: environment.now().wholeMicroseconds)
            .where(SQLIdentifier(Column.recipientID), .equal, SQLBind(user)).where(SQLIdentifier(Column.readAt), .is, SQLLiteral.null)
        if let ids { update.where(SQLIdentifier(Column.id), .in, SQLBind.group(ids)) }
        // No ids named: nothing to mark (`IN ()` is no statement PostgreSQL takes).
        if ids?.isEmpty != true { try await update.run() }
        await unreadCounts.forget(user, announcingOn: events)
        await events.publish("read", to: Self.topic(for: user))
    }

    /// Marks read the person's unread entries of `kind` about `subject` (a conversation read in
    /// its chat: its "new messages" entry is read too).
    package func markRead(for user: UUID, kind: String, subject: UUID) async throws {
        try await markRead(for: user, kinds: [kind], subject: subject)
    }

    /// Marks read the person's unread entries of any of `kinds` about `subject` (an order's changes).
    /// Pages call it on every view: nothing is read or written when the (remembered) unread count
    /// is 0 or the (remembered) unread entries are about other things.
    package func markRead(for user: UUID, kinds: [String], subject: UUID) async throws {
        guard try await unreadCount(for: user) > 0 else { return }
        // A read first: most views find nothing unread about this subject, and an UPDATE takes the
        // database's write lock even when it changes no row (a class reloading its orders queued
        // behind each other's no-op writes).
        guard try await unreadAbout(for: user).mayHave(kinds, about: subject) else { return }
        let marked = try await sql.update(Self.table).set(Column.readAt, to: SQLBind(environment.now()))
            .where(Column.recipientID, .equal, SQLBind(user)).where(Column.kind, .in, SQLBind.group(kinds))
            .where(Column.subjectID, .equal, SQLBind(subject)).where(Column.readAt, .is, SQLLiteral.null)
            .returning(Column.id).all()
        // Nothing was unread after all (an announcement lost?): what was remembered is read again.
        guard !marked.isEmpty else { return unreadCounts.apply(forgetting: user) }
        await unreadCounts.forget(user, announcingOn: events)
        await events.publish("read", to: Self.topic(for: user))
    }

    /// A notice arrived (or moved to the top): the count and first page are forgotten everywhere
    /// and the recipient's sockets send it.
    private func announce(arrived id: UUID, for recipient: UUID) async {
        await unreadCounts.forget(recipient, announcingOn: events)
        await events.publish(id.uuidString, to: Self.topic(for: recipient))
    }

    /// Something in the inbox changed in place (a quote went): forgotten everywhere, the sockets
    /// read it again.
    package func announceChange(for recipient: UUID) async {
        await unreadCounts.forget(recipient, announcingOn: events)
        await events.publish("changed", to: Self.topic(for: recipient))
    }

    // MARK: Reads

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
        /// How many events it stands for.
        package let count: Int

        /// A row read by `listedRows` (the notification's columns and its actor's).
        init(_ sqlRow: any SQLRow) throws {
            let row = try sqlRow.decode(model: Row.self)
            // No actor, or an actor whose account was deleted (the join found no row).
            let actor = try AccountStore.person("actor", id: row.actorID, in: sqlRow).map { ($0.id, $0.nickname, $0.profileImageKey) }
            self.init(id: row.id, service: row.service, kind: row.kind, actor: actor, subjectID: row.subjectID,
                      link: row.link, excerpt: row.excerpt, readAt: row.readAt, createdAt: row.createdAt, count: row.eventCount)
        }

        init(id: UUID, service: String, kind: String, actor: (id: UUID, nickname: String, profileImageKey: String?)?, subjectID: UUID?,
             link: String?, excerpt: String?, readAt: Date?, createdAt: Date, count: Int = 1) {
            self.count = count
            self.id = id
            self.service = service
            self.kind = kind
            self.actor = actor
            self.subjectID = subjectID
            self.link = link
            self.excerpt = excerpt
            self.readAt = readAt
            self.createdAt = createdAt
        }
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
        let rows = try await listedRows()
            .where(Self.column(Column.recipientID), .equal, SQLBind(user))
            .newestFirst(createdAt: Self.column(Column.createdAt), id: Self.column(Column.id), page)
            .all()
        return page.page(of: try rows.map(Listed.init))
    }

    /// The notifications joined with their actors' current name and picture.
    private func listedRows() -> SQLSelectBuilder {
        sql.select()
            .column(SQLColumn(SQLLiteral.all, table: Self.table))
            .from(Self.table)
            .joiningPerson("actor", on: Self.column(Column.actorID), keepingOrphans: true)
    }

    /// One of the person's notifications, as the inbox lists it; nil for another's or an unknown id.
    package func notification(_ id: UUID, for user: UUID) async throws -> Listed? {
        try await listedRows()
            .where(Self.column(Column.id), .equal, SQLBind(id))
            .where(Self.column(Column.recipientID), .equal, SQLBind(user))
            .first().map(Listed.init)
    }

    /// From memory when counted recently (`UnreadCounts`); every change above forgets it.
    /// What the person's unread entries are about: the kinds and subjects of up to 101 of them, in
    /// one statement, remembered with the count (`UnreadCounts`).
    private func unreadAbout(for user: UUID) async throws -> UnreadCounts.UnreadAbout {
        try await unreadCounts.unreadAbout(for: user) {
            let rows = try await sql.select().column(Column.kind).column(Column.subjectID).from(Self.table)
                .where(Column.recipientID, .equal, SQLBind(user)).where(Column.readAt, .is, SQLLiteral.null)
                .where(Column.subjectID, .isNot, SQLLiteral.null)
                .limit(UnreadCounts.UnreadAbout.limit + 1).all()
            var kindsBySubject: [UUID: Set<String>] = [:]
            for row in rows.prefix(UnreadCounts.UnreadAbout.limit) {
                kindsBySubject[try row.decode(column: Column.subjectID, as: UUID.self), default: []]
                    .insert(try row.decode(column: Column.kind, as: String.self))
            }
            return UnreadCounts.UnreadAbout(kindsBySubject: kindsBySubject, complete: rows.count <= UnreadCounts.UnreadAbout.limit)
        }
    }

    package func unreadCount(for user: UUID) async throws -> Int {
        if let remembered = unreadCounts.count(for: user, now: environment.now()) { return remembered }
        let generation = unreadCounts.generation
        let counted = try await sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from(Self.table)
            .where(SQLIdentifier(Column.recipientID), .equal, SQLBind(user)).where(SQLIdentifier(Column.readAt), .is, SQLLiteral.null)
            .first(decodingColumn: "n", as: Int.self) ?? 0
        unreadCounts.remember(counted, for: user, countedAt: generation, now: environment.now())
        return counted
    }

    package init(database: any Database, environment: NotificationsEnvironment) {
        self.database = database
        self.environment = environment
    }

    package init(database: any Database, application: Application) {
        self.init(database: database, environment: application.notificationsEnvironment)
    }
}

extension Request {
    package var inbox: NotificationStore { NotificationStore(database: db, application: application) }
}
