import Fluent
import Foundation
import Notifications
import Platform
import Vapor

/// Lines the reader has not seen, told where they will see them: a chat line starts a check a few
/// seconds later (`chatNoticeDelay`, long enough for an open chat to mark it read), kept in the
/// durable work queue so a restart loses none; the check tells the inbox — one entry per
/// conversation, "N new messages from X", its count and quote following the newest line — only if
/// the line is still unread then. Reading the chat marks that entry read.
extension MatesService {
    /// The work queue's name for the check.
    static let chatNoticeKind = "mates.chat_notice"
    /// The inbox kind of the entry (`notification.mates_messages`).
    static let messagesNoticeKind = "mates_messages"

    struct ChatNotice: Codable, Sendable {
        let match: UUID
        let recipient: UUID
        let message: UUID
    }

    /// After a line to `recipient`: checks in `chatNoticeDelay` seconds whether they read it. One
    /// check waits per conversation and reader however many lines arrive (a flood of lines is not a
    /// flood of queued work); it reads the newest line when it runs.
    func scheduleNotice(of message: UUID, in match: UUID, to recipient: UUID) async throws {
        try await application.workQueue.enqueue(Self.chatNoticeKind, ChatNotice(match: match, recipient: recipient, message: message),
                                                after: application.matesEnvironment.chatNoticeDelay,
                                                oncePer: "\(match.uuidString)|\(recipient.uuidString)", on: database)
    }

    /// The check: nothing when the newest line to the reader was read; again later when that line is
    /// younger than `chatNoticeDelay` (the reader may be looking at it); otherwise the conversation's
    /// inbox entry with every unread line counted, quoting the newest.
    func noticeUnread(_ notice: ChatNotice) async throws -> WorkOutcome {
        guard let match = try await store.match(notice.match),
              let line = try await store.newestMessage(in: notice.match, notBy: notice.recipient), let sender = line.senderID else { return .done }
        let readAt = match.readAt(of: notice.recipient)
        if let readAt, readAt >= line.createdAt { return .done }
        let delay = application.matesEnvironment.chatNoticeDelay
        // A line's time is kept to the microsecond (rounded, so it may read a hair later than it
        // was written): a line younger than the delay by less than a millisecond has had its chance.
        let age = now.timeIntervalSince(line.createdAt)
        if age < delay - 0.001 { return .retry(after: delay - age) }
        let unread = try await store.countMessages(in: match.id, notBy: notice.recipient, after: readAt)
        guard unread > 0 else { return .done }
        try await inbox.post(NotificationDraft(recipient: notice.recipient, actor: sender, service: "mates", kind: Self.messagesNoticeKind,
                                               subjectID: match.id, link: MatesPath.chat(match.id), excerpt: line.text,
                                               collapsesUnread: true, count: unread))
        return .done
    }

    /// Registers the check with the app's work queue (at start-up).
    static func handleChatNotices(in app: Application) {
        app.workQueue.register(chatNoticeKind) { app, item in
            try await MatesService(database: app.db, application: app).noticeUnread(try item.decode(ChatNotice.self))
        }
    }
}
