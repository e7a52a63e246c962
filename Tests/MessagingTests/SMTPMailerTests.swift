import Accounts
import Crypto
import Foundation
@testable import Messaging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import Platform
import SwiftASN1
import WhatWeEatTesting
import X509
import XCTest

/// The SMTP client against a real SMTP server on 127.0.0.1 (below: `TestSMTPServer`), which
/// records the envelope and the message, un-stuffs DATA as a real server does, and can be told to
/// refuse a step, stay silent, offer STARTTLS or speak TLS from the start.
final class SMTPMailerTests: XCTestCase {
    private var group: any EventLoopGroup { MultiThreadedEventLoopGroup.singleton }

    private func mailer(_ url: String, timeout: TimeAmount? = nil, root: String? = nil) throws -> SMTPMailer {
        var configuration = try SMTPConfiguration(url: url)
        if let timeout { configuration.timeout = timeout }
        configuration.additionalTrustedRootPEM = root
        return SMTPMailer(configuration: configuration, eventLoopGroup: group)
    }

    private func sendExpectingError(_ mailer: SMTPMailer, _ message: MailMessage, file: StaticString = #filePath, line: UInt = #line) async -> SMTPError? {
        do {
            try await mailer.sendBounded(message)
            XCTFail("the message was sent", file: file, line: line)
            return nil
        } catch let error as SMTPError {
            return error
        } catch {
            XCTFail("not an SMTPError: \(error)", file: file, line: line)
            return nil
        }
    }

    // MARK: Content

    func testKoreanSubjectAndBodyArriveExactlyAsBase64() async throws {
        let server = try await TestSMTPServer.start(.init(capabilities: ["SIZE 1000000", "AUTH PLAIN LOGIN"]))
        defer { server.stop() }
        let subject = "[WhatWeEat] 인증번호 123456 — 5분 안에 입력하세요 🍚 오늘 뭐 먹지? 정말 긴 제목입니다"
        let text = "안녕하세요!\n인증번호는 123456 입니다.\n\n5분 안에 입력하세요. 🍜"
        let mailer = try mailer("smtp://127.0.0.1:\(server.port)?from=codes@whatweeat.example")
        try await mailer.sendBounded(MailMessage(to: "minji@example.com", subject: subject, text: text))

        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.mailFrom, ["<codes@whatweeat.example>"])
        XCTAssertEqual(record.rcptTo, ["<minji@example.com>"])
        XCTAssertEqual(record.verbs, ["EHLO", "MAIL", "RCPT", "DATA", "QUIT"])
        XCTAssertEqual(record.connections, 1)
        XCTAssertEqual(record.closed, 1)
        XCTAssertEqual(record.bareLineFeeds, 0)
        let message = try XCTUnwrap(record.messages.first)
        let parsed = try ParsedMailMessage(message)
        XCTAssertEqual(parsed.header("From"), "codes@whatweeat.example")
        XCTAssertEqual(parsed.header("To"), "minji@example.com")
        XCTAssertEqual(parsed.header("MIME-Version"), "1.0")
        XCTAssertEqual(parsed.header("Content-Type"), "text/plain; charset=UTF-8")
        XCTAssertEqual(parsed.header("Content-Transfer-Encoding"), "base64")
        XCTAssertNotNil(parsed.header("Date").flatMap(Self.parseRFC5322Date), "Date: \(parsed.header("Date") ?? "none")")
        XCTAssertTrue(parsed.header("Message-ID")?.hasPrefix("<") == true && parsed.header("Message-ID")?.hasSuffix("@whatweeat.example>") == true)
        // The subject went as RFC 2047 encoded words, each within 75 characters, on folded lines.
        let rawSubject = try XCTUnwrap(parsed.rawHeader("Subject"))
        XCTAssertTrue(rawSubject.contains("\r\n "), "a long subject is folded")
        for word in rawSubject.split(whereSeparator: { $0.isWhitespace || $0.isNewline }) {
            XCTAssertTrue(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="), String(word))
            XCTAssertLessThanOrEqual(word.count, 75)
        }
        XCTAssertEqual(try Self.decodeRFC2047(parsed.header("Subject") ?? ""), subject)
        let body = try XCTUnwrap(Data(base64Encoded: Data(parsed.body), options: .ignoreUnknownCharacters))
        XCTAssertEqual(String(decoding: body, as: UTF8.self), text.replacingOccurrences(of: "\n", with: "\r\n"))
        XCTAssertTrue(parsed.bodyLines.allSatisfy { $0.count <= 76 })
        XCTAssertTrue(message.allSatisfy { $0 < 0x80 }, "without 8BITMIME the message is 7-bit")
    }

