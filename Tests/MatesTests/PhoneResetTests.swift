import Accounts
import Fluent
@testable import Mates
import MatesTesting
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// "Forgot password" by a code to the phone a person verified for mates (issue 57, item 2): the
/// same answer for every number, a code of its own purpose (five minutes, five tries), every
/// session ended, the network's budget shared with the mailed links, nothing where no SMS can go.
final class PhoneResetTests: XCTestCase {
    private let reset = "/api/v1/auth/password-reset/phone"
    private let phone = "+821023456789"

    private func settle(_ app: Application) async {
        while await app.workQueue.runDue(app) > 0 {}
    }

    /// An account with `phone` verified for mates, and the clock past the minute between codes.
    private func verifiedAccount(_ app: Application, clock: TestClock, email: String = "mina@example.com", phone: String? = nil)
        async throws -> Application.Credentials
    {
        let phone = phone ?? self.phone
        let inbox = app.codeInbox  // installed before the first code
        let credentials = try await app.signUp(email, nickname: "미나")
        let sent = try await app.send(.POST, "\(Application.mates)/verification", json: ["channel": "phone", "destination": phone],
                                      token: credentials.accessToken)
        XCTAssertEqual(sent.status, .accepted, sent.text)
        let code = try XCTUnwrap(inbox.last(to: phone))
        let confirmed = try await app.send(.POST, "\(Application.mates)/verification/confirm", json: ["destination": phone, "code": code],
                                           token: credentials.accessToken)
        XCTAssertEqual(confirmed.status, .ok, confirmed.text)
        clock.advance(by: 61)
        return credentials
    }

    func testACodeToTheVerifiedPhoneSetsThePasswordEndsEverySessionAndSignsThisDeviceIn() async throws {
        try await withTestApp { app in
            app.workQueue.runsInBackground = false
            let clock = app.useTestClock()
            let inbox = app.codeInbox
            let first = try await verifiedAccount(app, clock: clock)
            let laptop = try await app.logIn("mina@example.com")

            let asked = try await app.send(.POST, reset, json: ["phone": "010-2345-6789"], headers: ["Accept-Language": "en"])
            let unknown = try await app.send(.POST, reset, json: ["phone": "010-9999-0000"], headers: ["Accept-Language": "en"])
            XCTAssertEqual(asked.status, .accepted, asked.text)
            XCTAssertEqual(asked.text, unknown.text, "byte for byte: nobody learns which number has an account")
            XCTAssertEqual(inbox.count, 1, "the request only queues the code")
            await settle(app)
            XCTAssertEqual(inbox.count, 2, "one code, to the verified number only")
            XCTAssertNil(inbox.last(to: "+821099990000"))
            let text = try XCTUnwrap(inbox.lastText())
            XCTAssertTrue(text.contains("password reset code") && text.contains("5 minutes"), "in the asker's language: \(text)")
            let code = try XCTUnwrap(inbox.last(to: phone))
            let purposes = try await app.db.sql.raw("SELECT purpose FROM mates_verification_codes ORDER BY created_at")
                .all(decodingColumn: "purpose", as: String.self)
            XCTAssertEqual(purposes, ["verify", "password_reset"])

            // The reset code verifies nothing.
            let asVerification = try await app.send(.POST, "\(Application.mates)/verification/confirm", json: ["destination": phone, "code": code],
                                                    token: first.accessToken)
            XCTAssertEqual(asVerification.status, .unprocessableEntity)

            let confirm = "\(reset)/confirm"
            let weak = try await app.send(.POST, confirm, json: ["phone": phone, "code": code, "password": "short"])
            XCTAssertEqual(weak.errorCode, "password_too_short", "the password is checked first: a weak one costs no try")
            let wrong = try await app.send(.POST, confirm, json: ["phone": phone, "code": code == "000000" ? "000001" : "000000", "password": "new-password-2"])
            XCTAssertEqual(wrong.status, .unprocessableEntity)
            XCTAssertEqual(wrong.errorCode, "reset_code_invalid")
            let nobody = try await app.send(.POST, confirm, json: ["phone": "010-9999-0000", "code": code, "password": "new-password-2"])
            XCTAssertEqual(nobody.text, wrong.text, "a number with no account reads as a wrong code")
            let missing = try await app.send(.POST, confirm, json: ["phone": phone, "password": "new-password-2"])
            XCTAssertEqual(missing.errorCode, "missing_field")
            let stillMine = try await app.send(.GET, "/api/v1/me", token: laptop.accessToken)
            XCTAssertEqual(stillMine.status, .ok, "a refused reset ends nothing")

            let done = try await app.send(.POST, confirm, json: ["phone": "010 2345 6789", "code": code, "password": "new-password-2"])
            XCTAssertEqual(done.status, .ok, done.text)
            let fresh = try XCTUnwrap(try done.object()["accessToken"] as? String)
            let me = try await app.send(.GET, "/api/v1/me", token: fresh)
            XCTAssertEqual(me.status, .ok, "this device is signed in")
            for token in [laptop.accessToken, first.accessToken] {
                let ended = try await app.send(.GET, "/api/v1/me", token: token)
                XCTAssertEqual(ended.status, .unauthorized, "every other session ended")
            }
            let oldPassword = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "mina@example.com", "password": "password1"])
            XCTAssertEqual(oldPassword.status, .unauthorized)
            _ = try await app.logIn("mina@example.com", password: "new-password-2")

