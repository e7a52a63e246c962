import Accounts
import Fluent
import Notifications
import Platform
import SQLKit
import Vapor

/// A chat line as clients get it, over HTTP and the live socket alike.
package struct ChatMessage: Content, Sendable, NewestFirstRow {
    package let id: UUID
    package let matchId: UUID
    /// Null for the lines the server writes (`kind` other than `text`).
    @NullEncoded package var senderId: UUID?
    package let kind: String
    package let text: String
    @NullEncoded package var pin: String?
    package let createdAt: Date
    /// This message's position, for `?after=` / `?before=`.
    package let cursor: String

    package init(id: UUID, matchId: UUID, senderId: UUID?, kind: String, text: String, pin: String?, createdAt: Date) {
        self.id = id
        self.matchId = matchId
        self.senderId = senderId
        self.kind = kind
        self.text = text
        self.pin = pin
        self.createdAt = createdAt
        self.cursor = PageCursor(createdAt: createdAt, id: id).encoded
    }

    package init(_ row: MatesMessage) {
        self.init(id: row.id ?? UUID(), matchId: row.matchID, senderId: row.senderID, kind: row.kind, text: row.text, pin: row.pin,
                  createdAt: row.createdAt)
    }
}

/// What the live chat socket sends; published once per event and forwarded as is to every socket
/// of the match, on every instance.
enum ChatEvent {
    package struct Message: Encodable {
        package let type = "message"
        package let message: ChatMessage
        /// The sender's own id for the line, so its other sockets can drop the echo.
        let clientId: String?
    }

    package struct Read: Encodable {
        package let type = "read"
        let userId: UUID
        package let readAt: Date
    }

    struct Ended: Encodable {
        let type = "ended"
        let reason: String
        let by: UUID
    }

    static func message(_ message: ChatMessage, clientId: String?) -> String { encode(Message(message: message, clientId: clientId)) }
    static func read(by user: UUID, at date: Date) -> String { encode(Read(userId: user, readAt: date)) }
    static func ended(reason: String, by user: UUID) -> String { encode(Ended(reason: reason, by: user)) }

    static func encode(_ value: some Encodable) -> String {
        (try? String(decoding: AppJSON.encoder().encode(value), as: UTF8.self)) ?? "{}"
    }
}

/// A line as the person it was written to hears of it, on their own topic wherever they are
/// connected (the 새싹 스터디 apps' socket, which knows people, not matches).
package struct PersonChatEvent: Codable, Sendable {
    package let id: UUID
    package let match: UUID
    package let from: UUID
    package let to: UUID
    package let kind: String
    package let text: String
    package let pin: String?
    /// Seconds since 1970, to the microsecond as stored.
    package let createdAt: Double
}

extension MatesService {
    static func chatTopic(_ match: UUID) -> String { "mates.chat.\(match.uuidString.lowercased())" }
    package static func personChatTopic(_ user: UUID) -> String { "mates.person.\(user.uuidString.lowercased())" }

    func publishChat(_ event: String, match: UUID) async {
        await events.publish(event, to: Self.chatTopic(match))
    }

    /// Stores a line and only then tells the pair: what was acknowledged survives a crash.
    package func send(_ rawText: String, in match: MatesMatch, by me: UUID, clientId: String? = nil) async throws -> ChatMessage {
        let text: String
        do { text = try MatesRules.checkMessage(rawText) } catch { throw Self.appError(error) }
        guard match.endedAt == nil else { throw AppError.conflict("match_ended") }
        return try await append(kind: "text", text: text, pin: nil, to: match, by: me, clientId: clientId)
    }

    private func append(kind: String, text: String, pin: String?, to match: MatesMatch, by sender: UUID?, clientId: String?) async throws -> ChatMessage {
        let row = MatesMessage()
        row.id = UUID()
        row.matchID = try match.requireID()
        row.senderID = sender
        row.kind = kind
        row.text = text
        row.pin = pin
        row.createdAt = MicrosecondTimestampFormat().serialize(now) ?? now
        try await row.create(on: database)
        let message = ChatMessage(row)
        await publishChat(ChatEvent.message(message, clientId: clientId), match: row.matchID)
        if let sender {
            let recipient = match.partner(of: sender)
            let event = PersonChatEvent(id: message.id, match: row.matchID, from: sender, to: recipient, kind: kind, text: text, pin: pin,
                                        createdAt: row.createdAt.timeIntervalSince1970)
            await events.publish(ChatEvent.encode(event), to: Self.personChatTopic(recipient))
        }
        return message
    }

