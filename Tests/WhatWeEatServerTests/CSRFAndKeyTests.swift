import Accounts
import Banchan
import BanchanApp
import BurgerMap
import Fluent
import LookForRealBurgerApp
import Mates
import MenuGame
import Platform
import SesacStudyApp
import SocketIO
import WhatWeEatServer
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// The security probe of 2026-11-22, items 2 and 12: the CSRF token was HMAC(JWT secret, a nonce
/// the client chose), so the login page signed any JWT an attacker asked for, and a nonce and
/// token pair planted in a victim's browser worked for the victim's session.
final class CSRFAndKeyTests: XCTestCase {
    /// The probe's reproduction, step by step: it gave 200 before the keys were separated.
    func testTheLoginPageNoLongerSignsAccessTokens() async throws {
        try await withTestApp { app in
            let credentials = try await app.signUp()
            let parts = credentials.accessToken.split(separator: ".")
            var payload = try XCTUnwrap(try JSONSerialization.jsonObject(with: XCTUnwrap(Data(base64URLEncoded: String(parts[1])))) as? [String: Any])
            payload["exp"] = 4_102_444_800  // the year 2100
            let header = Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8).base64URLEncodedString()
            let body = try JSONSerialization.data(withJSONObject: payload).base64URLEncodedString()
            let signingInput = "\(header).\(body)"

            let page = try await app.send(.GET, "/login", headers: ["Accept": "text/html", "Cookie": "wwe_csrf=\(signingInput)"])
            XCTAssertEqual(page.status, .ok)
            let token = try XCTUnwrap(Self.formToken(page.text))
            let forged = try await app.send(.GET, "/api/v1/me", token: "\(signingInput).\(token)")
            XCTAssertEqual(forged.status, .unauthorized, "a CSRF token is never a valid token signature")
            // And the cookie the client chose was not adopted: the server made its own.
            let issued = try XCTUnwrap(page.headers[.setCookie].first { $0.hasPrefix("wwe_csrf=") })
            XCTAssertFalse(issued.contains(signingInput))
        }
    }

    func testEveryPurposeHasItsOwnKey() {
        let keys = ServerKeys(secret: "test-secret-that-is-long-enough-for-hs256-000")
        let all = [keys.accessTokens, keys.csrfNonce, keys.csrfToken, keys.refreshSuccessor].map { $0.withUnsafeBytes { Data($0) } }
        XCTAssertEqual(Set(all).count, 4)
        XCTAssertFalse(all.contains(Data("test-secret-that-is-long-enough-for-hs256-000".utf8)), "no key is the secret itself")
        XCTAssertEqual(all.first?.count, 32)
        let again = ServerKeys(secret: "test-secret-that-is-long-enough-for-hs256-000")
        XCTAssertEqual(again.csrfToken.withUnsafeBytes { Data($0) }, all[2], "derived, not random: every instance agrees")
    }

    /// A nonce cookie the server did not make is replaced, and a form posted with it fails.
    func testOnlyServerMadeNoncesAreAccepted() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()  // its seed reviewers would count as accounts
            let chosen = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
            let page = try await app.send(.GET, "/signup", headers: ["Accept": "text/html", "Cookie": "wwe_csrf=\(chosen)"])
            let issued = try XCTUnwrap(page.headers[.setCookie].first { $0.hasPrefix("wwe_csrf=") })
            XCTAssertFalse(issued.hasPrefix("wwe_csrf=\(chosen)"))
            let token = try XCTUnwrap(Self.formToken(page.text))
            let post = try await app.send(
                .POST, "/signup", raw: "email=a%40example.com&nickname=abc&password=password1&_csrf=\(token)",
                headers: ["Accept": "text/html", "Cookie": "wwe_csrf=\(chosen)", "Content-Type": "application/x-www-form-urlencoded"])
            XCTAssertEqual(post.status, .forbidden)
            let users = try await User.query(on: app.db).count()
            XCTAssertEqual(users, 0, "nothing was written")
        }
    }

    /// An attacker's own valid pair, planted in a signed-in victim's browser, is refused: the
    /// token is bound to the session it was made for.
    func testAPlantedNonceAndTokenDoNotWorkForSomeoneElsesSession() async throws {
        try await withTestApp { app in
            var attacker = CookieBrowser(app: app)
            _ = try await attacker.get("/login")
            let plantedNonce = try XCTUnwrap(attacker.cookies["wwe_csrf"])
            let plantedToken = try XCTUnwrap(attacker.lastCSRFToken)

            _ = try await app.signUp("victim@example.com", nickname: "victim")
            var victim = CookieBrowser(app: app)
            _ = try await victim.get("/login")
            let signedIn = try await victim.post("/login", form: ["email": "victim@example.com", "password": "password1"])
            XCTAssertEqual(signedIn.status, .seeOther)
            XCTAssertNotEqual(victim.cookies["wwe_csrf"], plantedNonce)

            victim.cookies["wwe_csrf"] = plantedNonce
            victim.lastCSRFToken = plantedToken
            let forced = try await victim.post("/me/profile", form: ["nickname": "pwned"])
            XCTAssertEqual(forced.status, .forbidden)
            let nickname = try await User.query(on: app.db).filter(\.$email == "victim@example.com").first()?.nickname
            XCTAssertEqual(nickname, "victim")
        }
    }

    /// Signing in starts a new nonce, and tokens from before (bound to no session) stop working.
    func testSigningInRenewsTheNonceAndOldTokensStopWorking() async throws {
        try await withTestApp { app in
            _ = try await app.signUp("mina@example.com", nickname: "미나")
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/login")
            let before = try XCTUnwrap(browser.cookies["wwe_csrf"])
            let anonymousToken = try XCTUnwrap(browser.lastCSRFToken)
            let signedIn = try await browser.post("/login", form: ["email": "mina@example.com", "password": "password1"])
            XCTAssertNotNil(browser.cookieAttributes(signedIn, "wwe_csrf"), "a new nonce with the session")
            XCTAssertNotEqual(browser.cookies["wwe_csrf"], before)

            browser.lastCSRFToken = anonymousToken
            let stale = try await browser.post("/me/profile", form: ["nickname": "바뀜"])
            XCTAssertEqual(stale.status, .forbidden)
            _ = try await browser.get("/me")
            let fresh = try await browser.post("/me/profile", form: ["nickname": "바뀜"])
            XCTAssertEqual(fresh.status, .seeOther, fresh.text)
        }
    }

    /// Over https the cookie is `__Host-` prefixed (no sibling subdomain can set it) and pages
    /// tell browsers to stay on https.
    func testOverHTTPSTheNonceCookieIsHostOnlyAndHSTSIsSent() async throws {
        try await withTestApp(adjust: { $0.publicURL = "https://eat.example" }) { app in
            let page = try await app.send(.GET, "/login", headers: ["Accept": "text/html"])
            let cookie = try XCTUnwrap(page.headers[.setCookie].first { $0.hasPrefix("__Host-wwe_csrf=") })
            XCTAssertTrue(cookie.contains("Secure") && cookie.contains("Path=/") && !cookie.contains("Domain"), cookie)
            XCTAssertEqual(page.headers.first(name: "Strict-Transport-Security"), "max-age=31536000")
        }
        try await withTestApp { app in
            let page = try await app.send(.GET, "/login", headers: ["Accept": "text/html"])
            XCTAssertNil(page.headers.first(name: "Strict-Transport-Security"), "not over plain http")
        }
    }

    /// (That the check comes before reading, and that bodies are bounded while reading, needs a
    /// streamed body: `ConnectionLimitTests.testFormsAreCheckedBeforeTheirBodyAndBoundedWhileRead`.)

    static func formToken(_ html: String) -> String? {
        guard let range = html.range(of: #"name="_csrf" value=""#) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }
}
