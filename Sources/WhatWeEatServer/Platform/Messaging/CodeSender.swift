import Logging
import NIOConcurrencyHelpers
import Vapor

/// A one-time code on its way to a person: where it goes, the code, and the words around it in
/// their language.
struct OneTimeCode: Sendable {
    enum Channel: String, Sendable { case phone, email }

    let channel: Channel
    /// A normalized phone number (`+8210…`) or email address.
    let destination: String
    let code: String
    /// "[WhatWeEat] 인증번호 123456 (5분 안에 입력하세요)" — the whole text, already translated.
    let text: String
    /// The subject line when it goes by email.
    let subject: String
}

/// Delivers one-time codes. The server log by default (development, and phones: no SMS provider
/// is reachable); SMTP for email when `SMTP_URL` is set.
protocol CodeSender: Sendable {
    func send(_ code: OneTimeCode) async throws
}

/// Writes the code to the server log, where the operator of a test install reads it.
struct LogCodeSender: CodeSender {
    let logger: Logger

    func send(_ code: OneTimeCode) async throws {
        logger.notice("one-time code for \(code.channel.rawValue) \(code.destination): \(code.code)")
    }
}

enum CodeSenderError: Error {
    /// The delivery service refused or could not be reached; nothing was sent.
    case unavailable(String)
}

extension Application {
    private struct CodeSenderKey: StorageKey { typealias Value = any CodeSender }

    /// Set in `configure`; tests put their own recorder here.
    var codeSender: any CodeSender {
        get { configured(CodeSenderKey.self) }
        set { storage[CodeSenderKey.self] = newValue }
    }
}
