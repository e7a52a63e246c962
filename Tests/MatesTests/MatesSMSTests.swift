import Fluent
@testable import Mates
import MatesTesting
import Messaging
import Platform
import WhatWeEatTesting
import XCTVapor

/// Issue 40, item 4: with `SMS_URL` naming Solapi, a phone code goes out as a text message (to the
/// stand-in that checks requests as Solapi does) and is followed until the carrier says it arrived;
/// a refusal leaves nothing behind. Without a provider, pages offer email first, and a production
/// server offers no phone channel at all.
final class MatesSMSTests: XCTestCase {
    func testAPhoneCodeGoesByTextMessageAndIsFollowedToThePhone() async throws {
        let solapi = try await FakeSolapi.start()
        do {
            let sms = try SMSConfiguration(url: solapi.smsURL)
            try await withTestApp(adjust: { $0.mates.sms = sms }) { app in
                let clock = TestClock()
                app.workQueue.useClock { clock.now }
                app.workQueue.runsInBackground = false
                let mina = try await app.member("미나")
                let sent = try await app.send(.POST, "\(Application.mates)/verification", json: ["channel": "phone", "destination": "010-2345-6789"],
                                              token: mina.token)
                XCTAssertEqual(sent.status, .accepted, sent.text)
                let message = try XCTUnwrap(solapi.messages.first)
                XCTAssertEqual(message.to, "01023456789", "Korean carriers take the national form")
                XCTAssertEqual(message.from, solapi.sender)
                let code = try XCTUnwrap(message.text.range(of: #"\b\d{6}\b"#, options: .regularExpression).map { String(message.text[$0]) })
                XCTAssertTrue(message.text.contains("인증번호"), message.text)

                // Followed: still with the carrier at the first look, on the phone at the second.
                solapi.carrier(message.messageID, status: "3000")
                clock.advance(by: 20)
                _ = await app.workQueue.runDue(app)
                var following = try await app.rowCount(WorkQueueStore.table)
                XCTAssertEqual(following, 1, "pending: asked again later")
                solapi.carrier(message.messageID, status: "4000")
                clock.advance(by: 30)
                _ = await app.workQueue.runDue(app)
                following = try await app.rowCount(WorkQueueStore.table)
                XCTAssertEqual(following, 0, "delivered: done")

                let confirmed = try await app.send(.POST, "\(Application.mates)/verification/confirm", json: ["destination": "01023456789", "code": code],
                                                   token: mina.token)
                XCTAssertEqual(confirmed.status, .ok, confirmed.text)
                XCTAssertEqual(solapi.authorizationRefusals, [])

                // Solapi refuses (no balance): the person is told to try later, and no code is left to confirm or count.
                let joon = try await app.member("준호")
                solapi.refuseNext(.paymentRequired, "NotEnoughBalance")
                let refused = try await app.send(.POST, "\(Application.mates)/verification", json: ["channel": "phone", "destination": "01098765432"],
                                                 token: joon.token)
                XCTAssertEqual(refused.status, .serviceUnavailable, refused.text)
                XCTAssertEqual(refused.errorCode, "code_not_sent")
                let again = try await app.send(.POST, "\(Application.mates)/verification", json: ["channel": "phone", "destination": "01098765432"],
                                               token: joon.token)
                XCTAssertEqual(again.status, .accepted, "not 'too soon': the refused one left nothing")
                XCTAssertEqual(solapi.messages.count, 2)

                // With a provider, the phone comes first on the page.
                var browser = try await CookieBrowser.signedUp(app, nickname: "수아")
                let start = try await browser.get("/mates/start")
                XCTAssertTrue(try openingTag(start, "channel-phone").contains("checked"))
                XCTAssertFalse(start.text.contains(#"id="codes-in-log""#))
            }
        } catch {
            await solapi.stop()
            throw error
        }
        await solapi.stop()
    }

    func testWithoutAProviderEmailComesFirstAndProductionOffersNoPhone() async throws {
        try await withTestApp { app in
            var browser = try await CookieBrowser.signedUp(app, nickname: "미나")
            let start = try await browser.get("/mates/start")
            XCTAssertTrue(try openingTag(start, "channel-email").contains("checked"), "email first")
            XCTAssertFalse(try openingTag(start, "channel-phone").contains("checked"))
            XCTAssertTrue(try openingTag(start, "destination").contains(#"type="email""#), "the field starts as the first channel's")
            XCTAssertTrue(start.text.contains(#"id="codes-in-log""#), "a development server says where its codes go")
        }
        try await withTestApp(adjust: { $0.mates.offersPhoneCodes = false }) { app in
            var browser = try await CookieBrowser.signedUp(app, nickname: "준호")
            let start = try await browser.get("/mates/start")
            XCTAssertFalse(start.text.contains(#"id="channel-phone""#), "no phone channel that cannot reach a phone")
            XCTAssertTrue(try openingTag(start, "channel-email").contains("checked"))
            XCTAssertFalse(start.text.contains(#"id="codes-in-log""#))
            let joon = try await app.member("준호2")
            let refused = try await app.send(.POST, "\(Application.mates)/verification", json: ["channel": "phone", "destination": "01012345678"],
                                             token: joon.token)
            XCTAssertEqual(refused.status, .unprocessableEntity)
            XCTAssertEqual(refused.errorCode, "phone_channel_unavailable")
            let codes = try await app.rowCount(MatesStore.Table.codes)
            XCTAssertEqual(codes, 0)
        }
        // Production without SMTP_URL: the email channel is refused too, never a code in the log.
        try await withTestApp(adjust: { $0.mates.offersPhoneCodes = false; $0.mates.offersEmailCodes = false }) { app in
            let mina = try await app.member("미나3")
            let refused = try await app.send(.POST, "\(Application.mates)/verification", json: ["channel": "email", "destination": "mina3@example.com"],
                                             token: mina.token)
            XCTAssertEqual(refused.status, .unprocessableEntity)
            XCTAssertEqual(refused.errorCode, "email_channel_unavailable")
            let codes = try await app.rowCount(MatesStore.Table.codes)
            XCTAssertEqual(codes, 0)
        }
    }

    func testTheSettingIsReadStrictlyAndProductionWithoutItOffersNoPhone() throws {
        let base: [String: String] = ["APP_ENV": "production"]
        let withoutSMS = try MatesSettings.load(from: EnvironmentVariables(values: base, appEnvironment: .production))
        XCTAssertFalse(withoutSMS.offersPhoneCodes)
        let withSMS = try MatesSettings.load(from: EnvironmentVariables(values: base.merging(["SMS_URL": "solapi://k:s@api.solapi.com?from=0212345678"]) { $1 },
                                                                       appEnvironment: .production))
        XCTAssertTrue(withSMS.offersPhoneCodes)
        XCTAssertEqual(withSMS.sms?.sender, "0212345678")
        let development = try MatesSettings.load(from: EnvironmentVariables(values: [:], appEnvironment: .development))
        XCTAssertTrue(development.offersPhoneCodes, "codes in the log")
        XCTAssertThrowsError(try MatesSettings.load(from: EnvironmentVariables(values: ["SMS_URL": "solapi://k:secret@api.solapi.com"], appEnvironment: .production))) {
            XCTAssertFalse("\($0)".contains("secret"), "the secret is not repeated in the error")
        }
        // The 2026-12-05 probe's finding 7: production took `solapi+http://` to a remote host (codes and
        // the signed header in clear) and logged email codes without SMTP_URL.
        let clear = ["SMS_URL": "solapi+http://KEY1:SECRETPLAIN@sms.example.com?from=0212345678"]
        XCTAssertThrowsError(try MatesSettings.load(from: EnvironmentVariables(values: clear, appEnvironment: .production))) {
            XCTAssertTrue("\($0)".contains("SMS_URL"))
            XCTAssertFalse("\($0)".contains("SECRETPLAIN"))
        }
        let standIn = try MatesSettings.load(from: EnvironmentVariables(values: ["SMS_URL": "solapi+http://k:s@127.0.0.1:18492?from=0212345678"],
                                                                      appEnvironment: .production))
        XCTAssertNotNil(standIn.sms, "a stand-in on this machine")
        XCTAssertNotNil(try MatesSettings.load(from: EnvironmentVariables(values: clear, appEnvironment: .development)).sms)
        XCTAssertFalse(withoutSMS.offersEmailCodes, "no SMTP_URL in production: no email channel either")
        let withSMTP = try MatesSettings.load(from: EnvironmentVariables(values: ["SMTP_URL": "smtp://mail.example.com"], appEnvironment: .production))
        XCTAssertTrue(withSMTP.offersEmailCodes)
        XCTAssertTrue(development.offersEmailCodes, "codes in the log")
    }
}
