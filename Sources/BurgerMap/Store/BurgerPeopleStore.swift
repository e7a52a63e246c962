import Accounts
package import Fluent
import Foundation
package import Platform
import SQLKit

/// The one owner of what people do to each other and to places on the map — follows
/// (`burger_follows`), marks on places (`burger_marks`: eaten, want) and reactions to reviews
/// (`burger_reactions`: like, bookmark) — the only code that reads or writes them, naming each
/// column once (`FollowColumn`, `MarkColumn`, `ReactionColumn`: the models' keys and every
/// statement). People come back as the accounts' public face (`AccountStore.JoinedPerson`).
///
/// Follows and marks announce themselves (`MapAnnouncements`: the feeds, the kept pages, the
/// app's shop posts listing who marked a place follow them). Reactions are written by
/// `BurgerMapStore.react` together with their review's counter in one transaction, which announces
/// them after its commit; the inbox is the service's to tell.
package struct BurgerPeopleStore {
    package let database: any Database
    /// The map's clock: the time each new follow, mark and reaction records.
    private let now: Now
    /// Nil on a store made for reads or inside another store's transaction: its follows and marks
    /// are then not announced.
    private let announcements: MapAnnouncements?

    package init(database: any Database, now: @escaping Now) {
        self.database = database
        self.now = now
        self.announcements = nil
    }

    init(database: any Database, now: @escaping Now, announcements: MapAnnouncements) {
        self.database = database
        self.now = now
        self.announcements = announcements
    }

    /// A new follow, mark or reaction as written: every column of its table.
    struct NewFollow: Encodable {
        typealias CodingKeys = FollowColumn
        let id: UUID, followerID: UUID, followeeID: UUID, createdAt: Date
    }

    struct NewMark: Encodable {
        typealias CodingKeys = MarkColumn
        let id: UUID, kind: String, placeID: UUID, userID: UUID, createdAt: Date
    }

    struct NewReaction: Encodable {
        typealias CodingKeys = ReactionColumn
        let id: UUID, kind: String, reviewID: UUID, userID: UUID, createdAt: Date
    }

    enum FollowColumn: String, TableColumn {
        case id, followerID = "follower_id", followeeID = "followee_id", createdAt = "created_at"
    }

    enum MarkColumn: String, TableColumn {
        case id, kind, placeID = "place_id", userID = "user_id", createdAt = "created_at"
    }

    enum ReactionColumn: String, TableColumn {
        case id, kind, reviewID = "review_id", userID = "user_id", createdAt = "created_at"
    }

    private var sql: any SQLDatabase { database.sql }
    private static var follows: SQLIdentifier { SQLIdentifier(BurgerFollow.schema) }
    private static var marks: SQLIdentifier { SQLIdentifier(BurgerMark.schema) }
    private static var reactions: SQLIdentifier { SQLIdentifier(BurgerReaction.schema) }

    // MARK: Follows

    /// Writes a follow; false when it was there already (twice is once).
    func addFollow(of followee: UUID, by follower: UUID) async throws -> Bool {
        do {
            try await sql.insert(NewFollow(id: UUID(), followerID: follower, followeeID: followee, createdAt: now().wholeMicroseconds), into: BurgerFollow.schema)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            return false
        }
        await announcements?.contentChanged(places: [])  // the follower's feed
        return true
    }

    func removeFollow(of followee: UUID, by follower: UUID) async throws {
        try await sql.delete(from: Self.follows)
            .where(SQLIdentifier(FollowColumn.followerID), .equal, SQLBind(follower))
            .where(SQLIdentifier(FollowColumn.followeeID), .equal, SQLBind(followee)).run()
        await announcements?.contentChanged(places: [])
    }

    /// How many people follow `user`, and how many `user` follows.
    func followCounts(of user: UUID) async throws -> (followers: Int, following: Int) {
        (try await sql.count(Self.follows) { $0.where(SQLIdentifier(FollowColumn.followeeID), .equal, SQLBind(user)) },
         try await sql.count(Self.follows) { $0.where(SQLIdentifier(FollowColumn.followerID), .equal, SQLBind(user)) })
    }

    /// Whether `follower` follows the account `joiningPerson`/`selectPerson` reads as `role`, as a
    /// correlated count for a statement about that person (0 or 1).
    static func follows(by follower: UUID, personRole role: String) -> SQLQueryString {
        """
        (SELECT COUNT(*) FROM \(follows) f WHERE f.\(ident: FollowColumn.followerID) = \(bind: follower) \
        AND f.\(ident: FollowColumn.followeeID) = \(AccountStore.personID(role)))
        """
    }

    /// The accounts `user` follows, as a subquery (the feed's authors).
    func followees(of user: UUID) -> some SQLExpression {
        SQLSubquery.select { $0.column(SQLIdentifier(FollowColumn.followeeID)).from(Self.follows).where(SQLIdentifier(FollowColumn.followerID), .equal, SQLBind(user)) }
    }

    /// The people following `user` (`following` false) or followed by them (true), newest first:
    /// a page, or (without one) at most `limit`.
    func followPeople(of user: UUID, following: Bool, _ page: CursorPageRequest? = nil, limit: Int = 5_000) async throws
        -> (items: [AccountStore.JoinedPerson], nextCursor: String?)
    {
        let (mine, theirs) = following ? (FollowColumn.followerID, FollowColumn.followeeID) : (FollowColumn.followeeID, FollowColumn.followerID)
        let column = { (name: FollowColumn) in SQLColumn(name, table: BurgerFollow.schema) }
        let query = sql.select().column(column(FollowColumn.id)).column(column(FollowColumn.createdAt)).column(column(theirs))
            .from(Self.follows).joiningPerson("person", on: column(theirs))
            .where(column(mine), .equal, SQLBind(user))
        struct Listed: NewestFirstRow { let id: UUID; let createdAt: Date; let person: AccountStore.JoinedPerson }
        func listed(_ rows: [any SQLRow]) throws -> [Listed] {
            try rows.map { row in
                Listed(id: try row.decode(column: FollowColumn.id, as: UUID.self), createdAt: try row.decode(column: FollowColumn.createdAt, as: Date.self),
                       person: try AccountStore.person("person", id: try row.decode(column: theirs, as: UUID.self), in: row))
            }
        }
        guard let page else {
            let rows = try await query.orderBy(SQLOrderBy(expression: column(FollowColumn.createdAt), direction: SQLDirection.descending))
                .orderBy(SQLOrderBy(expression: column(FollowColumn.id), direction: SQLDirection.descending)).limit(limit).all()
            return (try listed(rows).map(\.person), nil)
        }
        let rows = try await query.newestFirst(createdAt: column(FollowColumn.createdAt), id: column(FollowColumn.id), page).all()
        let paged = page.page(of: try listed(rows))
        return (paged.items.map(\.person), paged.nextCursor)
    }

    // MARK: Marks

    /// Sets or clears a mark; twice is once.
    func setMark(_ kind: BurgerMark.Kind, on place: UUID, by user: UUID, to on: Bool) async throws {
        if on {
            let mark = NewMark(id: UUID(), kind: kind.rawValue, placeID: place, userID: user, createdAt: now().wholeMicroseconds)
            do { try await sql.insert(mark, into: BurgerMark.schema) } catch let error as any DatabaseError where error.isConstraintFailure {}
        } else {
            try await sql.delete(from: Self.marks).where(SQLIdentifier(MarkColumn.kind), .equal, SQLBind(kind.rawValue))
                .where(SQLIdentifier(MarkColumn.placeID), .equal, SQLBind(place)).where(SQLIdentifier(MarkColumn.userID), .equal, SQLBind(user)).run()
        }
        await announcements?.contentChanged(places: [place])  // the LookForRealBurger app's shop posts list who marked them
    }

    /// `user`'s marks on the place, in name order.
    func marks(on place: UUID, by user: UUID) async throws -> [BurgerMark.Kind] {
        try await sql.select().column(SQLIdentifier(MarkColumn.kind)).from(Self.marks)
            .where(SQLIdentifier(MarkColumn.placeID), .equal, SQLBind(place)).where(SQLIdentifier(MarkColumn.userID), .equal, SQLBind(user))
            .all(decodingColumn: MarkColumn.kind, as: String.self)
            .compactMap(BurgerMark.Kind.init(rawValue:)).sorted { $0.rawValue < $1.rawValue }
    }

    /// How many people marked the place, by kind.
    func markCounts(on place: UUID) async throws -> [BurgerMark.Kind: Int] {
        let rows = try await sql.select().column(SQLIdentifier(MarkColumn.kind)).column(SQLFunction("COUNT", args: SQLLiteral.all), as: "counted")
            .from(Self.marks).where(SQLIdentifier(MarkColumn.placeID), .equal, SQLBind(place)).groupBy(SQLIdentifier(MarkColumn.kind)).all()
        var counts: [BurgerMark.Kind: Int] = [:]
        for row in rows {
            if let kind = BurgerMark.Kind(rawValue: try row.decode(column: MarkColumn.kind, as: String.self)) {
                counts[kind] = try row.decode(column: "counted", as: Int.self)
            }
        }
        return counts
    }

    /// How many places `user` marked `kind`.
    func markCount(_ kind: BurgerMark.Kind, by user: UUID) async throws -> Int {
        try await sql.count(Self.marks) {
            $0.where(SQLIdentifier(MarkColumn.userID), .equal, SQLBind(user)).where(SQLIdentifier(MarkColumn.kind), .equal, SQLBind(kind.rawValue))
        }
    }

    /// The places `user` marked `kind`, the latest first, a page at a time.
    package func markedPlaces(_ kind: BurgerMark.Kind, by user: UUID, _ page: CursorPageRequest) async throws -> (items: [UUID], nextCursor: String?) {
        try await newestFirst(Self.marks, subject: MarkColumn.placeID, page) {
            $0.where(SQLIdentifier(MarkColumn.kind), .equal, SQLBind(kind.rawValue)).where(SQLIdentifier(MarkColumn.userID), .equal, SQLBind(user))
        }
    }

    /// Who marked each place, by kind, in the order they did.
    package func markers(ofPlaces ids: [UUID]) async throws -> [UUID: [BurgerMark.Kind: [UUID]]] {
        try await people(in: Self.marks, subject: MarkColumn.placeID, kind: MarkColumn.kind, user: MarkColumn.userID,
                         createdAt: MarkColumn.createdAt, id: MarkColumn.id, of: ids).mapValues { byKind in
            Dictionary(uniqueKeysWithValues: byKind.compactMap { kind, people in BurgerMark.Kind(rawValue: kind).map { ($0, people) } })
        }
    }

    // MARK: Reactions

    /// Writes a like or bookmark; false when it was there already. Inside the transaction that
    /// counts it on the review.
    func addReaction(_ kind: BurgerReaction.Kind, on review: UUID, by user: UUID) async throws -> Bool {
        if try await hasReaction(kind, on: review, by: user) { return false }
        try await sql.insert(NewReaction(id: UUID(), kind: kind.rawValue, reviewID: review, userID: user, createdAt: now().wholeMicroseconds),
                             into: BurgerReaction.schema)
        return true
    }

    /// Removes a like or bookmark; how many went (0 or 1). Inside the transaction that counts it.
    func removeReaction(_ kind: BurgerReaction.Kind, on review: UUID, by user: UUID) async throws -> Int {
        try await sql.delete(from: Self.reactions)
            .where(SQLIdentifier(ReactionColumn.kind), .equal, SQLBind(kind.rawValue)).where(SQLIdentifier(ReactionColumn.reviewID), .equal, SQLBind(review))
            .where(SQLIdentifier(ReactionColumn.userID), .equal, SQLBind(user)).returning(SQLIdentifier(ReactionColumn.id)).all().count
    }

    /// Every reaction to a review (its deletion).
    func removeReactions(on review: UUID) async throws {
        try await sql.delete(from: Self.reactions).where(SQLIdentifier(ReactionColumn.reviewID), .equal, SQLBind(review)).run()
    }

    func hasReaction(_ kind: BurgerReaction.Kind, on review: UUID, by user: UUID) async throws -> Bool {
        try await sql.select().column(SQLIdentifier(ReactionColumn.id)).from(Self.reactions)
            .where(SQLIdentifier(ReactionColumn.kind), .equal, SQLBind(kind.rawValue)).where(SQLIdentifier(ReactionColumn.reviewID), .equal, SQLBind(review))
            .where(SQLIdentifier(ReactionColumn.userID), .equal, SQLBind(user)).limit(1).first() != nil
    }

    /// The reader's reactions among these reviews, as "kind|review id".
    func reactions(of user: UUID, amongReviews ids: [UUID]) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        var found: Set<String> = []
        for chunk in ids.chunked(StatementLimits.bindsPerStatement - 1) {
            let rows = try await sql.select().column(SQLIdentifier(ReactionColumn.reviewID)).column(SQLIdentifier(ReactionColumn.kind)).from(Self.reactions)
                .where(SQLIdentifier(ReactionColumn.userID), .equal, SQLBind(user))
                .where(SQLIdentifier(ReactionColumn.reviewID), .in, SQLBind.group(Array(chunk))).all()
            for row in rows {
                found.insert("\(try row.decode(column: ReactionColumn.kind, as: String.self))|\(try row.decode(column: ReactionColumn.reviewID, as: UUID.self))")
            }
        }
        return found
    }

    /// The reviews `user` reacted to with `kind`, as a subquery (an account's removal moves their counters).
    static func reviews(reactedBy user: UUID, _ kind: BurgerReaction.Kind) -> SQLQueryString {
        """
        (SELECT \(ident: ReactionColumn.reviewID) FROM \(reactions) WHERE \(ident: ReactionColumn.userID) = \(bind: user) \
        AND \(ident: ReactionColumn.kind) = \(bind: kind.rawValue))
        """
    }

    /// The reviews `user` reacted to with `kind`, the latest first, a page at a time.
    func reactedReviews(_ kind: BurgerReaction.Kind, by user: UUID, _ page: CursorPageRequest) async throws -> (items: [UUID], nextCursor: String?) {
        try await newestFirst(Self.reactions, subject: ReactionColumn.reviewID, page) {
            $0.where(SQLIdentifier(ReactionColumn.kind), .equal, SQLBind(kind.rawValue)).where(SQLIdentifier(ReactionColumn.userID), .equal, SQLBind(user))
        }
    }

    /// Who liked and bookmarked each review, by kind, in the order they did.
    package func reactors(ofReviews ids: [UUID]) async throws -> [UUID: [BurgerReaction.Kind: [UUID]]] {
        try await people(in: Self.reactions, subject: ReactionColumn.reviewID, kind: ReactionColumn.kind, user: ReactionColumn.userID,
                         createdAt: ReactionColumn.createdAt, id: ReactionColumn.id, of: ids).mapValues { byKind in
            Dictionary(uniqueKeysWithValues: byKind.compactMap { kind, people in BurgerReaction.Kind(rawValue: kind).map { ($0, people) } })
        }
    }

    // MARK: Shared shapes

    /// Newest-first ids of `subject` in the rows `narrow` picks.
    /// A mark or reaction's place in a newest-first page, and what it marks.
    private struct MarkedRow: NewestFirstRow { let id: UUID; let createdAt: Date; let subject: UUID }

    private func newestFirst(_ table: SQLIdentifier, subject: some TableColumn, _ page: CursorPageRequest,
                             _ narrow: (SQLSelectBuilder) -> SQLSelectBuilder) async throws -> (items: [UUID], nextCursor: String?) {
        let rows = try await narrow(sql.select().column("id").column("created_at").column(SQLIdentifier(subject)).from(table))
            .newestFirst(createdAt: SQLColumn("created_at"), id: SQLColumn("id"), page).all()
            .map { MarkedRow(id: try $0.decode(column: "id", as: UUID.self), createdAt: try $0.decode(column: "created_at", as: Date.self),
                       subject: try $0.decode(column: subject, as: UUID.self)) }
        let paged = page.page(of: rows)
        return (paged.items.map(\.subject), paged.nextCursor)
    }

    /// For each subject, who did what (by kind), in the order they did.
    private func people<Column: TableColumn>(in table: SQLIdentifier, subject: Column, kind: Column, user: Column, createdAt: Column, id: Column,
                        of ids: [UUID]) async throws -> [UUID: [String: [UUID]]] {
        var result: [UUID: [String: [UUID]]] = [:]
        for chunk in ids.chunked(StatementLimits.bindsPerStatement) {
            let rows = try await sql.select().column(SQLIdentifier(subject)).column(SQLIdentifier(kind)).column(SQLIdentifier(user)).from(table)
                .where(SQLIdentifier(subject), .in, SQLBind.group(Array(chunk)))
                .orderBy(createdAt).orderBy(id).all()
            for row in rows {
                let subjectID = try row.decode(column: subject, as: UUID.self)
                result[subjectID, default: [:]][try row.decode(column: kind, as: String.self), default: []].append(try row.decode(column: user, as: UUID.self))
            }
        }
        return result
    }
}
