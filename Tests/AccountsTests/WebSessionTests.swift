@testable import Accounts
import Fluent
import Platform
import WhatWeEatTesting
import XCTVapor

final class WebSessionTests: XCTestCase {
    func testSignUpInTheBrowserLandsOnMyPageWithASafeCookie() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            let form = try await browser.get("/signup")
            XCTAssertEqual(form.status, .ok)
            XCTAssertNotNil(browser.lastCSRFToken)
            let csrfCookie = try XCTUnwrap(browser.cookieAttributes(form, "wwe_csrf"))
            XCTAssertTrue(csrfCookie.contains("HttpOnly"))

            let created = try await browser.post("/signup", form: ["email": "mina@example.com", "nickname": "미나", "password": "password1"])
            XCTAssertEqual(created.status, .seeOther)
            XCTAssertEqual(created.headers.first(name: .location), "/?welcome=1", "back where it started (the home page), welcomed")
            let welcomed = try await browser.get("/?welcome=1")
            XCTAssertTrue(welcomed.text.contains(#"id="welcome""#) && welcomed.text.contains("미나님, 반가워요!"))
            // It points at the site's services, and only those it runs (this site runs none).
            XCTAssertFalse(welcomed.text.contains(#"href="/shop""#) || welcomed.text.contains(#"href="/map""#), "no link to a service this site does not run")
            let session = try XCTUnwrap(browser.cookieAttributes(created, "wwe_session"))
            XCTAssertTrue(session.contains("HttpOnly"), session)
            XCTAssertTrue(session.contains("SameSite=Lax"), session)

            let me = try await browser.get("/me")
            XCTAssertEqual(me.status, .ok)
            XCTAssertTrue(me.text.contains("미나"))
            XCTAssertTrue(me.text.contains("mina@example.com"))
        }
    }

    func testFormsWithoutTheCSRFTokenAreRefusedAndChangeNothing() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/signup")
            let missing = try await browser.post("/signup", form: ["email": "mina@example.com", "nickname": "미나", "password": "password1"], includeCSRF: false)
            XCTAssertEqual(missing.status, .forbidden)
            XCTAssertTrue(missing.text.contains("새로고침"), "the page explains what to do")
            let forged = try await browser.post("/signup", form: ["_csrf": "forged", "email": "mina@example.com", "nickname": "미나", "password": "password1"], includeCSRF: false)
            XCTAssertEqual(forged.status, .forbidden)

            // A token from another browser (another cookie) does not work either.
            var other = CookieBrowser(app: app)
            _ = try await other.get("/signup")
            let stolen = try await browser.post("/signup", form: ["_csrf": other.lastCSRFToken ?? "", "email": "mina@example.com", "nickname": "미나", "password": "password1"], includeCSRF: false)
            XCTAssertEqual(stolen.status, .forbidden)
            let count = try await User.query(on: app.db).count()
            XCTAssertEqual(count, 0)
        }
    }

    func testSignUpErrorsShowOnTheFormAndKeepWhatWasTyped() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/signup")
            let response = try await browser.post("/signup", form: ["email": "mina@example.com", "nickname": "미나", "password": "short"])
            XCTAssertEqual(response.status, .unprocessableEntity)
            XCTAssertTrue(response.text.contains("비밀번호는 8자 이상이어야 해요."))
            XCTAssertTrue(response.text.contains("value=\"mina@example.com\""))
            XCTAssertFalse(response.text.contains("value=\"short\""), "a password that broke a rule is typed again")

