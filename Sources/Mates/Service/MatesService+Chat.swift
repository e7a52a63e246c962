import Accounts
package import Fluent
import Notifications
package import Platform
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
    package func send(_ rawText: String, in match: MatchRow, by me: UUID, clientId: String? = nil) async throws -> ChatMessage {
        let text: String
        do { text = try MatesRules.checkMessage(rawText) } catch { throw Self.appError(error) }
        guard match.endedAt == nil else { throw AppError.conflict("match_ended") }
        // The slots are taken before the line is written, so lines sent at once cannot slip past.
        let limits = application.matesLimits, sender = me.uuidString
        return try await limits.chatLinesPerHour.withSlot(sender, code: "too_many_chat_lines") {
            try await limits.chatLinesPerMinute.withSlot(sender, code: "too_many_chat_lines") {
                try await append(kind: "text", text: text, pin: nil, to: match, by: me, clientId: clientId)
            }
        }
    }

    private func append(kind: String, text: String, pin: String?, to match: MatchRow, by sender: UUID?, clientId: String?) async throws -> ChatMessage {
        let row = try await store.appendMessage(to: match.id, by: sender, kind: kind, text: text, pin: pin, at: now)
        let message = row.chatMessage
        await publishChat(ChatEvent.message(message, clientId: clientId), match: match.id)
        if let sender {
            let recipient = match.partner(of: sender)
            let event = PersonChatEvent(id: message.id, match: match.id, from: sender, to: recipient, kind: kind, text: text, pin: pin,
                                        createdAt: row.createdAt.timeIntervalSince1970)
            await events.publish(ChatEvent.encode(event), to: Self.personChatTopic(recipient))
            do {
                try await scheduleNotice(of: message.id, in: match.id, to: recipient)
            } catch {
                // The line is stored and was sent live; only the later notice is lost.
                application.logger.warning("mates: the chat notice was not scheduled: \(error)")
            }
        }
        return message
    }

    /// Every line between two people, over all their matches, written after `after`, oldest first
    /// (the 새싹 스터디 apps' history). Lines of the same microsecond keep their order by id.
    package func messagesBetween(_ me: UUID, _ other: UUID, after: Date, limit: Int) async throws -> [ChatMessage] {
        try await store.messagesBetween(me, other, after: after, limit: limit).map(\.chatMessage)
    }

    /// Newest first, older on each page (`before`), or oldest first from a position (`after`):
    /// what a client missed while its socket was down.
    package func messages(in match: MatchRow, before: PageCursor?, after: PageCursor?, limit: Int) async throws -> (items: [ChatMessage], nextCursor: String?) {
        if before != nil && after != nil { throw AppError.badRequest("ambiguous_cursor") }
        let page = try await store.messagesPage(in: match.id, before: before, after: after, limit: limit)
        return (page.items.map(\.chatMessage), page.nextCursor)
    }

    /// Lines from the partner after my read marker.
    package func unreadCount(in match: MatchRow, for me: UUID) async throws -> Int {
        try await store.countMessages(in: match.id, notBy: me, after: match.readAt(of: me))
    }

    /// Moves my read marker to a message (the newest when nil); it never moves back. Returns the
    /// marker where it now stands.
    package func markRead(_ match: MatchRow, upTo messageID: UUID?, by me: UUID) async throws -> Date? {
        var target: Date?
        if let messageID {
            guard let message = try await store.message(messageID), message.matchID == match.id else {
                throw AppError.notFound("message_not_found")
            }
            target = message.createdAt
        } else {
            target = try await store.newestMessageTime(in: match.id)
        }
        guard let target else { return match.readAt(of: me) }
        guard try await store.moveReadMarker(in: match, of: me, to: target) else {
            return try await store.match(match.id)?.readAt(of: me) ?? match.readAt(of: me)
        }
        await publishChat(ChatEvent.read(by: me, at: target), match: match.id)
        await application.matesEnvironment.matchPageViews.changed(on: events)
        try await inbox.markRead(for: me, kind: Self.messagesNoticeKind, subject: match.id)
        return target
    }

    /// A matched pair opens a menu game group together: the line with its PIN goes to both in the
    /// chat. `openGroup` is the menu game's own group creation, returning the PIN.
    func startMenuGame(_ profile: MatesProfile, openGroup: () async throws -> String) async throws -> (pin: String, message: ChatMessage) {
        let me = profile.id
        guard profile.matesState == .matched, let matchID = profile.matchID else { throw AppError.conflict("not_matched") }
        let match = try await self.match(matchID, for: me)
        guard match.endedAt == nil else { throw AppError.conflict("match_ended") }
        let pin = try await openGroup()
        let message = try await append(kind: "menu_game", text: pin, pin: pin, to: match, by: me, clientId: nil)
        return (pin, message)
    }
}
