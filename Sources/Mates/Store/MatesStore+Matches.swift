package import Fluent
import Foundation
import Platform
import SQLKit

/// The matches of `MatesStore`'s aggregate and their chat: `mates_matches` and `mates_messages`,
/// read and written only here, each column named once (`MatchColumn`, `MessageColumn`: the rows' coding
/// keys, used by every statement). Rows are written and read as they are (`MatchRow`, `MessageRow`); the chat's
/// announcements to the pair's sockets are the service's, which knows who is listening.
extension MatesStore {
    typealias MatchColumn = MatchRow.CodingKeys

    typealias MessageColumn = MessageRow.CodingKeys

    private var matches: SQLIdentifier { SQLIdentifier(MatesStore.Table.matches) }
    private var messages: SQLIdentifier { SQLIdentifier(MatesStore.Table.messages) }
    private func selectMatches() -> SQLSelectBuilder { sql.select().columns(MatchColumn.allCases).from(matches) }

    /// Rows where `user` is one of the pair (and `other` the other, when given).
    private func pair(_ user: UUID, _ other: UUID?) -> (SQLPredicateGroupBuilder) -> SQLPredicateGroupBuilder {
        let a = SQLIdentifier(MatchColumn.userA), b = SQLIdentifier(MatchColumn.userB)
        return { either in
            guard let other else { return either.where(a, .equal, SQLBind(user)).orWhere(b, .equal, SQLBind(user)) }
            return either.where(group: { $0.where(a, .equal, SQLBind(user)).where(b, .equal, SQLBind(other)) })
                .orWhere(group: { $0.where(a, .equal, SQLBind(other)).where(b, .equal, SQLBind(user)) })
        }
    }

    // MARK: Matches

    /// The match with this id, ended or not.
    package func match(_ id: UUID) async throws -> MatchRow? {
        try await selectMatches().where(SQLIdentifier(MatchColumn.id), .equal, SQLBind(id)).first(decoding: MatchRow.self)
    }

    /// The match with this id while it lasts.
    func liveMatch(_ id: UUID) async throws -> MatchRow? {
        try await selectMatches().where(SQLIdentifier(MatchColumn.id), .equal, SQLBind(id))
            .where(SQLIdentifier(MatchColumn.endedAt), .is, SQLLiteral.null).first(decoding: MatchRow.self)
    }

    /// The newest match of `user` (with `other`, when given), ended or not.
    package func newestMatch(of user: UUID, with other: UUID? = nil) async throws -> MatchRow? {
        try await selectMatches().where(group: pair(user, other))
            .orderBy(MatchColumn.createdAt, .descending).orderBy(MatchColumn.id, .descending)
            .first(decoding: MatchRow.self)
    }

    /// The person's match that ended last: what their record (`record`) keeps.
    func readLastEndedMatch(_ user: UUID) async throws -> MatesOwnRecord.EndedMatch? {
        guard let row = try await selectMatches().where(group: pair(user, nil))
            .where(SQLIdentifier(MatchColumn.endedAt), .isNot, SQLLiteral.null)
            .orderBy(MatchColumn.createdAt, .descending).first(decoding: MatchRow.self),
            let endedAt = row.endedAt else { return nil }
        return MatesOwnRecord.EndedMatch(id: row.id, endedAt: endedAt)
    }

    /// Writes a new match of the asker and the one who accepted (inside the accept's transaction,
    /// which moves both profiles to it).
    func createMatch(id: UUID, asker: UUID, accepter: UUID) async throws -> MatchRow {
        let match = MatchRow(id: id, userA: asker, userB: accepter, createdAt: environment.now().wholeMicroseconds)
        try await sql.insert(match, into: Table.matches)
        return match
    }

    /// Ends a match that has not ended: false when it already had (a race, or a suspension).
    func endMatch(_ id: UUID, by user: UUID, reason: String, at now: Date) async throws -> Bool {
        let ended = try await sql.update(matches)
            .set(SQLIdentifier(MatchColumn.endedAt), to: SQLBind(now)).set(SQLIdentifier(MatchColumn.endedBy), to: SQLBind(user))
            .set(SQLIdentifier(MatchColumn.endReason), to: SQLBind(reason))
            .where(SQLIdentifier(MatchColumn.id), .equal, SQLBind(id)).where(SQLIdentifier(MatchColumn.endedAt), .is, SQLLiteral.null)
            .returning(SQLIdentifier(MatchColumn.id)).all()
        return !ended.isEmpty
    }