            // Every problem at once, each beside its field; a valid password is kept while the rest is fixed.
            _ = try await app.signUp("taken@example.com", nickname: "먹보")
            let both = try await browser.post("/signup", form: ["email": "taken@example.com", "nickname": "먹보", "password": "password1", "next": "/shop/cart"])
            XCTAssertEqual(both.status, .conflict)
            XCTAssertTrue(both.text.contains(#"id="email-error""#) && both.text.contains(#"id="nickname-error""#), both.text)
            XCTAssertTrue(both.text.contains("아래 표시한 항목을 고쳐 주세요."))
            XCTAssertTrue(both.text.contains(#"value="password1""#), "the valid password is kept")
            XCTAssertTrue(both.text.contains(#"aria-invalid="true""#))
            XCTAssertTrue(both.text.contains(#"name="next" value="/shop/cart""#), "where it started is kept")
            let fixed = try await browser.post("/signup", form: ["email": "mina2@example.com", "nickname": "미나둘", "password": "password1", "next": "/shop/cart"])
            XCTAssertEqual(fixed.headers.first(name: .location), "/shop/cart?welcome=1")
            var stranger = CookieBrowser(app: app)
            _ = try await stranger.get("/signup")
            let offSite = try await stranger.post("/signup", form: ["email": "x@example.com", "nickname": "엑스", "password": "password1", "next": "//evil.example"])
            XCTAssertEqual(offSite.headers.first(name: .location), "/?welcome=1")
            XCTAssertNotEqual(offSite.headers.first(name: .location)?.hasPrefix("//"), true, "never off the site")
        }
    }

    /// The UX review: going from the sign-in page to sign-up forgot the page the person came
    /// from. Both pages carry it (the `next` asked for, else the page the link was followed from)
    /// in their switch links, and a new account lands back there.
    func testSwitchingBetweenSignInAndSignUpKeepsWhereYouWere() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            let login = try await browser.get("/login", extraHeaders: ["Referer": "http://localhost:8080/map/places/abc?tab=reviews", "Host": "localhost:8080"])
            XCTAssertTrue(login.text.contains(#"name="next" value="/map/places/abc?tab=reviews""#), "the header's link: where it was followed from")
            XCTAssertTrue(login.text.contains(#"<a id="to-signup" href="/signup?next=/map/places/abc%3Ftab%3Dreviews">"#), login.text)
            let signup = try await browser.get("/signup?next=/map/places/abc%3Ftab%3Dreviews")
            XCTAssertTrue(signup.text.contains(#"name="next" value="/map/places/abc?tab=reviews""#))
            XCTAssertTrue(signup.text.contains(#"<a id="to-login" href="/login?next=/map/places/abc%3Ftab%3Dreviews">"#))
            let created = try await browser.post("/signup", form: ["email": "new@example.com", "nickname": "새사람", "password": "password1",
                                                                    "next": "/map/places/abc?tab=reviews"])
            XCTAssertEqual(created.headers.first(name: .location), "/map/places/abc?tab=reviews&welcome=1")
            // Another site, or the sign-in pages themselves, are never where one is sent back.
            var other = CookieBrowser(app: app)
            for referer in ["https://evil.example/x", "http://localhost:8080/signup", "http://localhost:8080/login"] {
                let page = try await other.get("/login", extraHeaders: ["Referer": referer, "Host": "localhost:8080"])
                XCTAssertTrue(page.text.contains(#"<a id="to-signup" href="/signup">"#), referer)
            }
        }
    }

    func testLogInLogOutAndProtectedPages() async throws {
        try await withTestApp { app in
            try await app.signUp()
            var browser = CookieBrowser(app: app)
            let anonymous = try await browser.get("/me")
            XCTAssertEqual(anonymous.status, .seeOther)
            XCTAssertEqual(anonymous.headers.first(name: .location), "/login?next=/me")

            _ = try await browser.get("/login?next=/me")
            let wrong = try await browser.post("/login", form: ["email": "mina@example.com", "password": "wrong-password", "next": "/me"])
            XCTAssertEqual(wrong.status, .unauthorized)
            XCTAssertTrue(wrong.text.contains("이메일 또는 비밀번호가 맞지 않아요."))

            let offsite = try await browser.post("/login", form: ["email": "mina@example.com", "password": "password1", "next": "//evil.example/"])
            XCTAssertEqual(offsite.headers.first(name: .location), "/me", "never redirects to another site")
            let me = try await browser.get("/me")
            XCTAssertEqual(me.status, .ok)

            let out = try await browser.post("/logout", form: [:])
            XCTAssertEqual(out.status, .seeOther)
            let after = try await browser.get("/me")
            XCTAssertEqual(after.status, .seeOther, "the session cookie no longer signs in")
            let revoked = try await AuthSession.query(on: app.db).filter(\.$kind == .web).filter(\.$revokedAt != nil).count()
            XCTAssertEqual(revoked, 1)
        }
    }

    func testProfileChangesAndWithdrawalInTheBrowser() async throws {
        try await withTestApp { app in
            try await app.signUp("joon@example.com", nickname: "준서")
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/signup")
            _ = try await browser.post("/signup", form: ["email": "mina@example.com", "nickname": "미나", "password": "password1"])
            _ = try await browser.get("/me")

            let taken = try await browser.post("/me/profile", form: ["nickname": "준서", "language": "ko"])
            XCTAssertEqual(taken.status, .conflict)
            XCTAssertTrue(taken.text.contains("이미 사용 중인 닉네임이에요."))

            let saved = try await browser.post("/me/profile", form: ["nickname": "미나리", "language": "en"])
            XCTAssertEqual(saved.headers.first(name: .location), "/me?notice=profile_saved")
            let page = try await browser.get("/me?notice=profile_saved")
            XCTAssertTrue(page.text.contains("Profile saved."), "the saved language applies at once")
            XCTAssertTrue(page.text.contains("미나리"))

            let wrong = try await browser.post("/me/withdraw", form: ["password": "nope-nope"])
            XCTAssertEqual(wrong.status, .forbidden)
            let gone = try await browser.post("/me/withdraw", form: ["password": "password1"])
            XCTAssertEqual(gone.headers.first(name: .location), "/?notice=withdrawn")
            let remaining = try await User.query(on: app.db).all().map(\.email)
            XCTAssertEqual(remaining, ["joon@example.com"])
        }
    }

    /// The password form on `/me`: the current password first, a new one that keeps the rules;
    /// a change signs out every other browser and app of the account, and this browser stays.
    func testChangingThePasswordInTheBrowserSignsOutEveryOtherSession() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/signup")
            _ = try await browser.post("/signup", form: ["email": "pw@example.com", "nickname": "비번", "password": "password1"])
            let page = try await browser.get("/me")
            XCTAssertTrue(page.text.contains(#"action="/me/password""#))
            XCTAssertTrue(page.text.contains(#"autocomplete="current-password""#) && page.text.contains(#"autocomplete="new-password""#))
            let phone = try await app.logIn("pw@example.com")

            let forged = try await browser.post("/me/password", form: ["currentPassword": "password1", "newPassword": "password2"], includeCSRF: false)
            XCTAssertEqual(forged.status, .forbidden, "no token, no change")
            let wrong = try await browser.post("/me/password", form: ["currentPassword": "nope-nope", "newPassword": "password2"])
            XCTAssertEqual(wrong.status, .forbidden)
            XCTAssertTrue(wrong.text.contains("비밀번호가 맞지 않아요."), "the page says why")
            let short = try await browser.post("/me/password", form: ["currentPassword": "password1", "newPassword": "short"])
            XCTAssertEqual(short.status, .unprocessableEntity)
            let stillIn = try await app.send(.GET, "/api/v1/me", token: phone.accessToken)
            XCTAssertEqual(stillIn.status, .ok, "a refused change ends nothing")

            let changed = try await browser.post("/me/password", form: ["currentPassword": "password1", "newPassword": "password2"])
            XCTAssertEqual(changed.headers.first(name: .location), "/me?notice=password_changed")
            let notice = try await browser.get("/me?notice=password_changed")
            XCTAssertEqual(notice.status, .ok, "this browser stays signed in")
            XCTAssertTrue(notice.text.contains("비밀번호를 바꿨어요."))
            let signedOut = try await app.send(.GET, "/api/v1/me", token: phone.accessToken)
            XCTAssertEqual(signedOut.status, .unauthorized, "the app's session ended")
            _ = try await app.logIn("pw@example.com", password: "password2")
        }
    }

    func testLanguageSwitchChangesThePages() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            let korean = try await browser.get("/login")
            XCTAssertTrue(korean.text.contains("<html lang=\"ko\""))
            let switched = try await browser.post("/language", form: ["language": "ja", "next": "/login"])
            XCTAssertEqual(switched.headers.first(name: .location), "/login")
            let japanese = try await browser.get("/login")
            XCTAssertTrue(japanese.text.contains("<html lang=\"ja\""))
            XCTAssertTrue(japanese.text.contains("ログイン"))
            let bad = try await browser.post("/language", form: ["language": "xx", "next": "/"])
            XCTAssertEqual(bad.status, .badRequest)
        }
    }
}