    /// Every line between two people, over all their matches, written after `after`, oldest first
    /// (the 새싹 스터디 apps' history). Lines of the same microsecond keep their order by id.
    package func messagesBetween(_ me: UUID, _ other: UUID, after: Date, limit: Int) async throws -> [MatesMessage] {
        let matches = try await MatesMatch.query(on: database).group(.or) { either in
            either.group(.and) { $0.filter(\.$userA == me).filter(\.$userB == other) }
            either.group(.and) { $0.filter(\.$userA == other).filter(\.$userB == me) }
        }.all().compactMap(\.id)
        guard !matches.isEmpty else { return [] }
        return try await MatesMessage.query(on: database).filter(\.$matchID ~~ matches).filter(\.$createdAt >= after)
            .sort(\.$createdAt, .ascending).sort(\.$id, .ascending).limit(limit).all()
    }

    /// Newest first, older on each page (`before`), or oldest first from a position (`after`):
    /// what a client missed while its socket was down.
    package func messages(in match: MatesMatch, before: PageCursor?, after: PageCursor?, limit: Int) async throws -> (items: [ChatMessage], nextCursor: String?) {
        if before != nil && after != nil { throw AppError.badRequest("ambiguous_cursor") }
        let query = database.sql.select().columns("id", "match_id", "sender_id", "kind", "text", "pin", "created_at")
            .from(MatesMessage.schema).where("match_id", .equal, SQLBind(try match.requireID()))
        let created = SQLColumn("created_at"), id = SQLColumn("id")
        if let after {
            let bound = after.createdAtBound(on: database.sql)
            query.where(group: { group in
                group.where(created, .greaterThan, SQLBind(bound))
                    .orWhere(group: { $0.where(created, .equal, SQLBind(bound)).where(id, .greaterThan, SQLBind(after.id)) })
            })
            query.orderBy(SQLOrderBy(expression: created, direction: SQLDirection.ascending))
                .orderBy(SQLOrderBy(expression: id, direction: SQLDirection.ascending)).limit(limit + 1)
        } else {
            _ = try query.newestFirst(createdAt: created, id: id, CursorPageRequest(cursor: before, limit: limit))
        }
        let rows = try await query.all().map { row in
            ChatMessage(id: try row.decode(column: "id", as: UUID.self), matchId: try row.decode(column: "match_id", as: UUID.self),
                        senderId: try row.decode(column: "sender_id", as: UUID?.self), kind: try row.decode(column: "kind", as: String.self),
                        text: try row.decode(column: "text", as: String.self), pin: try row.decode(column: "pin", as: String?.self),
                        createdAt: try row.decode(column: "created_at", as: Date.self))
        }
        return CursorPageRequest(limit: limit).page(of: rows)
    }

    /// Lines from the partner after my read marker.
    package func unreadCount(in match: MatesMatch, for me: UUID) async throws -> Int {
        let query = MatesMessage.query(on: database).filter(\.$matchID == (try match.requireID()))
            .group(.or) { $0.filter(\.$senderID != me).filter(\.$senderID == nil) }
        if let readAt = match.readAt(of: me) { query.filter(\.$createdAt > readAt) }
        return try await query.count()
    }

    /// Moves my read marker to a message (the newest when nil); it never moves back.
    package func markRead(_ match: MatesMatch, upTo messageID: UUID?, by me: UUID) async throws -> Date? {
        let matchID = try match.requireID()
        var target: Date?
        if let messageID {
            guard let message = try await MatesMessage.find(messageID, on: database), message.matchID == matchID else {
                throw AppError.notFound("message_not_found")
            }
            target = message.createdAt
        } else {
            target = try await MatesMessage.query(on: database).filter(\.$matchID == matchID).sort(\.$createdAt, .descending).first()?.createdAt
        }
        guard let target else { return match.readAt(of: me) }
        let column = match.userA == me ? "a_read_at" : "b_read_at"
        let moved = try await database.sql.update(MatesMatch.schema).set(SQLIdentifier(column), to: SQLBind(target))
            .where("id", .equal, SQLBind(matchID))
            .where(group: { $0.where(SQLIdentifier(column), .is, SQLLiteral.null).orWhere(SQLIdentifier(column), .lessThan, SQLBind(target)) })
            .returning("id").all()
        if !moved.isEmpty {
            if match.userA == me { match.aReadAt = target } else { match.bReadAt = target }
            await publishChat(ChatEvent.read(by: me, at: target), match: matchID)
        }
        return match.readAt(of: me)
    }

    /// A matched pair opens a menu game group together: the line with its PIN goes to both in the
    /// chat. `openGroup` is the menu game's own group creation, returning the PIN.
    func startMenuGame(_ profile: MatesProfile, openGroup: () async throws -> String) async throws -> (pin: String, message: ChatMessage) {
        let me = try profile.requireID()
        guard profile.matesState == .matched, let matchID = profile.matchID else { throw AppError.conflict("not_matched") }
        let match = try await self.match(matchID, for: me)
        guard match.endedAt == nil else { throw AppError.conflict("match_ended") }
        let pin = try await openGroup()
        let message = try await append(kind: "menu_game", text: pin, pin: pin, to: match, by: me, clientId: nil)
        return (pin, message)
    }
}
