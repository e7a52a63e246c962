package import Logging
import NIOConcurrencyHelpers
import Platform
import Vapor

/// A one-time code on its way to a person: where it goes, the code, and the words around it in
/// their language.
package struct OneTimeCode: Sendable {
    package enum Channel: String, Sendable { case phone, email }

    package let channel: Channel
    /// A normalized phone number (`+8210…`) or email address.
    package let destination: String
    package let code: String
    /// "[WhatWeEat] 인증번호 123456 (5분 안에 입력하세요)" — the whole text, already translated.
    package let text: String
    /// The subject line when it goes by email.
    package let subject: String

    package init(channel: Channel, destination: String, code: String, text: String, subject: String) {
        self.channel = channel
        self.destination = destination
        self.code = code
        self.text = text
        self.subject = subject
    }
}

/// Delivers one-time codes. The server log by default (development, and phones: no SMS provider
/// is reachable); SMTP for email when `SMTP_URL` is set.
package protocol CodeSender: Sendable {
    func send(_ code: OneTimeCode) async throws
}

/// Writes the code to the server log, where the operator of a test install reads it.
package struct LogCodeSender: CodeSender {
    package let logger: Logger

    package func send(_ code: OneTimeCode) async throws {
        logger.notice("one-time code for \(code.channel.rawValue) \(code.destination): \(code.code)", metadata: OperatorLogs.deliberate)
    }

    package init(logger: Logger) {
        self.logger = logger
    }
}

enum CodeSenderError: Error {
    /// The delivery service refused or could not be reached; nothing was sent.
    case unavailable(String)
}

extension Application {
    private struct CodeSenderKey: StorageKey { typealias Value = any CodeSender }

    /// Set in `configure`; tests put their own recorder here.
    package var codeSender: any CodeSender {
        get { configured(CodeSenderKey.self) }
        set { storage[CodeSenderKey.self] = newValue }
    }
}
