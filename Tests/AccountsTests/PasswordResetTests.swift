@testable import Accounts
import Fluent
import Messaging
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// "Forgot password" (issue 57): a link by mail, single use, 30 minutes, kept only as a hash; the
/// same answer for every address; budgets per network and per inbox; every session ends.
final class PasswordResetTests: XCTestCase {
    private let reset = "/api/v1/auth/password-reset"

    /// Runs the queued mail now (the request only queues it).
    private func settle(_ app: Application) async {
        while await app.workQueue.runDue(app) > 0 {}
    }

    private func quietQueue(_ app: Application) {
        app.workQueue.runsInBackground = false
    }

    func testAResetLinkSetsTheNewPasswordEndsEverySessionAndSignsThisDeviceIn() async throws {
        try await withListeningApp { app, port in
            quietQueue(app)
            let inbox = app.mailInbox
            let phone = try await app.signUp("mina@example.com", nickname: "미나")
            let laptop = try await app.logIn("mina@example.com")
            let phoneInbox = try await SocketListener.open(app, port: port, token: phone.accessToken)
            try await waitUntil { !phoneInbox.texts.isEmpty }

            let asked = try await app.send(.POST, reset, json: ["email": " Mina@Example.com "], headers: ["Accept-Language": "en"])
            XCTAssertEqual(asked.status, .accepted, asked.text)
            XCTAssertTrue(inbox.all.isEmpty, "the request only queues the mail")
            await settle(app)
            let mail = try XCTUnwrap(inbox.mail(to: "mina@example.com").last)
            XCTAssertEqual(mail.subject, "[WhatWeEat] Your password reset link", "in the asker's language when the account has none")
            XCTAssertTrue(mail.text.contains("30 minutes") && mail.text.contains("미나"), mail.text)
            let (url, token) = try XCTUnwrap(inbox.lastLink(to: "mina@example.com"))
            XCTAssertTrue(url.hasPrefix(app.settings.publicURL + "/reset-password?token="), url)
            let stored = try await app.db.sql.raw("SELECT token_hash FROM account_links").all(decodingColumn: "token_hash", as: String.self)
            XCTAssertEqual(stored, [SecureRandom.sha256Hex(token)], "only the hash is kept")

            let confirm = "\(reset)/confirm"
            let weak = try await app.send(.POST, confirm, json: ["token": token, "password": "short"])
            XCTAssertEqual(weak.status, .unprocessableEntity)
            XCTAssertEqual(weak.errorCode, "password_too_short")
            let missing = try await app.send(.POST, confirm, json: ["token": token])
            XCTAssertEqual(missing.errorCode, "missing_field")
            let stillMine = try await app.send(.GET, "/api/v1/me", token: laptop.accessToken)
            XCTAssertEqual(stillMine.status, .ok, "a refused reset ends nothing")

            let done = try await app.send(.POST, confirm, json: ["token": token, "password": "new-password-2"])
            XCTAssertEqual(done.status, .ok, done.text)
            let body = try done.object()
            XCTAssertEqual((body["user"] as? [String: Any])?["email"] as? String, "mina@example.com")
            let fresh = try XCTUnwrap(body["accessToken"] as? String)
            let me = try await app.send(.GET, "/api/v1/me", token: fresh)
            XCTAssertEqual(me.status, .ok, "this device is signed in")

            try await waitUntil(timeout: .seconds(2)) { phoneInbox.socket.isClosed }
            XCTAssertEqual(phoneInbox.socket.closeCode, OpenSockets.sessionEndedCode, "the other devices' sockets close")
            for old in [phone, laptop] {
                let gone = try await app.send(.GET, "/api/v1/me", token: old.accessToken)
                XCTAssertEqual(gone.status, .unauthorized)
                let refresh = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": old.refreshToken])
                XCTAssertEqual(refresh.status, .unauthorized)
            }
            let oldPassword = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "mina@example.com", "password": "password1"])
            XCTAssertEqual(oldPassword.status, .unauthorized)
            _ = try await app.logIn("mina@example.com", password: "new-password-2")

