import Platform
import Vapor

/// Email codes through the app's mail (`SMTP_URL`). A refusal by the mail server is `CodeSenderError.unavailable`.
package struct MailCodeSender: CodeSender {
    package let mail: any MailSender

    package func send(_ code: OneTimeCode) async throws {
        guard code.channel == .email else { throw CodeSenderError.unavailable("MailCodeSender sends only email") }
        do {
            try await mail.send(MailMessage(to: code.destination, subject: code.subject, text: code.text))
        } catch {
            throw CodeSenderError.unavailable("\(error)")
        }
    }

    package init(mail: any MailSender) {
        self.mail = mail
    }
}