    /// Moves `user`'s read marker in the match forward to `time`; false when it was there already.
    func moveReadMarker(in match: MatchRow, of user: UUID, to time: Date) async throws -> Bool {
        let column = SQLIdentifier(match.userA == user ? MatchColumn.aReadAt : MatchColumn.bReadAt)
        let moved = try await sql.update(matches).set(column, to: SQLBind(time))
            .where(SQLIdentifier(MatchColumn.id), .equal, SQLBind(match.id))
            .where(group: { $0.where(column, .is, SQLLiteral.null).orWhere(column, .lessThan, SQLBind(time)) })
            .returning(SQLIdentifier(MatchColumn.id)).all()
        return !moved.isEmpty
    }

    // MARK: Chat

    /// Stores a line (its time to the microsecond, as both databases keep it).
    func appendMessage(to match: UUID, by sender: UUID?, kind: String, text: String, pin: String?, at now: Date) async throws -> MessageRow {
        let row = MessageRow(id: UUID(), matchID: match, senderID: sender, kind: kind, text: text, pin: pin,
                             createdAt: now.wholeMicroseconds)
        try await sql.insert(row, into: Table.messages)
        return row
    }

    /// A line by its id.
    func message(_ id: UUID) async throws -> MessageRow? {
        try await sql.select().columns(MessageColumn.allCases).from(messages)
            .where(SQLIdentifier(MessageColumn.id), .equal, SQLBind(id)).first(decoding: MessageRow.self)
    }

    /// The newest line in the match that `reader` did not write, if any.
    func newestMessage(in match: UUID, notBy reader: UUID) async throws -> MessageRow? {
        let sender = SQLIdentifier(MessageColumn.senderID)
        return try await sql.select().columns(MessageColumn.allCases).from(messages)
            .where(SQLIdentifier(MessageColumn.matchID), .equal, SQLBind(match))
            .where(group: { $0.where(sender, .notEqual, SQLBind(reader)).orWhere(sender, .is, SQLLiteral.null) })
            .orderBy(MessageColumn.createdAt, .descending).orderBy(MessageColumn.id, .descending).limit(1)
            .first(decoding: MessageRow.self)
    }

    /// The time of the newest line in the match, if any.
    func newestMessageTime(in match: UUID) async throws -> Date? {
        try await sql.select().column(SQLIdentifier(MessageColumn.createdAt)).from(messages)
            .where(SQLIdentifier(MessageColumn.matchID), .equal, SQLBind(match))
            .orderBy(MessageColumn.createdAt, .descending).limit(1)
            .first(decodingColumn: MessageColumn.createdAt, as: Date.self)
    }

    /// Every line between two people, over all their matches, from `after` on, oldest first; lines
    /// of the same microsecond keep their order by id.
    func messagesBetween(_ user: UUID, _ other: UUID, after: Date, limit: Int) async throws -> [MessageRow] {
        let theirMatches = sql.select().column(SQLIdentifier(MatchColumn.id)).from(matches).where(group: pair(user, other))
        return try await sql.select().columns(MessageColumn.allCases).from(messages)
            .where(SQLIdentifier(MessageColumn.matchID), .in, SQLGroupExpression(theirMatches.query))
            .where(SQLIdentifier(MessageColumn.createdAt), .greaterThanOrEqual, SQLBind(after))
            .orderBy(SQLIdentifier(MessageColumn.createdAt)).orderBy(SQLIdentifier(MessageColumn.id)).limit(limit)
            .all(decoding: MessageRow.self)
    }

