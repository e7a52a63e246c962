import Fluent
@testable import Mates
import MatesTesting
import Messaging
import Platform
import SesacStudyApp
import WhatWeEatTesting
import XCTVapor

/// With `SMTP_URL` set, email codes go through the real SMTP client to a real (local) SMTP server;
/// a server that refuses the mail leaves no code behind and no limit used.
final class MatesVerificationMailTests: XCTestCase {
    func testEmailCodesArriveByMailAndARefusalCostsNothing() async throws {
        var behavior = TestSMTPServer.Behavior()
        behavior.capabilities.append("8BITMIME")
        let mailServer = try await TestSMTPServer.start(behavior)
        defer { mailServer.stop() }
        try await withTestApp(adjust: { $0.mail.smtpURL = "smtp://127.0.0.1:\(mailServer.port)?from=codes@whatweeat.test" }) { app in
            let mina = try await app.member("미나")
            let sent = try await app.send(.POST, "\(Application.mates)/verification", json: ["channel": "email", "destination": "Mina@Example.com"],
                                          token: mina.token)
            XCTAssertEqual(sent.status, .accepted, sent.text)
            let record = await mailServer.waitUntilAllClosed()
            XCTAssertEqual(record.rcptTo.count, 1)
            XCTAssertTrue(record.rcptTo.first?.contains("mina@example.com") == true, "\(record.rcptTo)")
            let mail = String(decoding: try XCTUnwrap(record.messages.first), as: UTF8.self)
            let code = try XCTUnwrap(mail.range(of: #"\b\d{6}\b"#, options: .regularExpression).map { String(mail[$0]) }, mail)
            let confirmed = try await app.send(.POST, "\(Application.mates)/verification/confirm", json: ["destination": "mina@example.com", "code": code],
                                               token: mina.token)
            XCTAssertEqual(confirmed.status, .ok, confirmed.text)
        }

        var refusing = TestSMTPServer.Behavior()
        refusing.refusals["RCPT"] = .init(550, "no such mailbox")
        let refusingServer = try await TestSMTPServer.start(refusing)
        defer { refusingServer.stop() }
        try await withTestApp(adjust: { $0.mail.smtpURL = "smtp://127.0.0.1:\(refusingServer.port)" }) { app in
            let joon = try await app.member("준호")
            for _ in 0..<2 {
                let refused = try await app.send(.POST, "\(Application.mates)/verification", json: ["channel": "email", "destination": "joon@example.com"],
                                                 token: joon.token)
                XCTAssertEqual(refused.status, .serviceUnavailable, refused.text)
                XCTAssertEqual(refused.errorCode, "code_not_sent", "the second try is not 'too soon': the first left nothing")
            }
            let stored = try await app.rowCount(MatesStore.Table.codes)
            XCTAssertEqual(stored, 0)
        }
    }
}
