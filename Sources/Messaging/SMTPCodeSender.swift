import Platform
import Vapor

/// Email codes go by SMTP (`SMTP_URL`); phone codes still go to the log, since no SMS provider is
/// reachable from here. A refusal by the mail server is `CodeSenderError.unavailable`.
package struct SMTPCodeSender: CodeSender {
    package let mailer: SMTPMailer
    package let phones: any CodeSender

    package func send(_ code: OneTimeCode) async throws {
        guard code.channel == .email else { return try await phones.send(code) }
        do {
            try await mailer.send(MailMessage(to: code.destination, subject: code.subject, text: code.text))
        } catch {
            throw CodeSenderError.unavailable("\(error)")
        }
    }

    package init(mailer: SMTPMailer, phones: any CodeSender) {
        self.mailer = mailer
        self.phones = phones
    }
}
