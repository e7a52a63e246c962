import Platform
import Vapor

/// Email codes by SMTP (`SMTP_URL`). A refusal by the mail server is `CodeSenderError.unavailable`.
package struct SMTPCodeSender: CodeSender {
    package let mailer: SMTPMailer

    package func send(_ code: OneTimeCode) async throws {
        guard code.channel == .email else { throw CodeSenderError.unavailable("SMTPCodeSender sends only email") }
        do {
            try await mailer.send(MailMessage(to: code.destination, subject: code.subject, text: code.text))
        } catch {
            throw CodeSenderError.unavailable("\(error)")
        }
    }

    package init(mailer: SMTPMailer) {
        self.mailer = mailer
    }
}
