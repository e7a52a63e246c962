@testable import Accounts
import Fluent
import Messaging
import Platform
import WhatWeEatTesting
import XCTVapor

/// A new email address (issue 57): asked for with the password, confirmed from the new inbox, told
/// to the old inbox with a link that puts it back for seven days and signs every device out.
final class EmailChangeTests: XCTestCase {
    func testTheNewAddressIsConfirmedFromItsInboxAndTheOldOneCanUndoIt() async throws {
        try await withTestApp { app in
            let inbox = app.mailInbox
            let mina = try await app.signUp("mina@example.com", nickname: "미나")
            let other = try await app.logIn("mina@example.com")

            let cases: [([String: String], HTTPStatus, String)] = [
                (["email": "new@example.com", "password": "not-mine-1"], .forbidden, "wrong_password"),
                (["email": "not-an-address", "password": "password1"], .unprocessableEntity, "invalid_email"),
                (["email": " MINA@example.com", "password": "password1"], .conflict, "same_email"),
                (["email": "new@example.com"], .badRequest, "missing_field"),
            ]
            _ = try await app.signUp("taken@example.com", nickname: "선점")
            for (body, status, code) in cases + [(["email": "taken@example.com", "password": "password1"], .conflict, "email_taken")] {
                let refused = try await app.send(.POST, "/api/v1/me/email", json: body, token: mina.accessToken)
                XCTAssertEqual(refused.status, status, "\(body)")
                XCTAssertEqual(refused.errorCode, code, "\(body)")
            }
            XCTAssertTrue(inbox.all.isEmpty, "nothing was sent for a refused change")
            let anonymous = try await app.send(.POST, "/api/v1/me/email", json: ["email": "new@example.com", "password": "password1"])
            XCTAssertEqual(anonymous.status, .unauthorized)

            let asked = try await app.send(.POST, "/api/v1/me/email", json: ["email": "New@Example.com", "password": "password1"], token: mina.accessToken)
            XCTAssertEqual(asked.status, .accepted, asked.text)
            XCTAssertEqual(try asked.object()["email"] as? String, "new@example.com")
            let me = try await app.send(.GET, "/api/v1/me", token: mina.accessToken)
            XCTAssertEqual(try me.object()["email"] as? String, "mina@example.com", "nothing changes before the link is followed")
            let confirm = try XCTUnwrap(inbox.lastLink(to: "new@example.com"))
            XCTAssertTrue(confirm.url.contains("/confirm-email?token="))

            let confirmed = try await app.send(.POST, "/api/v1/auth/email-change/confirm", json: ["token": confirm.token])
            XCTAssertEqual(confirmed.status, .ok, confirmed.text)
            XCTAssertEqual(try confirmed.object()["email"] as? String, "new@example.com")
            let again = try await app.send(.POST, "/api/v1/auth/email-change/confirm", json: ["token": confirm.token])
            XCTAssertEqual(again.errorCode, "reset_link_used")
            let stillIn = try await app.send(.GET, "/api/v1/me", token: other.accessToken)
            XCTAssertEqual(try stillIn.object()["email"] as? String, "new@example.com", "sessions stay; the account reads afresh")
            _ = try await app.logIn("new@example.com")
            let oldLogin = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "mina@example.com", "password": "password1"])
            XCTAssertEqual(oldLogin.status, .unauthorized)

