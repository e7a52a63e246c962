import Vapor

/// Email codes go by SMTP (`SMTP_URL`); phone codes still go to the log, since no SMS provider is
/// reachable from here. A refusal by the mail server is `CodeSenderError.unavailable`.
struct SMTPCodeSender: CodeSender {
    let mailer: SMTPMailer
    let phones: any CodeSender

    func send(_ code: OneTimeCode) async throws {
        guard code.channel == .email else { return try await phones.send(code) }
        do {
            try await mailer.send(MailMessage(to: code.destination, subject: code.subject, text: code.text))
        } catch {
            throw CodeSenderError.unavailable("\(error)")
        }
    }
}
