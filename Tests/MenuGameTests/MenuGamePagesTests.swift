import Accounts
import Fluent
import Media
@testable import MenuGame
import Platform
import WhatWeEatTesting
import XCTVapor

/// The menu game's web pages as a browser meets them (cookies, CSRF, redirects), plus the
/// preferences and feedback API they share with native clients.
final class MenuGamePagesTests: XCTestCase {
    /// Finishes onboarding in this browser with these disliked foods.
    private func onboard(_ browser: inout CookieBrowser, disliked: [String] = []) async throws {
        _ = try await browser.get("/play/welcome")
        let saved = try await browser.post("/play/preferences", fields: disliked.map { ("disliked[]", $0) } + [("next", "/play")])
        XCTAssertEqual(saved.status, .seeOther, saved.text)
    }

    /// The tabs and the game are kept whole per disliked foods; each browser's device token is its
    /// own, written into the kept config as a JSON string whatever printable characters it holds.
    func testKeptPagesCarryEachBrowsersOwnDeviceEscaped() async throws {
        try await withTestApp { app in
            var first = CookieBrowser(app: app), second = CookieBrowser(app: app)
            try await onboard(&first)
            try await onboard(&second)
            for path in ["/play", "/play/together", "/play/solo/game"] {
                for browser in [first, second, first] {
                    var browser = browser
                    let page = try await browser.get(path)
                    XCTAssertEqual(page.status, .ok, path)
                    XCTAssertEqual(try pageConfig(page)["device"] as? String, browser.cookies["wwe_device"], path)
                    XCTAssertFalse(page.text.contains("\u{E000}"), "every marker filled (\(path))")
                }
            }
            // The home's menu is drawn per request into the kept page: a picture and a question.
            let home = try await first.get("/play")
            XCTAssertTrue(home.text.range(of: #"<img id="random-image" src="/images/[^"]+" alt width"#, options: .regularExpression) != nil, "the drawn menu's picture")
            XCTAssertTrue(home.text.range(of: #"<h1 id="random-question" class="random-question [a-z-]*" aria-live="polite">[^<]+ 어때요\?</h1>"#,
                                          options: .regularExpression) != nil, "the drawn menu's question")
            // A device cookie someone crafted stays inside its string.
            var crafted = CookieBrowser(app: app)
            try await onboard(&crafted)
            let token = #"evil-device"</script><b>x\"#
            crafted.cookies["wwe_device"] = token
            let page = try await crafted.get("/play/solo/game")
            XCTAssertEqual(page.status, .ok)
            XCTAssertFalse(page.text.contains("<b>x"), "never markup")
            XCTAssertEqual(try pageConfig(page)["device"] as? String, token)
        }
    }

    func testFirstVisitGoesThroughOnboardingAndTheChoiceIsKeptOnTheDevice() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            let first = try await browser.get("/play")
            XCTAssertEqual(first.status, .seeOther)
            XCTAssertEqual(first.headers.first(name: .location), "/play/welcome?next=%2Fplay")
            let device = try XCTUnwrap(browser.cookieAttributes(first, "wwe_device"))
            XCTAssertTrue(device.contains("HttpOnly"), device)

            let welcome = try await browser.get("/play/welcome?next=/play/solo")
            XCTAssertEqual(welcome.status, .ok)
            for food in ["SPICY", "INTESTINE", "SASHIMI", "SEAFOOD", "MEAT"] {
                XCTAssertTrue(welcome.text.contains(#"value="\#(food)""#), food)
            }
            let saved = try await browser.post("/play/preferences", fields: [
                ("disliked[]", "SPICY"), ("disliked[]", "MEAT"), ("next", "/play/solo"),
            ])
            XCTAssertEqual(saved.status, .seeOther)
            XCTAssertEqual(saved.headers.first(name: .location), "/play/solo")
            XCTAssertEqual(browser.cookies["wwe_disliked"], "MEAT.SPICY")
            XCTAssertEqual(browser.cookies["wwe_onboarded"], "1")

            let home = try await browser.get("/play")
            XCTAssertEqual(home.status, .ok)
            XCTAssertTrue(home.text.contains("어때요?"))
            let config = try pageConfig(home)
            XCTAssertEqual(config["disliked"] as? [String], ["MEAT", "SPICY"])
            XCTAssertEqual(config["device"] as? String, browser.cookies["wwe_device"])

            // The settings page shows the same choice, ticked.
            let settings = try await browser.get("/play/settings")
            XCTAssertTrue(settings.text.contains(#"value="SPICY" checked="checked""#))
            XCTAssertFalse(settings.text.contains(#"value="SEAFOOD" checked="checked""#))
            XCTAssertTrue(settings.text.contains(AppVersion.current))
            // The language choice (`Layout.languageSelect`, shared with `/me`): every language, the page's chosen.
            XCTAssertTrue(settings.text.contains(#"<select id="settings-language" name="language"><option value="ko" selected>한국어</option><option value="en">English</option><option value="ja">日本語</option></select>"#),
                          settings.text)

            // The tiles are kept per choice: another browser's choice is its own.
            var other = CookieBrowser(app: app)
            try await onboard(&other, disliked: ["SEAFOOD"])
            let theirs = try await other.get("/play/settings")
            XCTAssertTrue(theirs.text.contains(#"value="SEAFOOD" checked="checked""#))
            XCTAssertFalse(theirs.text.contains(#"value="SPICY" checked="checked""#))
            XCTAssertEqual(theirs.text.components(separatedBy: #"checked="checked""#).count - 1, 1)
            let mineAgain = try await browser.get("/play/settings")
            XCTAssertEqual(mineAgain.text.components(separatedBy: #"checked="checked""#).count - 1, 2)
        }
    }

    func testBadPreferencesAreRefusedAndChangeNothing() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            try await onboard(&browser, disliked: ["SEAFOOD"])
            let notDislikeable = try await browser.post("/play/preferences", fields: [("disliked[]", "COOL"), ("next", "/play")])
            XCTAssertEqual(notDislikeable.status, .unprocessableEntity)
            XCTAssertTrue(notDislikeable.text.contains("못 먹는 음식은"), notDislikeable.text)
            let unknown = try await browser.post("/play/preferences", fields: [("disliked[]", "CHOCOLATE")])
            XCTAssertEqual(unknown.status, .unprocessableEntity)
            XCTAssertEqual(browser.cookies["wwe_disliked"], "SEAFOOD")

            let noToken = try await browser.post("/play/preferences", fields: [("disliked[]", "MEAT")], includeCSRF: false)
            XCTAssertEqual(noToken.status, .forbidden)
            XCTAssertEqual(browser.cookies["wwe_disliked"], "SEAFOOD")

            // A cookie edited by hand cannot smuggle in other flavors.
            browser.cookies["wwe_disliked"] = "COOL.MEAT.%3Cscript%3E"
            let home = try await browser.get("/play")
            XCTAssertEqual(try pageConfig(home)["disliked"] as? [String], ["MEAT"])
        }
    }

    func testSignedInChoicesFollowTheAccountToAnotherBrowser() async throws {
        try await withTestApp { app in
            let tokens = try await app.signUp()
            var laptop = CookieBrowser(app: app)
            _ = try await laptop.get("/login")
            _ = try await laptop.post("/login", form: ["email": "mina@example.com", "password": "password1"])
            try await onboard(&laptop, disliked: ["SASHIMI", "INTESTINE"])

            let api = try await app.send(.GET, "/api/v1/menu-game/preferences", token: tokens.accessToken)
            XCTAssertEqual(api.status, .ok)
            XCTAssertEqual(try api.object()["dislikedFoods"] as? [String], ["INTESTINE", "SASHIMI"])
            XCTAssertEqual(try api.object()["saved"] as? Bool, true)

            // A new browser that signs in skips onboarding and plays with the account's choice.
            var phone = CookieBrowser(app: app)
            _ = try await phone.get("/login")
            _ = try await phone.post("/login", form: ["email": "mina@example.com", "password": "password1"])
            let home = try await phone.get("/play")
            XCTAssertEqual(home.status, .ok)
            XCTAssertEqual(try pageConfig(home)["disliked"] as? [String], ["INTESTINE", "SASHIMI"])

            // The API changes the same record.
            let put = try await app.send(.PUT, "/api/v1/menu-game/preferences", json: ["dislikedFoods": ["MEAT"]], token: tokens.accessToken)
            XCTAssertEqual(put.status, .ok)
            let again = try await phone.get("/play")
            XCTAssertEqual(try pageConfig(again)["disliked"] as? [String], ["MEAT"])

            // The pages remember the saved choice; another instance's save is written and then
            // announced, and the announcement makes this instance read it again.
            let account = try await User.query(on: app.db).filter(\.$email == "mina@example.com").first()
            let mina = try XCTUnwrap(account?.id)
            try await MenuGamePreference.query(on: app.db).filter(\.$user.$id == mina)
                .set(\.$dislikedFoods, to: ["SPICY"]).update()
            let remembered = try await phone.get("/play")
            XCTAssertEqual(try pageConfig(remembered)["disliked"] as? [String], ["MEAT"], "remembered until announced")
            await app.events.publish(mina.uuidString, to: app.savedDislikesMemory.topic)
            try await waitUntil { try pageConfig(try await phone.get("/play"))["disliked"] as? [String] == ["SPICY"] }
        }
    }

    func testPreferencesAPIContract() async throws {
        try await withTestApp { app in
            let anonymous = try await app.send(.GET, "/api/v1/menu-game/preferences")
            XCTAssertEqual(anonymous.status, .unauthorized)
            let tokens = try await app.signUp()
            let fresh = try await app.send(.GET, "/api/v1/menu-game/preferences", token: tokens.accessToken)
            XCTAssertEqual(try fresh.object()["dislikedFoods"] as? [String], [])
            XCTAssertEqual(try fresh.object()["saved"] as? Bool, false)

            let unknownValue = try await app.send(.PUT, "/api/v1/menu-game/preferences", raw: #"{"dislikedFoods": ["CHOCOLATE"]}"#, token: tokens.accessToken)
            XCTAssertEqual(unknownValue.status, .badRequest)
            let notDislikeable = try await app.send(.PUT, "/api/v1/menu-game/preferences", json: ["dislikedFoods": ["HOT"]], token: tokens.accessToken)
            XCTAssertEqual(notDislikeable.status, .unprocessableEntity)
            XCTAssertEqual(notDislikeable.errorCode, "invalid_disliked_food")
            let missing = try await app.send(.PUT, "/api/v1/menu-game/preferences", raw: "{}", token: tokens.accessToken)
            XCTAssertEqual(missing.status, .badRequest)
            let after = try await app.send(.GET, "/api/v1/menu-game/preferences", token: tokens.accessToken)
            XCTAssertEqual(try after.object()["saved"] as? Bool, false)
        }
    }

    func testCreatingAGroupOpensItsLobbyWithAQRCodeOfTheJoinLink() async throws {
        try await withTestApp { app in
            var host = CookieBrowser(app: app)
            try await onboard(&host)
            _ = try await host.get("/play/together")
            let created = try await host.post("/play/together/create", form: [:])
            XCTAssertEqual(created.status, .seeOther)
            let location = try XCTUnwrap(created.headers.first(name: .location))
            XCTAssertTrue(location.range(of: #"^/play/groups/[1-9][0-9]{5}$"#, options: .regularExpression) != nil, location)
            let pin = String(location.suffix(6))

            let lobby = try await host.get(location)
            XCTAssertEqual(lobby.status, .ok)
            XCTAssertTrue(lobby.text.contains("그룹을 만들었어요"))   // the host's lobby
            XCTAssertTrue(lobby.text.contains("/join/\(pin)"))

            let qr = try await host.get("/play/groups/\(pin)/qr.svg")
            XCTAssertEqual(qr.status, .ok)
            XCTAssertEqual(qr.headers.contentType?.subType, "svg+xml")
            XCTAssertTrue(qr.text.hasPrefix("<svg"))
            let expected = try QRCode(encoding: "\(app.settings.publicURL)/join/\(pin)")
            XCTAssertTrue(qr.text.contains(#"viewBox="0 0 \#(expected.size + 8) \#(expected.size + 8)""#), qr.text)

            // Someone else's view of the same lobby is a member's.
            var friend = CookieBrowser(app: app)
            try await onboard(&friend)
            let viaLink = try await friend.get("/join/\(pin)")
            XCTAssertEqual(viaLink.headers.first(name: .location), "/play/groups/\(pin)")
            let memberLobby = try await friend.get("/play/groups/\(pin)")
            XCTAssertTrue(memberLobby.text.contains("모임에 참여해요"))

            let injected = try await friend.get("/join/12%0D%0ASet-Cookie:%20evil")
            XCTAssertEqual(injected.headers.first(name: .location), "/play/groups/12", "only digits reach the redirect")

            let unknownQR = try await host.get("/play/groups/100000/qr.svg")
            XCTAssertEqual(unknownQR.status, .notFound)
        }
    }

    func testTheQRCodeFitsALongPublicURL() async throws {
        let longURL = "https://" + String(repeating: "a", count: 190) + ".example.com"
        try await withTestApp(adjust: { $0.publicURL = longURL }) { app in
            let group = try await app.send(.POST, "/api/v1/menu-game/groups", headers: ["X-Device-Token": "host-device-token-0001"])
            let pin = try XCTUnwrap(try group.object()["pin"] as? String)
            XCTAssertThrowsError(try QRCode(encoding: "\(longURL)/join/\(pin)"), "too long for level M")
            let qr = try await app.send(.GET, "/play/groups/\(pin)/qr.svg")
            XCTAssertEqual(qr.status, .ok)
            XCTAssertTrue(qr.text.hasPrefix("<svg"))
        }
    }

    func testJoiningWithAWrongPINStaysOnTheTogetherTabWithTheError() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            try await onboard(&browser)
            _ = try await browser.get("/play/together")
            let wrong = try await browser.post("/play/together/join", form: ["pin": "123456"])
            XCTAssertEqual(wrong.status, .notFound)
            XCTAssertTrue(wrong.text.contains("그런 PIN의 모임이 없어요"))
            XCTAssertTrue(wrong.text.contains(#"value="123456""#))
            XCTAssertTrue(wrong.text.contains(#"aria-invalid="true""#))
            let malformed = try await browser.post("/play/together/join", form: ["pin": "<b>12"])
            XCTAssertEqual(malformed.status, .notFound)
            XCTAssertFalse(malformed.text.contains("<b>12"))

            let link = try await browser.get("/play/groups/123456")
            XCTAssertEqual(link.headers.first(name: .location), "/play/together?error=group_not_found&pin=123456")

            let group = try await app.send(.POST, "/api/v1/menu-game/groups", headers: ["X-Device-Token": "host-device-token-0001"])
            let pin = try XCTUnwrap(try group.object()["pin"] as? String)
            let right = try await browser.post("/play/together/join", form: ["pin": pin])
            XCTAssertEqual(right.status, .seeOther)
            XCTAssertEqual(right.headers.first(name: .location), "/play/groups/\(pin)/game")
        }
    }

    func testTheWaitingRoomFollowsTheCountAndGivesOnlyTheHostTheirOwnToken() async throws {
        try await withTestApp { app in
            var host = try await CookieBrowser.signedUp(app, nickname: "방장")
            try await onboard(&host)
            let created = try await host.post("/play/together/create", form: [:])
            let pin = String(try XCTUnwrap(created.headers.first(name: .location)).suffix(6))
            var friend = try await CookieBrowser.signedUp(app, nickname: "친구")
            try await onboard(&friend)
            _ = try await friend.get("/play/groups/\(pin)")
            for browser in [host, friend] {
                let device = try XCTUnwrap(browser.cookies["wwe_device"])
                let submitted = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/submission",
                                                   json: ["gameAnswer": ["rice": true]], headers: ["X-Device-Token": device])
                XCTAssertEqual(submitted.status, .ok, submitted.text)
            }
            let hostsPage = try await host.get("/play/groups/\(pin)/wait")
            XCTAssertEqual(hostsPage.status, .ok)
            XCTAssertTrue(hostsPage.text.contains(#"id="close-game""#))
            XCTAssertTrue(hostsPage.text.contains(#"id="submission-count">2<"#))
            let hostsConfig = try pageConfig(hostsPage)
            XCTAssertEqual(hostsConfig["device"] as? String, host.cookies["wwe_device"])
            XCTAssertNotNil(UUID(uuidString: hostsConfig["me"] as? String ?? ""), "the host closes as their account")
            XCTAssertFalse((hostsConfig["accessToken"] as? String ?? "").isEmpty)
            // The same page again for the host is this request's token and device, not another's.
            let again = try pageConfig(try await host.get("/play/groups/\(pin)/wait"))
            XCTAssertEqual(again["me"] as? String, hostsConfig["me"] as? String)

            let friendsPage = try await friend.get("/play/groups/\(pin)/wait")
            XCTAssertFalse(friendsPage.text.contains(#"id="close-game""#))
            let friendsConfig = try pageConfig(friendsPage)
            XCTAssertNil(friendsConfig["me"], "only the host's page carries an account")
            XCTAssertNil(friendsConfig["accessToken"])
            XCTAssertEqual(friendsConfig["device"] as? String, friend.cookies["wwe_device"])

            // A third answer shows at once: the page is kept by the room as read.
            let third = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/submission",
                                           json: ["gameAnswer": ["rice": false]], headers: ["X-Device-Token": "third-device-token-0003"])
            XCTAssertEqual(third.status, .ok, third.text)
            let moved = try await friend.get("/play/groups/\(pin)/wait")
            XCTAssertTrue(moved.text.contains(#"id="submission-count">3<"#), moved.text)
        }
    }

    func testAWaitingBrowserReturnsToItsWaitingRoomAndThenToTheResults() async throws {
        try await withTestApp { app in
            var player = CookieBrowser(app: app)
            try await onboard(&player)
            let hostToken = "host-device-token-0001"
            let group = try await app.send(.POST, "/api/v1/menu-game/groups", headers: ["X-Device-Token": hostToken])
            let pin = try XCTUnwrap(try group.object()["pin"] as? String)

            // What the game page's script does: submit with the page's device token, then mark the wait.
            let device = try XCTUnwrap(player.cookies["wwe_device"])
            let submitted = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/submission",
                                               json: ["gameAnswer": ["rice": true]], headers: ["X-Device-Token": device])
            XCTAssertEqual(submitted.status, .ok, submitted.text)
            player.cookies["wwe_waiting"] = pin

            for path in ["/play", "/play/together"] {
                let back = try await player.get(path)
                XCTAssertEqual(back.headers.first(name: .location), "/play/groups/\(pin)/wait", path)
            }
            let waiting = try await player.get("/play/groups/\(pin)/wait")
            XCTAssertEqual(waiting.status, .ok)
            XCTAssertTrue(waiting.text.contains(#"id="submission-count">1<"#))
            XCTAssertFalse(waiting.text.contains(#"id="close-game""#))   // not the host
            let early = try await player.get("/play/groups/\(pin)/result")
            XCTAssertEqual(early.headers.first(name: .location), "/play/groups/\(pin)/wait")

            let closed = try await app.send(.POST, "/api/v1/menu-game/groups/\(pin)/close", headers: ["X-Device-Token": hostToken])
            XCTAssertEqual(closed.status, .ok)
            let winner = try XCTUnwrap((try closed.object()["menus"] as? [[String: Any]])?.first?["id"] as? String)

            let toResults = try await player.get("/play/groups/\(pin)/wait")
            XCTAssertEqual(toResults.headers.first(name: .location), "/play/groups/\(pin)/result")
            let result = try await player.get("/play/groups/\(pin)/result")
            XCTAssertEqual(result.status, .ok)
            let frozen = try XCTUnwrap(try pageConfig(result)["result"] as? [String: Any])
            XCTAssertEqual((frozen["menus"] as? [[String: Any]])?.first?["id"] as? String, winner)
            XCTAssertEqual(frozen["playerCount"] as? Int, 1)
            XCTAssertNil(player.cookies["wwe_waiting"])   // the game is over for this browser
            // The encoded result is kept per language: an English reader gets English names.
            let english = try await app.send(.GET, "/play/groups/\(pin)/result", headers: ["Accept-Language": "en"])
            let englishResult = try XCTUnwrap(try pageConfig(english)["result"] as? [String: Any])
            let koreanName = (frozen["menus"] as? [[String: Any]])?.first?["displayName"] as? String
            let englishName = (englishResult["menus"] as? [[String: Any]])?.first?["displayName"] as? String
            XCTAssertEqual(englishName, ((frozen["menus"] as? [[String: Any]])?.first?["name"] as? [String: Any])?["en"] as? String)
            XCTAssertNotEqual(englishName, koreanName)

            let home = try await player.get("/play")
            XCTAssertEqual(home.status, .ok)
        }
    }

    func testFeedbackIsStoredForAdministratorsOnly() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            try await onboard(&browser)
            _ = try await browser.get("/play/settings")
            let blank = try await browser.post("/play/feedback", form: ["message": "   "])
            XCTAssertEqual(blank.status, .unprocessableEntity)
            XCTAssertTrue(blank.text.contains("보낼 내용을 적어 주세요."))
            let tooLong = try await browser.post("/play/feedback", form: ["message": String(repeating: "가", count: 2001)])
            XCTAssertEqual(tooLong.status, .unprocessableEntity)
            let sent = try await browser.post("/play/feedback", form: ["message": "곱창전골도 넣어 주세요 🙏"])
            XCTAssertEqual(sent.status, .seeOther)
            XCTAssertEqual(sent.headers.first(name: .location), "/play/settings?notice=feedback_sent#feedback")
            let stored = try await MenuGameFeedback.query(on: app.db).count()
            XCTAssertEqual(stored, 1)

            let anonymous = try await app.send(.GET, "/api/v1/menu-game/feedback")
            XCTAssertEqual(anonymous.status, .unauthorized)
            let user = try await app.signUp()
            let forbidden = try await app.send(.GET, "/api/v1/menu-game/feedback", token: user.accessToken)
            XCTAssertEqual(forbidden.status, .forbidden)

            let apiNote = try await app.send(.POST, "/api/v1/menu-game/feedback", json: ["message": "Great app"], token: user.accessToken,
                                             headers: ["Accept-Language": "en"])
            XCTAssertEqual(apiNote.status, .created)
            let badBody = try await app.send(.POST, "/api/v1/menu-game/feedback", raw: #"{"message": 5}"#)
            XCTAssertEqual(badBody.status, .badRequest)

            let admin = try await app.signUpAdmin()
            let list = try await app.send(.GET, "/api/v1/menu-game/feedback?limit=1", token: admin.accessToken)
            XCTAssertEqual(list.status, .ok)
            let page = try list.object()
            let first = try XCTUnwrap((page["items"] as? [[String: Any]])?.first)
            XCTAssertEqual(first["message"] as? String, "Great app")
            XCTAssertEqual(first["language"] as? String, "en")
            // The same notes in the browser, for administrators only.
            let notAdminPage = try await browser.get("/play/feedback")
            XCTAssertEqual(notAdminPage.headers.first(name: .location), "/login?next=/play/feedback")
            var adminBrowser = CookieBrowser(app: app)
            _ = try await adminBrowser.get("/login")
            _ = try await adminBrowser.post("/login", form: ["email": "boss@example.com", "password": "password1"])
            let inbox = try await adminBrowser.get("/play/feedback")
            XCTAssertEqual(inbox.status, .ok)
            XCTAssertTrue(inbox.text.contains("곱창전골도 넣어 주세요 🙏") && inbox.text.contains("Great app"))
            var userBrowser = CookieBrowser(app: app)
            _ = try await userBrowser.get("/login")
            _ = try await userBrowser.post("/login", form: ["email": "mina@example.com", "password": "password1"])
            let refused = try await userBrowser.get("/play/feedback")
            XCTAssertEqual(refused.status, .forbidden)

            let cursor = try XCTUnwrap(page["nextCursor"] as? String)
            let second = try await app.send(.GET, "/api/v1/menu-game/feedback?limit=1&cursor=\(cursor)", token: admin.accessToken)
            let anonymousNote = try XCTUnwrap((try second.object()["items"] as? [[String: Any]])?.first)
            XCTAssertEqual(anonymousNote["message"] as? String, "곱창전골도 넣어 주세요 🙏")
            XCTAssertTrue(anonymousNote["userID"] is NSNull, "an anonymous note's author is an explicit null")

            // The inbox is kept until a note is left (on any instance): a new note shows at once,
            // one written behind the store's back only once an instance says notes changed.
            let apiLater = try await app.send(.POST, "/api/v1/menu-game/feedback", json: ["message": "한 줄 더"], token: user.accessToken)
            XCTAssertEqual(apiLater.status, .created)
            let fresh = try await adminBrowser.get("/play/feedback")
            XCTAssertTrue(fresh.text.contains("한 줄 더"), "a new note shows on the next view")
            try await Task.sleep(for: .milliseconds(100))
            _ = try await adminBrowser.get("/play/feedback")
            let behind = MenuGameFeedback()
            behind.message = "몰래 남긴 말"
            behind.language = "ko"
            try await behind.create(on: app.db)
            let kept = try await adminBrowser.get("/play/feedback")
            XCTAssertFalse(kept.text.contains("몰래 남긴 말"), "kept until told")
            await app.events.publish("changed", to: app.menuGameEnvironment.feedback.topic)
            try await Task.sleep(for: .milliseconds(50))
            let told = try await adminBrowser.get("/play/feedback")
            XCTAssertTrue(told.text.contains("몰래 남긴 말"), "another instance's note shows")
        }
    }

    func testFeedbackIsRateLimitedPerAddress() async throws {
        try await withTestApp { app in
            for index in 0..<5 {
                let sent = try await app.send(.POST, "/api/v1/menu-game/feedback", json: ["message": "note \(index)"])
                XCTAssertEqual(sent.status, .created)
            }
            let limited = try await app.send(.POST, "/api/v1/menu-game/feedback", json: ["message": "one more"])
            XCTAssertEqual(limited.status, .tooManyRequests)
            XCTAssertNotNil(limited.headers.first(name: "Retry-After"))
            let stored = try await MenuGameFeedback.query(on: app.db).count()
            XCTAssertEqual(stored, 5)
        }
    }

    func testOtherPagesAnswerAndEscapeWhatTheyEcho() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            let licenses = try await browser.get("/licenses")
            XCTAssertEqual(licenses.status, .ok)
            XCTAssertTrue(licenses.text.contains("Vapor"))

            try await onboard(&browser)
            for path in ["/play/solo", "/play/solo/game", "/play/result", "/play/together", "/play/settings"] {
                let page = try await browser.get(path)
                XCTAssertEqual(page.status, .ok, path)
            }
            let home = try await browser.get("/")
            XCTAssertTrue(home.text.contains(#"href="/play""#))
        }
    }
}