    func testKoreanBodyGoesAs8BitWhenTheServerOffers8BITMIME() async throws {
        let server = try await TestSMTPServer.start(.init(capabilities: ["8BITMIME", "SMTPUTF8"]))
        defer { server.stop() }
        let text = "오늘 저녁은 김치찌개!\n맛있게 드세요."
        try await mailer("smtp://127.0.0.1:\(server.port)").sendBounded(MailMessage(to: "a@example.com", subject: "저녁", text: text))

        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.mailFrom, ["<no-reply@127.0.0.1> BODY=8BITMIME"])
        let parsed = try ParsedMailMessage(try XCTUnwrap(record.messages.first))
        XCTAssertEqual(parsed.header("Content-Transfer-Encoding"), "8bit")
        XCTAssertEqual(String(decoding: parsed.body, as: UTF8.self), text.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n")
        XCTAssertEqual(try Self.decodeRFC2047(parsed.header("Subject") ?? ""), "저녁")
    }

    func testBodyLinesStartingWithADotArriveUnstuffed() async throws {
        let server = try await TestSMTPServer.start(.init())
        defer { server.stop() }
        // A lone "." would end DATA early if it were not stuffed; ".." would lose a dot.
        let text = ".hidden first line\n.\n..two dots\nmiddle . line\n.\nlast"
        try await mailer("smtp://127.0.0.1:\(server.port)").sendBounded(MailMessage(to: "a@example.com", subject: "dots", text: text))

        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.verbs, ["EHLO", "MAIL", "RCPT", "DATA", "QUIT"], "nothing of the body was taken for a command")
        let parsed = try ParsedMailMessage(try XCTUnwrap(record.messages.first))
        XCTAssertEqual(parsed.header("Content-Transfer-Encoding"), "7bit")
        XCTAssertEqual(parsed.bodyLines, [".hidden first line", ".", "..two dots", "middle . line", ".", "last"])
        XCTAssertEqual(record.stuffedLines, 4, "the client doubled the dot of each of the four lines")
    }

    func testLineEndingsBecomeCRLF() async throws {
        let server = try await TestSMTPServer.start(.init())
        defer { server.stop() }
        try await mailer("smtp://127.0.0.1:\(server.port)").sendBounded(MailMessage(to: "a@example.com", subject: "x", text: "a\nb\r\nc\rd"))
        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.bareLineFeeds, 0)
        let parsed = try ParsedMailMessage(try XCTUnwrap(record.messages.first))
        XCTAssertEqual(String(decoding: parsed.body, as: UTF8.self), "a\r\nb\r\nc\r\nd\r\n")
    }

    // MARK: Authentication

    func testAuthPlainSendsTheRightCredentials() async throws {
        let server = try await TestSMTPServer.start(.init(capabilities: ["AUTH LOGIN PLAIN CRAM-MD5"]))
        defer { server.stop() }
        // user "mailer@whatweeat.example", password "p@ss:w%rd 한/?"
        let url = "smtp://mailer%40whatweeat.example:p%40ss%3Aw%25rd%20%ED%95%9C%2F%3F@127.0.0.1:\(server.port)"
        try await mailer(url).sendBounded(MailMessage(to: "a@example.com", subject: "x", text: "y"))
        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.plainCredentials, [["", "mailer@whatweeat.example", "p@ss:w%rd 한/?"]])
        XCTAssertEqual(record.verbs, ["EHLO", "AUTH", "MAIL", "RCPT", "DATA", "QUIT"])
        XCTAssertEqual(record.messages.count, 1)
    }

    func testAuthLoginWhenOnlyLoginIsOffered() async throws {
        let server = try await TestSMTPServer.start(.init(capabilities: ["AUTH LOGIN"]))
        defer { server.stop() }
        try await mailer("smtp://user:secret@127.0.0.1:\(server.port)").sendBounded(MailMessage(to: "a@example.com", subject: "x", text: "y"))
        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.loginCredentials, [["user", "secret"]])
        XCTAssertEqual(record.plainCredentials, [])
        XCTAssertEqual(record.messages.count, 1)
    }

    func testRefusedCredentialsAreRejected() async throws {
        let server = try await TestSMTPServer.start(.init(refusals: ["AUTH": .init(535, "5.7.8 Authentication credentials invalid")]))
        defer { server.stop() }
        let error = await sendExpectingError(try mailer("smtp://user:wrong@127.0.0.1:\(server.port)"), MailMessage(to: "a@example.com", subject: "x", text: "y"))
        XCTAssertEqual(error, .rejected(code: 535, message: "5.7.8 Authentication credentials invalid"))
        let record = await server.waitUntilAllClosed()
        XCTAssertFalse(record.verbs.contains("MAIL"))
    }

    // MARK: Refusals, silence, failures

    func testRecipientRefusedWith550() async throws {
        let server = try await TestSMTPServer.start(.init(refusals: ["RCPT": .init(550, "5.1.1 <nobody@example.com>: Recipient address rejected")]))
        defer { server.stop() }
        let error = await sendExpectingError(try mailer("smtp://127.0.0.1:\(server.port)"), MailMessage(to: "nobody@example.com", subject: "x", text: "y"))
        XCTAssertEqual(error, .rejected(code: 550, message: "5.1.1 <nobody@example.com>: Recipient address rejected"))
        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.verbs, ["EHLO", "MAIL", "RCPT", "QUIT"], "no DATA after a refused recipient; a polite QUIT")
        XCTAssertEqual(record.connections, 1)
        XCTAssertEqual(record.closed, 1, "the connection was closed")
    }

    func testMultiLineRefusalKeepsAllItsText() async throws {
        let server = try await TestSMTPServer.start(.init(refusals: ["MAIL": .init(451, "4.3.0 Temporary failure\n4.3.0 Try again later")]))
        defer { server.stop() }
        let error = await sendExpectingError(try mailer("smtp://127.0.0.1:\(server.port)"), MailMessage(to: "a@example.com", subject: "x", text: "y"))
        XCTAssertEqual(error, .rejected(code: 451, message: "4.3.0 Temporary failure 4.3.0 Try again later"))
        _ = await server.waitUntilAllClosed()
    }

    func testMessageRefusedAtTheEndOfData() async throws {
        let server = try await TestSMTPServer.start(.init(refusals: [".": .init(554, "5.7.1 Message rejected as spam")]))
        defer { server.stop() }
        let error = await sendExpectingError(try mailer("smtp://127.0.0.1:\(server.port)"), MailMessage(to: "a@example.com", subject: "x", text: "y"))
        XCTAssertEqual(error, .rejected(code: 554, message: "5.7.1 Message rejected as spam"))
        _ = await server.waitUntilAllClosed()
    }

    func testGreetingRefusal() async throws {
        let server = try await TestSMTPServer.start(.init(refusals: ["GREETING": .init(554, "5.3.2 No service for you")]))
        defer { server.stop() }
        let error = await sendExpectingError(try mailer("smtp://127.0.0.1:\(server.port)"), MailMessage(to: "a@example.com", subject: "x", text: "y"))
        XCTAssertEqual(error, .rejected(code: 554, message: "5.3.2 No service for you"))
        _ = await server.waitUntilAllClosed()
    }

    func testEhloRefusedFallsBackToHelo() async throws {
        let server = try await TestSMTPServer.start(.init(refusals: ["EHLO": .init(502, "5.5.2 Command not recognized")]))
        defer { server.stop() }
        try await mailer("smtp://127.0.0.1:\(server.port)").sendBounded(MailMessage(to: "a@example.com", subject: "x", text: "y"))
        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.verbs, ["EHLO", "HELO", "MAIL", "RCPT", "DATA", "QUIT"])
        XCTAssertEqual(record.helloNames, ["[127.0.0.1]"], "HELO with an address literal, for a client without a name")
        XCTAssertEqual(record.messages.count, 1)
    }

    func testSilentServerTimesOutWithinTheTimeout() async throws {
        let server = try await TestSMTPServer.start(.init(silentAt: "GREETING"))
        defer { server.stop() }
        let clock = ContinuousClock()
        let start = clock.now
        let error = await sendExpectingError(try mailer("smtp://127.0.0.1:\(server.port)", timeout: .seconds(1)), MailMessage(to: "a@example.com", subject: "x", text: "y"))
        let elapsed = clock.now - start
        XCTAssertEqual(error, .timeout)
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(900))
        XCTAssertLessThan(elapsed, .milliseconds(4_000), "well before the 10 s default")
        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.closed, 1, "the client hung up")
    }

    func testServerSilentAfterDataTimesOut() async throws {
        let server = try await TestSMTPServer.start(.init(silentAt: "."))
        defer { server.stop() }
        let clock = ContinuousClock()
        let start = clock.now
        let error = await sendExpectingError(try mailer("smtp://127.0.0.1:\(server.port)?timeout=0.5"), MailMessage(to: "a@example.com", subject: "x", text: "y"))
        let elapsed = clock.now - start
        XCTAssertEqual(error, .timeout)
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(450))
        XCTAssertLessThan(elapsed, .milliseconds(3_500), "well before the 10 s default")
        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.messages.count, 1, "the message arrived; its reply never did")
        XCTAssertEqual(record.closed, 1)
    }

    func testAServerSilentAfterQuitDelaysNothingForLong() async throws {
        let server = try await TestSMTPServer.start(.init(silentAt: "QUIT"))
        defer { server.stop() }
        let clock = ContinuousClock()
        let start = clock.now
        // The step timeout is 10 s; the goodbye gets at most 2 s, and the message counts as sent.
        try await mailer("smtp://127.0.0.1:\(server.port)").sendBounded(MailMessage(to: "a@example.com", subject: "x", text: "y"))
        let elapsed = clock.now - start
        XCTAssertGreaterThanOrEqual(elapsed, .milliseconds(1_900))
        XCTAssertLessThan(elapsed, .milliseconds(6_000), "well before the 10 s step timeout")
        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.messages.count, 1)
        XCTAssertEqual(record.closed, 1, "the client hung up")
    }

    func testConnectionRefusedOnAClosedPort() async throws {
        let server = try await TestSMTPServer.start(.init())
        let port = server.port
        server.stop()
        let error = await sendExpectingError(try mailer("smtp://127.0.0.1:\(port)"), MailMessage(to: "a@example.com", subject: "x", text: "y"))
        guard case .connectionFailed(let why)? = error else {
            return XCTFail("expected connectionFailed, got \(String(describing: error))")
        }
        XCTAssertTrue(why.contains("127.0.0.1:\(port)"), why)
    }

    func testServerHangingUpMidwayFailsTheConnection() async throws {
        let server = try await TestSMTPServer.start(.init(hangUpAt: "RCPT"))
        defer { server.stop() }
        let error = await sendExpectingError(try mailer("smtp://127.0.0.1:\(server.port)"), MailMessage(to: "a@example.com", subject: "x", text: "y"))
        guard case .connectionFailed? = error else { return XCTFail("expected connectionFailed, got \(String(describing: error))") }
    }

    func testGarbageReplyIsAProtocolViolation() async throws {
        let server = try await TestSMTPServer.start(.init(garbageAt: "MAIL"))
        defer { server.stop() }
        let error = await sendExpectingError(try mailer("smtp://127.0.0.1:\(server.port)"), MailMessage(to: "a@example.com", subject: "x", text: "y"))
        guard case .protocolViolation? = error else { return XCTFail("expected protocolViolation, got \(String(describing: error))") }
        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.closed, 1)
    }

    // MARK: Validation before connecting

    func testHeaderInjectionIsRefusedBeforeConnecting() async throws {
        let server = try await TestSMTPServer.start(.init())
        defer { server.stop() }
        let mailer = try mailer("smtp://127.0.0.1:\(server.port)")
        let bad = [
            MailMessage(to: "a@example.com", subject: "Hello\r\nBcc: victim@example.com", text: "y"),
            MailMessage(to: "a@example.com", subject: "Hello\nBcc: victim@example.com", text: "y"),
            MailMessage(to: "a@example.com", subject: "Hello\rX: y", text: "y"),
            MailMessage(to: "a@example.com\r\nBcc: victim@example.com", subject: "x", text: "y"),
            MailMessage(to: "a@example.com>\r\nRCPT TO:<victim@example.com", subject: "x", text: "y"),
            MailMessage(to: "not an address", subject: "x", text: "y"),
            MailMessage(to: "<a@example.com>", subject: "x", text: "y"),
            MailMessage(to: "a@", subject: "x", text: "y"),
            MailMessage(to: "@example.com", subject: "x", text: "y"),
            MailMessage(to: "a@example.com, b@example.com", subject: "x", text: "y"),
        ]
        for message in bad {
            let error = await sendExpectingError(mailer, message)
            guard case .invalidMessage? = error else {
                XCTFail("\(message): expected invalidMessage, got \(String(describing: error))")
                continue
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        XCTAssertEqual(server.record.connections, 0, "nothing connected")
    }

    // MARK: URLs

    func testURLParsing() throws {
        let plain = try SMTPConfiguration(url: "smtp://mail.example.com")
        XCTAssertEqual(plain.host, "mail.example.com")
        XCTAssertEqual(plain.port, 25)
        XCTAssertEqual(plain.security, .startTLSIfOffered)
        XCTAssertEqual(plain.from, "no-reply@mail.example.com")
        XCTAssertNil(plain.username)
        XCTAssertNil(plain.password)
        XCTAssertEqual(plain.timeout, .seconds(10))

        let secure = try SMTPConfiguration(url: "smtps://Mail.Example.com/")
        XCTAssertEqual(secure.port, 465)
        XCTAssertEqual(secure.security, .implicitTLS)
        XCTAssertEqual(secure.host, "mail.example.com")

        let full = try SMTPConfiguration(url: "SMTP://me%40example.com:p%3Ass%40w%25rd@smtp.example.com:587?from=codes%40whatweeat.example&starttls=required&timeout=2.5")
        XCTAssertEqual(full.username, "me@example.com")
        XCTAssertEqual(full.password, "p:ss@w%rd")
        XCTAssertEqual(full.port, 587)
        XCTAssertEqual(full.from, "codes@whatweeat.example")
        XCTAssertEqual(full.security, .startTLSRequired)
        XCTAssertEqual(full.timeout, .milliseconds(2_500))
        XCTAssertFalse(full.description.contains("p:ss"), "the description hides the password")

        XCTAssertEqual(try SMTPConfiguration(url: "smtp://[::1]:2525").host, "::1")
        XCTAssertEqual(try SMTPConfiguration(url: "smtp://[::1]:2525").port, 2525)
        XCTAssertEqual(try SMTPConfiguration(url: "smtp://127.0.0.1:2525?starttls=never").security, SMTPConfiguration.Security.none)
        XCTAssertEqual(try SMTPConfiguration(url: "smtps://a:b@h.example:4650").port, 4650)
        XCTAssertEqual(try SMTPConfiguration(url: "smtp://h.example?plaintext_auth=allow").allowsPlaintextAuthentication, true)

        let bad = [
            "http://mail.example.com",
            "mail.example.com",
            "smtp://",
            "smtp://:25",
            "smtp://mail.example.com:0",
            "smtp://mail.example.com:65536",
            "smtp://mail.example.com:25x",
            "smtp://mail.example.com:",
            "smtp://user@mail.example.com",
            "smtp://user:@mail.example.com",
            "smtp://user:p%zz@mail.example.com",
            "smtp://mail.example.com/path",
            "smtp://mail.example.com?from=not-an-address",
            "smtp://mail.example.com?from=a@b.example%0D%0ABcc:x@y.example",
            "smtp://mail.example.com?starttls=maybe",
            "smtps://mail.example.com?starttls=required",
            "smtp://mail.example.com?colour=blue",
            "smtp://mail.example.com?timeout=0",
            "smtp://mail.example.com?timeout=abc",
            "smtp://mail example.com",
            "smtp://mail.example.com#frag",
            "smtp://[::1",
            "smtp://[zz]:25",
            "smtp://bad/host.example",
        ]
        for url in bad {
            XCTAssertThrowsError(try SMTPConfiguration(url: url), url) { error in
                guard case .invalidURL(let why)? = error as? SMTPError else {
                    return XCTFail("\(url): \(error) is not invalidURL")
                }
                XCTAssertFalse(why.isEmpty)
            }
        }
        // A password with a raw /, ? or # is refused without quoting any of it.
        for url in ["smtp://user:se/cret@mail.example.com", "smtp://user:se?cret@mail.example.com", "smtp://user:se#cret@mail.example.com",
                    "smtp://user:se?cret@mail.example.com?from=a@b.example", "smtp://user:se/cret@mail.example.com:25/?from=a@b.example"] {
            XCTAssertThrowsError(try SMTPConfiguration(url: url), url) { error in
                guard case .invalidURL(let why)? = error as? SMTPError else { return XCTFail("\(url): \(error)") }
                XCTAssertFalse(why.contains("cret"), why)
                XCTAssertTrue(why.contains("percent-encode"), why)
            }
        }
        XCTAssertEqual(try SMTPConfiguration(url: "smtp://mail.example.com/?from=a@b.example").from, "a@b.example")
        XCTAssertEqual(try SMTPConfiguration(url: "smtp://u:p@mail.example.com:2525?starttls=never&FROM=a@b.example").from, "a@b.example")
        // The message names what is wrong and never echoes the password.
        do {
            _ = try SMTPConfiguration(url: "smtp://user:hunter2@mail.example.com:99999")
            XCTFail("accepted")
        } catch let SMTPError.invalidURL(why) {
            XCTAssertTrue(why.contains("99999"), why)
            XCTAssertFalse(why.contains("hunter2"), why)
        }
    }

    func testEncodingHelpers() {
        XCTAssertEqual(SMTPData.dotStuffed(Array(".a\r\nb\r\n.\r\n..c\r\n".utf8)), Array("..a\r\nb\r\n..\r\n...c\r\n".utf8))
        XCTAssertEqual(SMTPData.encodedHeaderText("Plain ASCII subject"), "Plain ASCII subject")
        XCTAssertEqual(SMTPData.encodedHeaderText("인증"), "=?UTF-8?B?7J247KadPz0=?=".replacingOccurrences(of: "7J247KadPz0=", with: Data("인증".utf8).base64EncodedString()))
        XCTAssertTrue(SMTPData.encodedHeaderText("looks =?like?= a word").hasPrefix("=?UTF-8?B?"), "text that looks encoded is encoded")
        XCTAssertEqual(SMTPData.lines(of: "a\r\nb\rc\nd"), ["a", "b", "c", "d"])
    }

    // MARK: TLS

    func testStartTLSWithATrustedCertificate() async throws {
        let pki = try SMTPTestPKI(names: [.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
        let server = try await TestSMTPServer.start(.init(capabilities: ["AUTH PLAIN"], startTLS: pki.serverContext))
        defer { server.stop() }
        let mailer = try mailer("smtp://user:secret@127.0.0.1:\(server.port)?starttls=required", root: pki.rootPEM)
        try await mailer.sendBounded(MailMessage(to: "a@example.com", subject: "보안", text: "암호화된 연결"))
        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.verbs, ["EHLO", "STARTTLS", "EHLO", "AUTH", "MAIL", "RCPT", "DATA", "QUIT"])
        XCTAssertEqual(record.tlsAtCommand["AUTH"], true, "credentials went over TLS")
        XCTAssertEqual(record.tlsAtCommand["DATA"], true)
        XCTAssertEqual(record.plainCredentials, [["", "user", "secret"]])
        XCTAssertEqual(record.messages.count, 1)
    }

    func testStartTLSRefusesAnUntrustedCertificate() async throws {
        let pki = try SMTPTestPKI(names: [.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
        let server = try await TestSMTPServer.start(.init(startTLS: pki.serverContext))
        defer { server.stop() }
        // No extra root: the test CA is not trusted, and verification is on by default.
        let error = await sendExpectingError(try mailer("smtp://127.0.0.1:\(server.port)"), MailMessage(to: "a@example.com", subject: "x", text: "y"))
        guard case .connectionFailed(let why)? = error else { return XCTFail("expected connectionFailed, got \(String(describing: error))") }
        XCTAssertTrue(why.contains("TLS"), why)
        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.verbs, ["EHLO", "STARTTLS"], "nothing after a failed handshake")
    }

    func testStartTLSRefusesACertificateForAnotherName() async throws {
        let pki = try SMTPTestPKI(names: [.dnsName("mail.example.com")])
        let server = try await TestSMTPServer.start(.init(startTLS: pki.serverContext))
        defer { server.stop() }
        let error = await sendExpectingError(try mailer("smtp://127.0.0.1:\(server.port)", root: pki.rootPEM), MailMessage(to: "a@example.com", subject: "x", text: "y"))
        guard case .connectionFailed? = error else { return XCTFail("expected connectionFailed, got \(String(describing: error))") }
        let record = await server.waitUntilAllClosed()
        XCTAssertFalse(record.verbs.contains("MAIL"))
    }

    func testStartTLSRequiredButNotOffered() async throws {
        let server = try await TestSMTPServer.start(.init(capabilities: ["AUTH PLAIN"]))
        defer { server.stop() }
        let error = await sendExpectingError(try mailer("smtp://user:secret@127.0.0.1:\(server.port)?starttls=required"), MailMessage(to: "a@example.com", subject: "x", text: "y"))
        XCTAssertEqual(error, .tlsUnavailable)
        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.verbs, ["EHLO"], "no credentials, no mail")
    }

    func testDataInjectedBeforeTheTLSHandshakeIsRefused() async throws {
        let pki = try SMTPTestPKI(names: [.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
        let server = try await TestSMTPServer.start(.init(startTLS: pki.serverContext, injectAfterSTARTTLS: true))
        defer { server.stop() }
        let error = await sendExpectingError(try mailer("smtp://127.0.0.1:\(server.port)", root: pki.rootPEM), MailMessage(to: "a@example.com", subject: "x", text: "y"))
        guard case .protocolViolation(let why)? = error else { return XCTFail("expected protocolViolation, got \(String(describing: error))") }
        XCTAssertTrue(why.contains("STARTTLS"), why)
        _ = await server.waitUntilAllClosed()
    }

    func testImplicitTLS() async throws {
        let pki = try SMTPTestPKI(names: [.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
        let server = try await TestSMTPServer.start(.init(capabilities: ["AUTH PLAIN", "8BITMIME"], implicitTLS: pki.serverContext))
        defer { server.stop() }
        try await mailer("smtps://user:secret@127.0.0.1:\(server.port)", root: pki.rootPEM)
            .sendBounded(MailMessage(to: "a@example.com", subject: "x", text: "y"))
        let record = await server.waitUntilAllClosed()
        XCTAssertEqual(record.verbs, ["EHLO", "AUTH", "MAIL", "RCPT", "DATA", "QUIT"])
        XCTAssertEqual(record.tlsAtCommand["EHLO"], true)
        XCTAssertEqual(record.messages.count, 1)

        // The same server without the test root: the handshake fails.
        let error = await sendExpectingError(try mailer("smtps://127.0.0.1:\(server.port)"), MailMessage(to: "a@example.com", subject: "x", text: "y"))
        guard case .connectionFailed? = error else { return XCTFail("expected connectionFailed, got \(String(describing: error))") }
    }

    // MARK: Decoding helpers

    /// RFC 2047: encoded words separated by folding whitespace decode and join without it.
    static func decodeRFC2047(_ value: String) throws -> String {
        var bytes: [UInt8] = []
        for word in value.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            guard word.hasPrefix("=?UTF-8?B?"), word.hasSuffix("?=") else {
                throw SMTPTestDecodingError("not an encoded word: \(word)")
            }
            let encoded = word.dropFirst("=?UTF-8?B?".count).dropLast(2)
            guard let data = Data(base64Encoded: String(encoded)) else { throw SMTPTestDecodingError("bad base64: \(encoded)") }
            bytes += data
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw SMTPTestDecodingError("not UTF-8") }
        return text
    }

    static func parseRFC5322Date(_ value: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        guard let date = formatter.date(from: value) else { return nil }
        return abs(date.timeIntervalSinceNow) < 300 ? date : nil
    }
}

private struct SMTPSendHung: Error, CustomStringConvertible {
    var description: String { "send(_:) neither finished nor timed out within 10 s" }
}

private extension SMTPMailer {
    /// `send(_:)`, but a client that would hang fails the test with `SMTPSendHung` after 10 s instead.
    func sendBounded(_ message: MailMessage) async throws {
        let waiting = NIOLockedValueBox<CheckedContinuation<Void, any Error>?>(nil)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            waiting.withLockedValue { $0 = continuation }
            Task {
                let result: Result<Void, any Error>
                do { result = .success(try await self.send(message)) } catch { result = .failure(error) }
                waiting.withLockedValue { $0?.resume(with: result); $0 = nil }
            }
            Task {
                try? await Task.sleep(for: .seconds(10))
                waiting.withLockedValue { $0?.resume(throwing: SMTPSendHung()); $0 = nil }
            }
        }
    }
}

private struct SMTPTestDecodingError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A received message split into unfolded headers and body.
private struct ParsedMailMessage {
    var rawHeaders: [(name: String, value: String)] = []
    var body: [UInt8]

    init(_ bytes: [UInt8]) throws {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let split = (0...(bytes.count - separator.count)).first(where: { Array(bytes[$0..<($0 + separator.count)]) == separator }) else {
            throw SMTPTestDecodingError("no blank line after the headers")
        }
        let head = String(decoding: bytes[..<split], as: UTF8.self)
        body = Array(bytes[(split + separator.count)...])
        for line in head.components(separatedBy: "\r\n") {
            if line.hasPrefix(" ") || line.hasPrefix("\t") {
                guard !rawHeaders.isEmpty else { throw SMTPTestDecodingError("continuation without a header") }
                rawHeaders[rawHeaders.count - 1].value += "\r\n" + line
            } else {
                guard let colon = line.firstIndex(of: ":") else { throw SMTPTestDecodingError("not a header: \(line)") }
                rawHeaders.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
            }
        }
    }

    func rawHeader(_ name: String) -> String? {
        let matches = rawHeaders.filter { $0.name.lowercased() == name.lowercased() }
        return matches.count == 1 ? matches[0].value : nil
    }

    /// Unfolded (RFC 5322 2.2.3: CRLF before whitespace is removed).
    func header(_ name: String) -> String? {
        rawHeader(name)?.replacingOccurrences(of: "\r\n", with: "")
    }

    var bodyLines: [String] {
        var text = String(decoding: body, as: UTF8.self)
        if text.hasSuffix("\r\n") { text.removeLast(1) }
        return text.components(separatedBy: "\r\n")
    }
}
