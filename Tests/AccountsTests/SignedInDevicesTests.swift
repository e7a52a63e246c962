@testable import Accounts
import Fluent
import Notifications
import Platform
import WhatWeEatTesting
import XCTVapor

/// The devices an account is signed in on (issue 57): listed for their owner, ended one by one or
/// all but this one; the ended ones' tokens, cookies and sockets stop at once.
final class SignedInDevicesTests: XCTestCase {
    private let sessions = "/api/v1/me/sessions"
    private let iPhoneSafari = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
    private let androidChrome = "Mozilla/5.0 (Linux; Android 14; SM-S921N) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"

    private func logIn(_ app: Application, userAgent: String) async throws -> Application.Credentials {
        let response = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "mina@example.com", "password": "password1"],
                                          headers: ["User-Agent": userAgent])
        XCTAssertEqual(response.status, .ok, response.text)
        return try response.json(Application.Credentials.self)
    }

    func testTheListShowsEachLiveDeviceAndWhichOneIsThis() async throws {
        try await withTestApp { app in
            _ = try await app.signUp("mina@example.com", nickname: "미나")
            let phone = try await logIn(app, userAgent: iPhoneSafari)
            let tablet = try await logIn(app, userAgent: androidChrome)
            _ = try await app.send(.POST, "/api/v1/auth/logout", token: tablet.accessToken)

            let listed = try await app.send(.GET, sessions, token: phone.accessToken)
            XCTAssertEqual(listed.status, .ok, listed.text)
            let items = try XCTUnwrap(try listed.object()["items"] as? [[String: Any]])
            XCTAssertEqual(items.count, 2, "the sign-up's session and the phone's; the signed-out tablet is gone")
            let mine = try XCTUnwrap(items.first { $0["current"] as? Bool == true })
            XCTAssertEqual(mine["device"] as? String, "Safari · iPhone")
            XCTAssertEqual(mine["kind"] as? String, "api")
            XCTAssertNotNil(mine["lastSeenAt"] as? String)
            XCTAssertTrue(mine["place"] is NSNull, "no place is kept for a session")
            XCTAssertEqual(items.filter { $0["current"] as? Bool == true }.count, 1)

            let anonymous = try await app.send(.GET, sessions)
            XCTAssertEqual(anonymous.status, .unauthorized)
        }
    }

    /// The list is kept per account (`SessionCache.deviceLists`): a sign-in elsewhere and a
    /// sign-out each show on the next read of a kept list.
    func testAKeptListFollowsSignInsAndSignOuts() async throws {
        try await withTestApp { app in
            _ = try await app.signUp("mina@example.com", nickname: "미나")
            let phone = try await logIn(app, userAgent: iPhoneSafari)
            func devices() async throws -> [String] {
                let listed = try await app.send(.GET, sessions, token: phone.accessToken)
                XCTAssertEqual(listed.status, .ok, listed.text)
                // The sign-up's session has no user agent: no device name.
                return try XCTUnwrap(try listed.object()["items"] as? [[String: Any]]).map { $0["device"] as? String ?? "?" }.sorted()
            }
            let before = try await devices()
            XCTAssertEqual(before.count, 2)
            let tablet = try await logIn(app, userAgent: androidChrome)
            let withTablet = try await devices()
            XCTAssertEqual(withTablet.count, 3, "the new sign-in is listed")
            XCTAssertTrue(withTablet.contains("Chrome · Android"))
            _ = try await app.send(.POST, "/api/v1/auth/logout", token: tablet.accessToken)
            let after = try await devices()
            XCTAssertEqual(after, before, "the signed-out tablet is gone")
        }
    }

    func testEndingOneDeviceStopsItsTokensAndSocketsAndNobodyElsesCanBeEnded() async throws {
        try await withListeningApp { app, port in
            _ = try await app.signUp("mina@example.com", nickname: "미나")
            let phone = try await logIn(app, userAgent: iPhoneSafari)
            let laptop = try await logIn(app, userAgent: androidChrome)
            let laptopInbox = try await SocketListener.open(app, port: port, token: laptop.accessToken)
            try await waitUntil { !laptopInbox.texts.isEmpty }
            let stranger = try await app.signUp("joon@example.com", nickname: "준호")

            let listing = try await app.send(.GET, sessions, token: phone.accessToken)
            let items = try XCTUnwrap(try listing.object()["items"] as? [[String: Any]])
            let laptopID = try XCTUnwrap(items.first { $0["device"] as? String == "Chrome · Android" }?["id"] as? String)

            let notTheirs = try await app.send(.DELETE, "\(sessions)/\(laptopID)", token: stranger.accessToken)
            XCTAssertEqual(notTheirs.status, .notFound, "another account's device is not there for them")
            XCTAssertEqual(notTheirs.errorCode, "session_not_found")
            let stillThere = try await app.send(.GET, "/api/v1/me", token: laptop.accessToken)
            XCTAssertEqual(stillThere.status, .ok)
            let nonsense = try await app.send(.DELETE, "\(sessions)/not-a-uuid", token: phone.accessToken)
            XCTAssertEqual(nonsense.status, .notFound)
            let otherRoute = try await app.send(.DELETE, "\(sessions)/sign-out-others", token: phone.accessToken)
            XCTAssertEqual(otherRoute.status, .methodNotAllowed, "that path is POST's")
            XCTAssertEqual(otherRoute.headers.first(name: "Allow"), "POST")

            let ended = try await app.send(.DELETE, "\(sessions)/\(laptopID)", token: phone.accessToken)
            XCTAssertEqual(ended.status, .noContent, ended.text)
            try await waitUntil(timeout: .seconds(2)) { laptopInbox.socket.isClosed }
            XCTAssertEqual(laptopInbox.socket.closeCode, OpenSockets.sessionEndedCode)
            let laptopMe = try await app.send(.GET, "/api/v1/me", token: laptop.accessToken)
            XCTAssertEqual(laptopMe.status, .unauthorized)
            let laptopRefresh = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": laptop.refreshToken])
            XCTAssertEqual(laptopRefresh.status, .unauthorized)
            let again = try await app.send(.DELETE, "\(sessions)/\(laptopID)", token: phone.accessToken)
            XCTAssertEqual(again.status, .notFound, "an ended device is ended once")
            let phoneMe = try await app.send(.GET, "/api/v1/me", token: phone.accessToken)
            XCTAssertEqual(phoneMe.status, .ok)
        }
    }

    func testSignOutOthersKeepsOnlyThisDevice() async throws {
        try await withTestApp { app in
            let first = try await app.signUp("mina@example.com", nickname: "미나")
            let phone = try await logIn(app, userAgent: iPhoneSafari)
            let laptop = try await logIn(app, userAgent: androidChrome)
            let browser = try await CookieBrowser.signedIn(app, as: "mina@example.com")

            let signedOut = try await app.send(.POST, "\(sessions)/sign-out-others", token: phone.accessToken)
            XCTAssertEqual(signedOut.status, .ok, signedOut.text)
            XCTAssertEqual(try signedOut.object()["ended"] as? Int, 3)
            for other in [first, laptop] {
                let me = try await app.send(.GET, "/api/v1/me", token: other.accessToken)
                XCTAssertEqual(me.status, .unauthorized)
            }
            var cookieBrowser = browser
            let page = try await cookieBrowser.get("/me")
            XCTAssertEqual(page.status, .seeOther, "the browser's cookie session ended too")
            let listing = try await app.send(.GET, sessions, token: phone.accessToken)
            let items = try XCTUnwrap(try listing.object()["items"] as? [[String: Any]])
            XCTAssertEqual(items.count, 1)
            XCTAssertEqual(items.first?["current"] as? Bool, true)
            let none = try await app.send(.POST, "\(sessions)/sign-out-others", token: phone.accessToken)
            XCTAssertEqual(try none.object()["ended"] as? Int, 0)
        }
    }

    func testTheAccountPageListsDevicesAndSignsOthersOut() async throws {
        try await withTestApp { app in
            _ = try await app.signUp("mina@example.com", nickname: "미나")
            let phone = try await logIn(app, userAgent: iPhoneSafari)
            var browser = try await CookieBrowser.signedIn(app, as: "mina@example.com")
            let page = try await browser.get("/me")
            XCTAssertEqual(page.status, .ok)
            XCTAssertTrue(page.text.contains("Safari · iPhone"), "the phone is listed")
            XCTAssertTrue(page.text.contains("이 기기"))
            XCTAssertTrue(page.text.contains("id=\"sign-out-others\""))

            let forged = try await browser.post("/me/devices/sign-out-others", form: [:], includeCSRF: false)
            XCTAssertEqual(forged.status, .forbidden, "CSRF")
            let stillIn = try await app.send(.GET, "/api/v1/me", token: phone.accessToken)
            XCTAssertEqual(stillIn.status, .ok)

            let unknown = try await browser.post("/me/devices/sign-out", form: ["session": UUID().uuidString])
            XCTAssertEqual(unknown.status, .notFound)
            XCTAssertTrue(unknown.text.contains("이미 로그아웃된 기기예요."), "said on the page")

            let done = try await browser.post("/me/devices/sign-out-others", form: [:])
            XCTAssertEqual(done.status, .seeOther)
            XCTAssertEqual(done.headers.first(name: .location), "/me?notice=others_signed_out")
            let phoneMe = try await app.send(.GET, "/api/v1/me", token: phone.accessToken)
            XCTAssertEqual(phoneMe.status, .unauthorized)
            let after = try await browser.get("/me")
            XCTAssertEqual(after.status, .ok, "this browser stays")
            XCTAssertFalse(after.text.contains("Safari · iPhone"))
        }
    }

    func testASignInFromANewDeviceIsInTheInboxOnceAndItsPushHasASwitch() async throws {
        try await withTestApp { app in
            let mina = try await app.signUp("mina@example.com", nickname: "미나")
            let newDevice = { () async throws -> [[String: Any]] in
                let page = try await app.send(.GET, "/api/v1/notifications", token: mina.accessToken).object()
                return (page["items"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "account_new_device" }
            }
            let signUpOnly = try await newDevice()
            XCTAssertTrue(signUpOnly.isEmpty, "the sign-up is no news")
            _ = try await logIn(app, userAgent: iPhoneSafari)
            var entries = try await newDevice()
            XCTAssertEqual(entries.count, 1)
            XCTAssertEqual(entries.first?["excerpt"] as? String, "Safari · iPhone")
            XCTAssertEqual(entries.first?["link"] as? String, "/me#devices")
            XCTAssertTrue((entries.first?["message"] as? String ?? "").contains("새 기기"), "\(entries)")
            _ = try await logIn(app, userAgent: iPhoneSafari)
            var browser = try await CookieBrowser.signedIn(app, as: "mina@example.com")
            _ = try await browser.get("/me")
            entries = try await newDevice()
            XCTAssertEqual(entries.count, 1, "the same phone again, and a user agent seen at sign-up, are not new")

            var preferences = PushPreferences()
            XCTAssertTrue(PushDeliveries.allows("account_new_device", preferences))
            preferences.account = false
            XCTAssertFalse(PushDeliveries.allows("account_new_device", preferences))
            preferences.social = false
            preferences.account = true
            XCTAssertTrue(PushDeliveries.allows("account_new_device", preferences), "its own switch, not social's")
            let saved = try await app.send(.PUT, "/api/v1/push/preferences", json: ["chat": true, "requests": true, "social": true, "orders": true,
                                                                                    "groupGames": true, "account": false], token: mina.accessToken)
            XCTAssertEqual(saved.status, .ok, saved.text)
            let kept = try await app.send(.PUT, "/api/v1/push/preferences", json: ["chat": true, "requests": true, "social": true, "orders": true,
                                                                                   "groupGames": false], token: mina.accessToken)
            XCTAssertEqual(try kept.object()["account"] as? Bool, false, "a PUT without it leaves it as it was")
        }
    }

    func testLastSeenIsWrittenAtMostEveryFiveMinutesASession() {
        let sightings = SessionSightings()
        let session = UUID(), start = Date()
        XCTAssertTrue(sightings.due(session, now: start))
        XCTAssertFalse(sightings.due(session, now: start.addingTimeInterval(60)))
        XCTAssertTrue(sightings.due(UUID(), now: start.addingTimeInterval(60)), "each session its own")
        XCTAssertTrue(sightings.due(session, now: start.addingTimeInterval(SessionSightings.interval)))
    }

    func testDeviceLabelsNameTheBrowserOrAppAndTheSystem() {
        let cases: [(String?, String?)] = [
            (iPhoneSafari, "Safari · iPhone"),
            (androidChrome, "Chrome · Android"),
            ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15", "Safari · Mac"),
            ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0", "Edge · Windows"),
            ("Mozilla/5.0 (Linux; Android 14; SM-S921N) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36", "Samsung Internet · Android"),
            ("Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", "Firefox · Linux"),
            ("LookForRealBurger/1.0 (com.example.burger; build:1; iOS 17.4.0) Alamofire/5.9.1", "LookForRealBurger · iOS"),
            ("WhatWeEatKit/1.0", "WhatWeEatKit"),
            ("", nil),
            (nil, nil),
        ]
        for (agent, label) in cases {
            XCTAssertEqual(AccountRules.deviceLabel(userAgent: agent), label, agent ?? "nil")
        }
    }
}