            // The old inbox was told, with a link that puts it back.
            let told = try XCTUnwrap(inbox.mail(to: "mina@example.com").last)
            XCTAssertTrue(told.text.contains("new@example.com"), told.text)
            let undo = try XCTUnwrap(inbox.lastLink(to: "mina@example.com"))
            XCTAssertTrue(undo.url.contains("/undo-email?token="))
            let wrongKind = try await app.send(.POST, "/api/v1/auth/email-change/confirm", json: ["token": undo.token])
            XCTAssertEqual(wrongKind.errorCode, "reset_link_invalid", "an undo link confirms nothing")
            let undone = try await app.send(.POST, "/api/v1/auth/email-change/undo", json: ["token": undo.token])
            XCTAssertEqual(undone.status, .ok, undone.text)
            XCTAssertEqual(try undone.object()["email"] as? String, "mina@example.com")
            for token in [mina.accessToken, other.accessToken] {
                let ended = try await app.send(.GET, "/api/v1/me", token: token)
                XCTAssertEqual(ended.status, .unauthorized, "every device signed out")
            }
            _ = try await app.logIn("mina@example.com")
        }
    }

    func testAnUndoLinkLastsSevenDaysAndAConfirmationADay() async throws {
        try await withTestApp { app in
            let inbox = app.mailInbox
            let mina = try await app.signUp("mina@example.com", nickname: "미나")
            _ = try await app.send(.POST, "/api/v1/me/email", json: ["email": "new@example.com", "password": "password1"], token: mina.accessToken)
            let token = try XCTUnwrap(inbox.lastLink(to: "new@example.com")).token
            // A service reads the accounts' clock when made: each is made where the clock is moved.
            func service() -> AccountService { AccountService(request: Request(application: app, on: app.eventLoopGroup.next())) }
            do {
                _ = try await app.withClock(\.accountsEnvironment, ahead: 25 * 3600) { try await service().confirmEmailChange(token: token) }
                XCTFail("a day-old confirmation")
            } catch let error as AppError {
                XCTAssertEqual(error.code, "reset_link_expired")
            }
            _ = try await service().confirmEmailChange(token: token)
            let undo = try XCTUnwrap(inbox.lastLink(to: "mina@example.com")).token
            do {
                _ = try await app.withClock(\.accountsEnvironment, ahead: 8 * 86_400) { try await service().undoEmailChange(token: undo) }
                XCTFail("an eight-day-old undo")
            } catch let error as AppError {
                XCTAssertEqual(error.code, "reset_link_expired")
            }
            _ = try await app.withClock(\.accountsEnvironment, ahead: 6 * 86_400) { try await service().undoEmailChange(token: undo) }
        }
    }

    func testTheAccountPageAsksAndTheLinksPagesChangeNothingUntilTheirButton() async throws {
        try await withTestApp { app in
            let inbox = app.mailInbox
            var browser = try await CookieBrowser.signedUp(app, nickname: "바꾸는미나")
            let page = try await browser.get("/me")
            XCTAssertTrue(page.text.contains(#"id="new-email""#))
            let wrong = try await browser.post("/me/email", form: ["email": "next@example.com", "password": "nope-nope-1"])
            XCTAssertEqual(wrong.status, .forbidden)
            let sent = try await browser.post("/me/email", form: ["email": "next@example.com", "password": "password1"])
            XCTAssertEqual(sent.headers.first(name: .location), "/me?notice=email_sent")
            let link = try XCTUnwrap(inbox.lastLink(to: "next@example.com"))

            let opened = try await browser.get("/confirm-email?token=\(link.token)")
            XCTAssertEqual(opened.status, .ok)
            XCTAssertTrue(opened.text.contains("next@example.com"))
            XCTAssertEqual(opened.headers.first(name: "Referrer-Policy"), "no-referrer")
            let before = try await browser.get("/me")
            XCTAssertFalse(before.text.contains(">next@example.com<"), "opening the link changed nothing")
            let forged = try await browser.post("/confirm-email", form: ["token": link.token], includeCSRF: false)
            XCTAssertEqual(forged.status, .forbidden, "CSRF")
            let done = try await browser.post("/confirm-email", form: ["token": link.token])
            XCTAssertEqual(done.headers.first(name: .location), "/me?notice=email_changed")
            let after = try await browser.get("/me?notice=email_changed")
            XCTAssertTrue(after.text.contains("next@example.com"))
            let used = try await browser.get("/confirm-email?token=\(link.token)")
            XCTAssertEqual(used.status, .gone)
            XCTAssertTrue(used.text.contains(#"id="email-link-problem""#))
            let nonsense = try await browser.get("/undo-email?token=nonsense")
            XCTAssertEqual(nonsense.status, .notFound)
        }
    }
}