    /// Newest first, older on each page (`before`), or oldest first from a position (`after`).
    func messagesPage(in match: UUID, before: PageCursor?, after: PageCursor?, limit: Int) async throws -> (items: [MessageRow], nextCursor: String?) {
        let query = sql.select().columns(MessageColumn.allCases).from(messages)
            .where(SQLIdentifier(MessageColumn.matchID), .equal, SQLBind(match))
        let created = SQLColumn(MessageColumn.createdAt), id = SQLColumn(MessageColumn.id)
        if let after {
            let bound = after.createdAtBound(on: sql)
            query.where(group: { group in
                group.where(created, .greaterThan, SQLBind(bound))
                    .orWhere(group: { $0.where(created, .equal, SQLBind(bound)).where(id, .greaterThan, SQLBind(after.id)) })
            })
            query.orderBy(SQLOrderBy(expression: created, direction: SQLDirection.ascending))
                .orderBy(SQLOrderBy(expression: id, direction: SQLDirection.ascending)).limit(limit + 1)
        } else {
            _ = try query.newestFirst(createdAt: created, id: id, CursorPageRequest(cursor: before, limit: limit))
        }
        return CursorPageRequest(limit: limit).page(of: try await query.all(decoding: MessageRow.self))
    }

    /// Lines in the match not written by `reader` (theirs and the server's) after `since`.
    func countMessages(in match: UUID, notBy reader: UUID, after since: Date?) async throws -> Int {
        let sender = SQLIdentifier(MessageColumn.senderID)
        return try await sql.count(messages) { query in
            query.where(SQLIdentifier(MessageColumn.matchID), .equal, SQLBind(match))
                .where(group: { $0.where(sender, .notEqual, SQLBind(reader)).orWhere(sender, .is, SQLLiteral.null) })
            if let since { query.where(SQLIdentifier(MessageColumn.createdAt), .greaterThan, SQLBind(since)) }
            return query
        }
    }
}

/// A match as the store writes and reads it.
package struct MatchRow: Codable, Sendable, Equatable {
    package let id: UUID
    /// The one who asked.
    let userA: UUID
    /// The one who accepted.
    let userB: UUID
    package var endedAt: Date? = nil
    package var endedBy: UUID? = nil
    /// `finished`, `dodged` or `suspended`.
    package var endReason: String? = nil
    /// Read markers: the time of the newest message each side has read.
    var aReadAt: Date? = nil
    var bReadAt: Date? = nil
    package let createdAt: Date?

    enum CodingKeys: String, TableColumn {
        case id
        case userA = "user_a", userB = "user_b", endedAt = "ended_at", endedBy = "ended_by", endReason = "end_reason"
        case aReadAt = "a_read_at", bReadAt = "b_read_at", createdAt = "created_at"
    }


    package func includes(_ user: UUID) -> Bool { userA == user || userB == user }
    package func partner(of user: UUID) -> UUID { userA == user ? userB : userA }
    package func readAt(of user: UUID) -> Date? { userA == user ? aReadAt : bReadAt }

    /// The same match after `user`'s read marker moved to `time`.
    func reading(_ user: UUID, upTo time: Date) -> MatchRow {
        var moved = self
        if userA == user { moved.aReadAt = time } else { moved.bReadAt = time }
        return moved
    }
}

/// A chat line as the store reads it.
struct MessageRow: Codable, Sendable, Equatable {
    let id: UUID
    let matchID: UUID
    /// Nil for the lines the server writes (`kind` other than `text`).
    let senderID: UUID?
    let kind: String
    let text: String
    let pin: String?
    let createdAt: Date

    enum CodingKeys: String, TableColumn {
        case id, kind, text, pin
        case matchID = "match_id", senderID = "sender_id", createdAt = "created_at"
    }

    init(id: UUID, matchID: UUID, senderID: UUID?, kind: String, text: String, pin: String?, createdAt: Date) {
        self.id = id
        self.matchID = matchID
        self.senderID = senderID
        self.kind = kind
        self.text = text
        self.pin = pin
        self.createdAt = createdAt
    }


    var chatMessage: ChatMessage {
        ChatMessage(id: id, matchId: matchID, senderId: senderID, kind: kind, text: text, pin: pin, createdAt: createdAt)
    }
}

extension MessageRow: NewestFirstRow {}