            let again = try await app.send(.POST, confirm, json: ["phone": phone, "code": code, "password": "new-password-3"])
            XCTAssertEqual(again.errorCode, "reset_code_invalid", "a code works once")

            // A verification code resets nothing.
            clock.advance(by: 61)
            let sent = try await app.send(.POST, "\(Application.mates)/verification", json: ["channel": "phone", "destination": phone], token: fresh)
            XCTAssertEqual(sent.status, .accepted, sent.text)
            let verification = try XCTUnwrap(inbox.last(to: phone))
            let crossed = try await app.send(.POST, confirm, json: ["phone": phone, "code": verification, "password": "new-password-3"])
            XCTAssertEqual(crossed.errorCode, "reset_code_invalid")
        }
    }

    func testFiveWrongTriesEndACodeAndItLastsFiveMinutes() async throws {
        try await withTestApp { app in
            app.workQueue.runsInBackground = false
            let clock = app.useTestClock()
            _ = try await verifiedAccount(app, clock: clock)
            let confirm = "\(reset)/confirm"

            _ = try await app.send(.POST, reset, json: ["phone": phone])
            await settle(app)
            let code = try XCTUnwrap(app.codeInbox.last(to: phone))
            let wrongCode = code == "000000" ? "000001" : "000000"
            for _ in 0..<5 {
                let wrong = try await app.send(.POST, confirm, json: ["phone": phone, "code": wrongCode, "password": "new-password-2"])
                XCTAssertEqual(wrong.errorCode, "reset_code_invalid")
            }
            let spent = try await app.send(.POST, confirm, json: ["phone": phone, "code": code, "password": "new-password-2"])
            XCTAssertEqual(spent.errorCode, "reset_code_invalid", "five wrong tries end the code")

            clock.advance(by: 61)
            _ = try await app.send(.POST, reset, json: ["phone": phone])
            await settle(app)
            let late = try XCTUnwrap(app.codeInbox.last(to: phone))
            XCTAssertNotEqual(late, code)
            clock.advance(by: 5 * 60 + 1)
            let expired = try await app.send(.POST, confirm, json: ["phone": phone, "code": late, "password": "new-password-2"])
            XCTAssertEqual(expired.errorCode, "reset_code_invalid", "five minutes")
            _ = try await app.logIn("mina@example.com", password: "password1")
        }
    }

    func testBudgetsSuspensionsAndServersThatCannotText() async throws {
        try await withTestApp(adjust: { $0.limits.passwordResetsPerHour = 3 }) { app in
            app.workQueue.runsInBackground = false
            let clock = app.useTestClock()
            _ = try await verifiedAccount(app, clock: clock)
            let inbox = app.codeInbox

            // One code a minute to a number, whoever asks: the second is answered alike and sends nothing.
            for _ in 0..<2 {
                let asked = try await app.send(.POST, reset, json: ["phone": phone])
                XCTAssertEqual(asked.status, .accepted)
            }
            await settle(app)
            XCTAssertEqual(inbox.count, 2, "the verification's code and one reset code")
            // The network's hour is shared with the mailed links.
            let mailed = try await app.send(.POST, "/api/v1/auth/password-reset", json: ["email": "mina@example.com"])
            XCTAssertEqual(mailed.status, .accepted)
            let fourth = try await app.send(.POST, reset, json: ["phone": phone])
            XCTAssertEqual(fourth.status, .tooManyRequests)
            XCTAssertEqual(fourth.errorCode, "too_many_password_resets")
            XCTAssertNotNil(fourth.headers.first(name: "Retry-After"))
            let mailedAfter = try await app.send(.POST, "/api/v1/auth/password-reset", json: ["email": "mina@example.com"])
            XCTAssertEqual(mailedAfter.status, .tooManyRequests, "one budget for both ways")
        }
        try await withTestApp { app in
            app.workQueue.runsInBackground = false
            let clock = app.useTestClock()
            _ = try await verifiedAccount(app, clock: clock)
            let malformed = try await app.send(.POST, reset, json: ["phone": "call me"])
            XCTAssertEqual(malformed.status, .unprocessableEntity)
            XCTAssertEqual(malformed.errorCode, "invalid_phone")
            let abroad = try await app.send(.POST, reset, json: ["phone": "+1 415 555 0100"])
            XCTAssertEqual(abroad.errorCode, "phone_country_unsupported")
            let notJSON = try await app.send(.POST, reset, raw: "phone=01023456789", headers: ["Content-Type": "application/x-www-form-urlencoded"])
            XCTAssertEqual(notJSON.status, .unsupportedMediaType)

            // A suspended account gets no code, and is answered as anyone is.
            let store = AccountStore(database: app.db, application: app)
            let found = try await store.user(email: "mina@example.com")
            let user = try XCTUnwrap(found)
            try await store.setSuspension(of: user, reason: "광고 도배", at: Date())
            let asked = try await app.send(.POST, reset, json: ["phone": phone])
            XCTAssertEqual(asked.status, .accepted)
            await settle(app)
            XCTAssertEqual(app.codeInbox.count, 1, "only the verification's code ever went")
        }
        // Guesses at codes count against the network's sign-in budget, as guesses at passwords do.
        try await withTestApp(adjust: { $0.limits.passwordChecksPerMinute = 3 }) { app in
            app.workQueue.runsInBackground = false
            let clock = app.useTestClock()
            _ = try await verifiedAccount(app, clock: clock)
            for _ in 0..<3 {
                let guess = try await app.send(.POST, "\(reset)/confirm", json: ["phone": phone, "code": "123456", "password": "new-password-2"])
                XCTAssertEqual(guess.errorCode, "reset_code_invalid")
            }
            let fourth = try await app.send(.POST, "\(reset)/confirm", json: ["phone": phone, "code": "123456", "password": "new-password-2"])
            XCTAssertEqual(fourth.status, .tooManyRequests)
            XCTAssertNotNil(fourth.headers.first(name: "Retry-After"))
        }
        // Production without an SMS provider: refused plainly, nothing queued, and the pages offer no phone.
        try await withTestApp(adjust: { $0.mates.offersPhoneCodes = false }) { app in
            let refused = try await app.send(.POST, reset, json: ["phone": phone])
            XCTAssertEqual(refused.status, .serviceUnavailable)
            XCTAssertEqual(refused.errorCode, "sms_unavailable")
            let confirm = try await app.send(.POST, "\(reset)/confirm", json: ["phone": phone, "code": "123456", "password": "new-password-2"])
            XCTAssertEqual(confirm.errorCode, "sms_unavailable")
            let queued = try await app.rowCount(WorkQueueStore.table)
            XCTAssertEqual(queued, 0)
            var browser = CookieBrowser(app: app)
            let forgot = try await browser.get("/forgot-password")
            XCTAssertFalse(forgot.text.contains(#"id="reset-by-phone""#))
            let page = try await browser.get("/forgot-password/phone")
            XCTAssertEqual(page.status, .serviceUnavailable)
            XCTAssertTrue(page.text.contains("문자 메시지를 보낼 수 없어요"), page.text)
        }
    }

    func testAnAppsLinkedSignInGetsNoCode() async throws {
        // The 새싹 스터디 apps sign in by Firebase: their accounts have no password to reset.
        try await withSesacApp { app, firebase in
            app.workQueue.runsInBackground = false
            let inbox = app.codeInbox
            let client = try SesacAppClient(app: app, firebase: firebase)
            try await client.signUp(nick: "앱사용자")
            let asked = try await app.send(.POST, reset, json: ["phone": client.phone])
            XCTAssertEqual(asked.status, .accepted, "answered as for anyone")
            await settle(app)
            XCTAssertEqual(inbox.count, 0)
        }
    }

    func testThePagesTakeANumberThenTheCodeAndANewPassword() async throws {
        try await withTestApp { app in
            app.workQueue.runsInBackground = false
            let clock = app.useTestClock()
            _ = try await verifiedAccount(app, clock: clock)
            var browser = CookieBrowser(app: app)
            let forgot = try await browser.get("/forgot-password")
            XCTAssertTrue(try openingTag(forgot, "reset-by-phone").contains(#"href="/forgot-password/phone""#))
            let start = try await browser.get("/forgot-password/phone")
            XCTAssertEqual(start.status, .ok)
            XCTAssertTrue(try openingTag(start, "phone").contains(#"type="tel""#))

            let bad = try await browser.post("/forgot-password/phone", form: ["phone": "call me"])
            XCTAssertEqual(bad.status, .unprocessableEntity)
            XCTAssertTrue(bad.text.contains("010-1234-5678"), "says how to write a number")

            let sent = try await browser.post("/forgot-password/phone", form: ["phone": "010-2345-6789"])
            XCTAssertEqual(sent.status, .accepted)
            XCTAssertTrue(sent.text.contains(#"id="reset-code-sent""#))
            XCTAssertTrue(try openingTag(sent, "code").contains(#"autocomplete="one-time-code""#))
            await settle(app)
            let code = try XCTUnwrap(app.codeInbox.last(to: phone))

            let wrong = try await browser.post("/forgot-password/phone/confirm",
                                               form: ["phone": "010-2345-6789", "code": code == "000000" ? "000001" : "000000", "password": "new-password-2"])
            XCTAssertEqual(wrong.status, .unprocessableEntity)
            XCTAssertTrue(wrong.text.contains("코드가 맞지 않거나 만료되었어요"), wrong.text)
            let weak = try await browser.post("/forgot-password/phone/confirm", form: ["phone": "010-2345-6789", "code": code, "password": "short"])
            XCTAssertTrue(try openingTag(weak, "password").contains(#"aria-invalid="true""#), "the password's own error, beside it")

            let done = try await browser.post("/forgot-password/phone/confirm", form: ["phone": "010-2345-6789", "code": code, "password": "new-password-2"])
            XCTAssertEqual(done.status, .seeOther, done.text)
            XCTAssertEqual(done.headers.first(name: .location), "/me?notice=password_reset")
            let me = try await browser.get("/me")
            XCTAssertEqual(me.status, .ok, "this browser is signed in")
        }
    }
}
