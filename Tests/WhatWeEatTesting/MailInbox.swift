package import Messaging
import NIOConcurrencyHelpers
import Vapor

/// Keeps the mail the server sends, as a mailbox would (the SMTP client has its own tests against
/// a real SMTP server, `TestSMTPServer`).
package final class MailInbox: MailSender {
    private let messages = NIOLockedValueBox<[MailMessage]>([])

    package func send(_ message: MailMessage) async throws {
        messages.withLockedValue { $0.append(message) }
    }

    package var all: [MailMessage] { messages.withLockedValue { $0 } }
    package func mail(to address: String) -> [MailMessage] { all.filter { $0.to == address } }

    /// The first `…?token=` link of the newest message to `address`, and its token.
    package func lastLink(to address: String) -> (url: String, token: String)? {
        guard let text = mail(to: address).last?.text,
              let url = text.split(whereSeparator: \.isWhitespace).map(String.init).first(where: { $0.contains("?token=") }),
              let token = URLComponents(string: url)?.queryItems?.first(where: { $0.name == "token" })?.value
        else { return nil }
        return (url, token)
    }
}

extension Application {
    /// The mail sent by this app from now on (installed on first use; the delivery, and so what
    /// the server promises, stays as its settings chose).
    package var mailInbox: MailInbox {
        if let inbox = mail as? MailInbox { return inbox }
        let inbox = MailInbox()
        mail = inbox
        return inbox
    }
}