            let again = try await app.send(.POST, confirm, json: ["token": token, "password": "another-one-3"])
            XCTAssertEqual(again.status, .gone)
            XCTAssertEqual(again.errorCode, "reset_link_used")
            let invented = try await app.send(.POST, confirm, json: ["token": "not-a-token", "password": "another-one-3"])
            XCTAssertEqual(invented.status, .notFound)
            XCTAssertEqual(invented.errorCode, "reset_link_invalid")
            _ = try await app.logIn("mina@example.com", password: "new-password-2")
        }
    }

    func testKnownAndUnknownAddressesGetTheSameAnswerAndOnlyAnAccountGetsMail() async throws {
        try await withTestApp { app in
            quietQueue(app)
            let inbox = app.mailInbox
            _ = try await app.signUp("mina@example.com", nickname: "미나")
            let known = try await app.send(.POST, reset, json: ["email": "mina@example.com"])
            let unknown = try await app.send(.POST, reset, json: ["email": "nobody@example.com"])
            XCTAssertEqual(known.status, .accepted)
            XCTAssertEqual(unknown.status, .accepted)
            XCTAssertEqual(known.text, unknown.text, "byte for byte")
            await settle(app)
            XCTAssertEqual(inbox.all.map(\.to), ["mina@example.com"])

            let malformed = try await app.send(.POST, reset, json: ["email": "not-an-address"])
            XCTAssertEqual(malformed.status, .unprocessableEntity)
            XCTAssertEqual(malformed.errorCode, "invalid_email")
            let notJSON = try await app.send(.POST, reset, raw: "email=mina@example.com", headers: ["Content-Type": "application/x-www-form-urlencoded"])
            XCTAssertEqual(notJSON.status, .unsupportedMediaType)
        }
    }

    func testALinkExpiresAfterThirtyMinutesAndANewOneRetiresNone() async throws {
        try await withTestApp { app in
            quietQueue(app)
            let inbox = app.mailInbox
            _ = try await app.signUp("mina@example.com", nickname: "미나")
            // A link made 31 minutes ago (the queue's clock is the one links are dated by).
            let clock = TestClock(Date().addingTimeInterval(-31 * 60))
            app.workQueue.useClock { clock.now }
            _ = try await app.send(.POST, reset, json: ["email": "mina@example.com"])
            await settle(app)
            let old = try XCTUnwrap(inbox.lastLink(to: "mina@example.com")).token
            let expired = try await app.send(.POST, "\(reset)/confirm", json: ["token": old, "password": "new-password-2"])
            XCTAssertEqual(expired.status, .gone)
            XCTAssertEqual(expired.errorCode, "reset_link_expired")

            app.workQueue.useClock { Date() }
            _ = try await app.send(.POST, reset, json: ["email": "mina@example.com"])
            await settle(app)
            let fresh = try XCTUnwrap(inbox.lastLink(to: "mina@example.com")).token
            XCTAssertNotEqual(fresh, old)
            let done = try await app.send(.POST, "\(reset)/confirm", json: ["token": fresh, "password": "new-password-2"])
            XCTAssertEqual(done.status, .ok, done.text)
        }
    }

    func testBudgetsPerNetworkAndPerInbox() async throws {
        try await withTestApp(adjust: { $0.limits.passwordResetsPerHour = 4 }) { app in
            quietQueue(app)
            let inbox = app.mailInbox
            _ = try await app.signUp("mina.kim@gmail.com", nickname: "미나")
            // Four spellings of one Gmail inbox: three mails an hour reach it, the fourth is answered alike.
            // Each is settled before the next: the queue promises no order among items due together
            // (PostgreSQL took the fourth before the second), and the budget is spent in the order taken.
            for spelling in ["mina.kim@gmail.com", "minakim@gmail.com", "mina.kim+x@googlemail.com", "Mina.Kim@gmail.com"] {
                let asked = try await app.send(.POST, reset, json: ["email": spelling])
                XCTAssertEqual(asked.status, .accepted, spelling)
                await settle(app)
            }
            XCTAssertEqual(inbox.mail(to: "mina.kim@gmail.com").count, 1, "only the account's own spelling is an account")
            let fifth = try await app.send(.POST, reset, json: ["email": "someone@example.com"])
            XCTAssertEqual(fifth.status, .tooManyRequests, "the network's hour is spent")
            XCTAssertEqual(fifth.errorCode, "too_many_password_resets")
            XCTAssertNotNil(fifth.headers.first(name: "Retry-After"))
            let other = try await app.send(.POST, reset, json: ["email": "mina.kim@gmail.com"], headers: ["X-Forwarded-For": "198.51.100.7"])
            XCTAssertEqual(other.status, .tooManyRequests, "an untrusted X-Forwarded-For is not another network")
        }
        try await withTestApp(adjust: { $0.limits.passwordResetsPerHour = 100 }) { app in
            quietQueue(app)
            let inbox = app.mailInbox
            _ = try await app.signUp("mina@example.com", nickname: "미나")
            for _ in 0..<5 { _ = try await app.send(.POST, reset, json: ["email": "mina@example.com"]) }
            await settle(app)
            XCTAssertEqual(inbox.mail(to: "mina@example.com").count, 3, "three mails an hour to one inbox")
        }
    }

    func testASuspendedAccountCannotResetItsWayBackIn() async throws {
        try await withTestApp { app in
            quietQueue(app)
            let inbox = app.mailInbox
            _ = try await app.signUp("mina@example.com", nickname: "미나")
            _ = try await app.send(.POST, reset, json: ["email": "mina@example.com"])
            await settle(app)
            let token = try XCTUnwrap(inbox.lastLink(to: "mina@example.com")).token
            let store = AccountStore(database: app.db, application: app)
            let found = try await store.user(email: "mina@example.com")
            let user = try XCTUnwrap(found)
            try await store.setSuspension(of: user, reason: "광고 도배", at: Date())

            let refused = try await app.send(.POST, "\(reset)/confirm", json: ["token": token, "password": "new-password-2"])
            XCTAssertEqual(refused.status, .forbidden)
            XCTAssertEqual(refused.errorCode, "account_suspended")
            let asked = try await app.send(.POST, reset, json: ["email": "mina@example.com"])
            XCTAssertEqual(asked.status, .accepted, "answered as for anyone")
            await settle(app)
            XCTAssertEqual(inbox.mail(to: "mina@example.com").count, 1, "and no new link goes")
        }
    }

    func testAProductionServerWithoutMailRefusesAndADevelopmentOneLogsTheLink() async throws {
        try await withTestApp(adjust: { $0.mail.production = true; $0.mail.smtpURL = nil }) { app in
            XCTAssertEqual(app.mailDelivery, .none)
            _ = try await app.signUp("mina@example.com", nickname: "미나")
            let refused = try await app.send(.POST, reset, json: ["email": "mina@example.com"])
            XCTAssertEqual(refused.status, .serviceUnavailable)
            XCTAssertEqual(refused.errorCode, "mail_unavailable")
            let queued = try await app.rowCount(WorkQueueStore.table)
            XCTAssertEqual(queued, 0, "nothing is queued that could never be sent")
            let ready = try await app.send(.GET, "/readyz")
            XCTAssertEqual(ready.status, .ok, "the server is ready; mail is a detail")
            XCTAssertEqual((try ready.object()["details"] as? [String: Any])?["mail"] as? String, "none")
        }
        try await withTestApp { app in
            XCTAssertEqual(app.mailDelivery, .log)
            XCTAssertTrue(app.mail is LogMailSender, "a development server writes mail to its log")
            let ready = try await app.send(.GET, "/readyz")
            XCTAssertEqual((try ready.object()["details"] as? [String: Any])?["mail"] as? String, "log")
        }
    }

    /// Two confirmations of one link at once: one password is set, the other is told the link was used.
    func testTwoConfirmationsAtOnceSetOnePassword() async throws {
        try await withTestApp { app in
            quietQueue(app)
            let inbox = app.mailInbox
            _ = try await app.signUp("mina@example.com", nickname: "미나")
            _ = try await app.send(.POST, reset, json: ["email": "mina@example.com"])
            await settle(app)
            let token = try XCTUnwrap(inbox.lastLink(to: "mina@example.com")).token
            let confirm = "\(reset)/confirm"
            async let first = app.send(.POST, confirm, json: ["token": token, "password": "first-password-1"])
            async let second = app.send(.POST, confirm, json: ["token": token, "password": "second-password-2"])
            let statuses = try await [first.status, second.status]
            XCTAssertEqual(statuses.filter { $0 == .ok }.count, 1, "\(statuses)")
            XCTAssertEqual(statuses.filter { $0 == .gone }.count, 1, "\(statuses)")
        }
    }
}
