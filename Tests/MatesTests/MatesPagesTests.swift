import Accounts
import Fluent
@testable import Mates
import MatesTesting
import Payments
import Platform
import SesacStudyApp
import WhatWeEatTesting
import XCTVapor

/// The mates pages as a browser fetches them: who may open what (visitor, signed in but not
/// verified, verified, suspended, one of a match or someone else), where the pages send people as
/// their state changes, what the server renders (escaped) and the config the scripts read.
final class MatesPagesTests: XCTestCase {
    // MARK: Helpers

    /// A browser signed up through `/signup`, and the same account as an API `Member` (the id and
    /// the bearer token from a signed-in page's config block).
    func signedInBrowser(_ app: Application, nickname: String) async throws -> (CookieBrowser, Member) {
        var browser = try await CookieBrowser.signedUp(app, nickname: nickname)
        let start = try await browser.get("/mates/start")
        XCTAssertEqual(start.status, .ok)
        let config = try pageConfig(start)
        let token = try XCTUnwrap(config["accessToken"] as? String)
        let id = try XCTUnwrap(UUID(uuidString: try XCTUnwrap(config["me"] as? String)))
        return (browser, Member(id: id, token: token, nickname: nickname))
    }

    /// Verifies an account through the API (a phone code from the inbox) and saves gender, birth
    /// year and ages, as the start and profile pages' scripts would.
    func verify(_ app: Application, _ member: Member, birthYear: Int = 1995, ageMin: Int = 18, ageMax: Int = 65) async throws {
        let inbox = app.codeInbox
        // All test requests come from one address, which may ask for a code once a minute.
        try await app.deleteRows(of: MatesStore.Table.codes)
        let phone = "+8210" + String(format: "%08d", Int.random(in: 0..<100_000_000))
        let sent = try await app.send(.POST, "\(Application.mates)/verification", json: ["channel": "phone", "destination": phone], token: member.token)
        XCTAssertEqual(sent.status, .accepted, sent.text)
        let code = try XCTUnwrap(inbox.last(to: phone))
        let confirmed = try await app.send(.POST, "\(Application.mates)/verification/confirm", json: ["destination": phone, "code": code],
                                           token: member.token)
        XCTAssertEqual(confirmed.status, .ok, confirmed.text)
        let body = Application.MatesProfileBody(gender: "female", birthYear: birthYear, ageMin: ageMin, ageMax: ageMax)
        let saved = try await app.send(.PUT, "\(Application.mates)/profile", json: body, token: member.token)
        XCTAssertEqual(saved.status, .ok, saved.text)
    }

    func verifiedBrowser(_ app: Application, nickname: String, ageMin: Int = 18, ageMax: Int = 65) async throws -> (CookieBrowser, Member) {
        let (browser, member) = try await signedInBrowser(app, nickname: nickname)
        try await verify(app, member, ageMin: ageMin, ageMax: ageMax)
        return (browser, member)
    }

    func tag(_ page: TestingHTTPResponse, _ id: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try openingTag(page, id, file: file, line: line)
    }

    func assertIDs(_ page: TestingHTTPResponse, _ ids: [String], file: StaticString = #filePath, line: UInt = #line) {
        for id in ids { XCTAssertTrue(page.text.contains(#"id="\#(id)""#), "#\(id)", file: file, line: line) }
    }

    func assertRedirect(_ browser: inout CookieBrowser, _ path: String, to location: String,
                        file: StaticString = #filePath, line: UInt = #line) async throws {
        let page = try await browser.get(path)
        XCTAssertEqual(page.status, .seeOther, path, file: file, line: line)
        XCTAssertEqual(page.headers.first(name: .location), location, path, file: file, line: line)
    }

    // MARK: Tests

    func testTheHomeCardLinksMatesAndIsNoLongerComingSoon() async throws {
        try await withTestApp { app in
            var visitor = CookieBrowser(app: app)
            let home = try await visitor.get("/")
            XCTAssertEqual(home.status, .ok)
            let text = home.text
            let link = try XCTUnwrap(text.range(of: #"<a href="/mates">"#), "the mates card links /mates")
            let start = try XCTUnwrap(text.range(of: "<li", options: .backwards, range: text.startIndex..<link.lowerBound))
            let end = try XCTUnwrap(text.range(of: "</li>", range: link.upperBound..<text.endIndex))
            let card = String(text[start.lowerBound..<end.upperBound])
            XCTAssertTrue(card.hasPrefix(#"<li class="service-card">"#), card)
            XCTAssertTrue(card.contains("🤝"), card)
            XCTAssertFalse(card.contains("badge"), "no coming-soon badge: \(card)")
            XCTAssertFalse(text.contains("service-card soon"), "every service is open")
        }
    }

    func testAVisitorSeesTheIntroAndEveryOtherPageAsksToLogIn() async throws {
        try await withTestApp { app in
            var visitor = CookieBrowser(app: app)
            let intro = try await visitor.get("/mates")
            XCTAssertEqual(intro.status, .ok)
            XCTAssertTrue(try tag(intro, "intro-login").contains(#"href="/login?next=/mates/start""#))
            XCTAssertTrue(try tag(intro, "intro-signup").contains(#"href="/signup""#))
            XCTAssertFalse(intro.text.contains(#"id="map""#), "no map for a visitor")
            XCTAssertTrue(try pageConfig(intro)["accessToken"] is NSNull)

            let match = UUID().uuidString.lowercased()
            for path in ["/mates/start", "/mates/profile", "/mates/shop", "/mates/search", "/mates/nearby",
                         "/mates/chat/\(match)", "/mates/review/\(match)", "/mates/report/\(match)"] {
                try await assertRedirect(&visitor, path, to: "/login?next=\(path)")
            }
        }
    }

    func testAnAccountThatHasNotVerifiedIsSentToTheStartUntilItVerifies() async throws {
        try await withTestApp { app in
            var (browser, member) = try await signedInBrowser(app, nickname: "새싹")
            for path in ["/mates", "/mates/profile", "/mates/shop", "/mates/search", "/mates/nearby", "/mates/shop?tab=background",
                         "/mates/chat/\(UUID())", "/mates/review/\(UUID())", "/mates/report/\(UUID())"] {
                try await assertRedirect(&browser, path, to: "/mates/start")
            }
            let start = try await browser.get("/mates/start")
            XCTAssertEqual(start.status, .ok)
            assertIDs(start, ["send-form", "channel-phone", "channel-email", "destination", "send-code", "confirm-form", "code",
                              "countdown", "confirm-code", "resend-code", "change-destination"])
            XCTAssertTrue(try tag(start, "confirm-form").contains(#"hidden="hidden""#), "the code form waits until a code is sent")
            XCTAssertTrue(try tag(start, "channel-email").contains("checked"), "no text-message provider here: email first (MatesSMSTests)")
            XCTAssertFalse(try tag(start, "channel-phone").contains("checked"))
            XCTAssertTrue(start.text.contains(#"src="/js/mates/verify.js""#))
            let config = try pageConfig(start)
            XCTAssertEqual(config["codeSeconds"] as? Int, 300)
            XCTAssertEqual(config["resendSeconds"] as? Int, 60)
            let strings = try XCTUnwrap(config["strings"] as? [String: String])
            XCTAssertFalse(strings.isEmpty, "the scripts get their texts")
            XCTAssertTrue(strings.keys.allSatisfy { $0.hasPrefix("mates.js.") }, "\(strings.keys.sorted())")

            try await verify(app, member)
            try await assertRedirect(&browser, "/mates/start", to: "/mates")
            let home = try await browser.get("/mates")
            XCTAssertEqual(home.status, .ok)
        }
    }

    func testAVerifiedAccountGetsTheMapItsProfileAndTheShop() async throws {
        try await withTestApp { app in
            var (browser, member) = try await verifiedBrowser(app, nickname: "지도보기", ageMin: 21, ageMax: 44)
            let home = try await browser.get("/mates")
            XCTAssertEqual(home.status, .ok)
            assertIDs(home, ["map", "locate", "view-toggle", "people-list", "state-fab", "map-status"])
            let fab = try tag(home, "state-fab")
            XCTAssertTrue(fab.contains(#"href="/mates/search""#), fab)
            XCTAssertTrue(fab.contains(#"data-state="idle""#), fab)
            for gender in ["all", "male", "female"] {
                XCTAssertTrue(home.text.contains(#"data-gender="\#(gender)""#), gender)
            }
            XCTAssertTrue(home.text.contains(#"src="/js/mates/home.js""#))
            let config = try pageConfig(home)
            let map = try XCTUnwrap(config["map"] as? [String: Any])
            XCTAssertNotNil(map["tileURL"] as? String)
            XCTAssertEqual((map["center"] as? [Double])?.count, 2)
            XCTAssertEqual((config["profile"] as? [String: Any])?["nickname"] as? String, "지도보기")
            XCTAssertEqual((config["state"] as? [String: Any])?["state"] as? String, "idle")
            XCTAssertEqual(config["accessToken"] as? String != nil, true, "the scripts call the API as this session")
            XCTAssertEqual(config["me"] as? String, member.id.uuidString)
            XCTAssertNotNil(config["device"] as? String, "the menu game's device token")

            let profile = try await browser.get("/mates/profile")
            XCTAssertEqual(profile.status, .ok)
            assertIDs(profile, ["profile-form", "gender-male", "gender-female", "gender-unspecified", "birth-year", "topic-input",
                                "searchable", "age-min", "age-max", "save-profile", "reputation", "open-shop"])
            XCTAssertTrue(try tag(profile, "gender-female").contains(#"checked="checked""#))
            XCTAssertFalse(try tag(profile, "gender-male").contains("checked"))
            XCTAssertTrue(profile.text.contains(#"<option value="1995" selected="selected">1995</option>"#), "the saved birth year is chosen")
            XCTAssertFalse(profile.text.contains(#"<option value="" selected="selected">"#))
            // The year options are kept per year chosen: another choice shows as chosen at once.
            let changed = try await app.send(.PUT, "/api/v1/mates/profile", json: ["birthYear": 1990], token: member.token)
            XCTAssertEqual(changed.status, .ok, changed.text)
            let rechosen = try await browser.get("/mates/profile")
            XCTAssertTrue(rechosen.text.contains(#"<option value="1990" selected="selected">1990</option>"#))
            XCTAssertFalse(rechosen.text.contains(#"<option value="1995" selected="selected">"#))
            XCTAssertEqual(rechosen.text.components(separatedBy: #"selected="selected""#).count - 1, 1, "one year chosen")
            _ = try await app.send(.PUT, "/api/v1/mates/profile", json: ["birthYear": 1995], token: member.token)
            XCTAssertTrue(try tag(profile, "searchable").contains(#"checked="checked""#))
            XCTAssertTrue(try tag(profile, "age-min").contains(#"value="21""#))
            XCTAssertTrue(try tag(profile, "age-max").contains(#"value="44""#))
            XCTAssertTrue(try tag(profile, "mate-card").contains(#"data-avatar="0""#))
            XCTAssertFalse(profile.text.contains(#"id="suspended-notice""#))
            XCTAssertEqual((try pageConfig(profile)["profile"] as? [String: Any])?["ageMax"] as? Int, 44)

            let shop = try await browser.get("/mates/shop")
            XCTAssertEqual(shop.status, .ok)
            for index in 0..<5 { XCTAssertTrue(shop.text.contains(#"id="item-avatar-\#(index)""#), "avatar \(index)") }
            XCTAssertEqual(shop.text.components(separatedBy: #"id="item-avatar-"#).count - 1, 5)
            XCTAssertFalse(shop.text.contains(#"id="item-background-"#), "faces by default")
            XCTAssertTrue(try tag(shop, "item-avatar-0").contains(#"class="shop-item owned""#), "face 0 is everyone's")
            XCTAssertTrue(try tag(shop, "item-avatar-1").contains(#"class="shop-item""#))
            XCTAssertTrue(try tag(shop, "shop-tab-avatar").contains("aria-current"))
            XCTAssertTrue(app.appStoreVerifier is TestAppStoreVerifier, "tests buy with the test verifier")
            XCTAssertEqual(try pageConfig(shop)["testPurchases"] as? Bool, true)
            let backgrounds = try await browser.get("/mates/shop?tab=background")
            XCTAssertEqual(backgrounds.status, .ok)
            XCTAssertEqual(backgrounds.text.components(separatedBy: #"id="item-background-"#).count - 1, 8)
            XCTAssertFalse(backgrounds.text.contains(#"id="item-avatar-"#))
            XCTAssertTrue(try tag(backgrounds, "item-background-0").contains(#"class="shop-item owned""#))
            XCTAssertTrue(try tag(backgrounds, "shop-tab-background").contains("aria-current"))

            // The item list is kept per language and owned set: a purchase shows at once, and
            // only to the buyer.
            let token = TestAppStoreVerifier.token(productID: "com.whatweeat.mates.avatar1", transactionID: "2000000987654321")
            let bought = try await app.send(.POST, "/api/v1/mates/shop/purchases", json: ["signedTransaction": token], token: member.token)
            XCTAssertEqual(bought.status, .created, bought.text)
            let afterPurchase = try await browser.get("/mates/shop")
            XCTAssertTrue(try tag(afterPurchase, "item-avatar-1").contains(#"class="shop-item owned""#), "bought")
            XCTAssertTrue(try tag(afterPurchase, "item-avatar-2").contains(#"class="shop-item""#))
            XCTAssertFalse(try tag(afterPurchase, "item-avatar-2").contains("owned"))
            XCTAssertTrue(afterPurchase.text.contains(">2,500원</button>"), "prices of what is not owned, grouped")
            var (otherBrowser, _) = try await verifiedBrowser(app, nickname: "다른구경꾼")
            let theirs = try await otherBrowser.get("/mates/shop")
            XCTAssertFalse(try tag(theirs, "item-avatar-1").contains("owned"), "another mate has not bought it")
            // Pages are kept by what they show; the ids, tokens and device tokens are each browser's own.
            for path in ["/mates/shop?tab=background", "/mates/search", "/mates/profile"] {
                let mine = try pageConfig(try await browser.get(path)), others = try pageConfig(try await otherBrowser.get(path))
                XCTAssertEqual(mine["me"] as? String, member.id.uuidString, path)
                XCTAssertNotEqual(mine["me"] as? String, others["me"] as? String, path)
                XCTAssertNotEqual(mine["accessToken"] as? String, others["accessToken"] as? String, path)
                let devices = [mine["device"] as? String, others["device"] as? String].compactMap { $0 }
                XCTAssertEqual(devices.count, 2, path)
                XCTAssertNotEqual(devices[0], devices[1], path)
                XCTAssertTrue(devices.allSatisfy { $0.hasPrefix("web-") }, "\(devices)")
            }

            let search = try await browser.get("/mates/search")
            XCTAssertEqual(search.status, .ok)
            XCTAssertFalse(search.text.contains(#"id="needs-birth-year""#), "the birth year is saved")
            try await assertRedirect(&browser, "/mates/nearby", to: "/mates/search")
        }
    }

    func testThePagesFollowTheStateFromSearchingToMatched() async throws {
        try await withTestApp { app in
            var (mina, minaMember) = try await verifiedBrowser(app, nickname: "미나")
            var (joon, joonMember) = try await verifiedBrowser(app, nickname: "준호")
            try await app.search(minaMember)

            let nearby = try await mina.get("/mates/nearby")
            XCTAssertEqual(nearby.status, .ok)
            assertIDs(nearby, ["tab-nearby", "tab-requested", "nearby-list", "requested-list", "refresh", "change-topics", "stop-search"])
            XCTAssertEqual(nearby.text.components(separatedBy: "하고 싶은 것 바꾸기").count - 1, 1, "one way to change topics, not one per empty list")
            XCTAssertTrue(try tag(nearby, "tab-nearby").contains(#"aria-selected="true""#))
            XCTAssertTrue(try tag(nearby, "panel-requested").contains("hidden"))
            XCTAssertEqual((try pageConfig(nearby)["state"] as? [String: Any])?["state"] as? String, "searching")
            let requested = try await mina.get("/mates/nearby?tab=requested")
            XCTAssertTrue(try tag(requested, "tab-requested").contains(#"aria-selected="true""#))
            XCTAssertTrue(try tag(requested, "panel-nearby").contains("hidden"))
            XCTAssertFalse(try tag(requested, "panel-requested").contains("hidden"))
            let searchingHome = try await mina.get("/mates")
            let searchingFab = try tag(searchingHome, "state-fab")
            XCTAssertTrue(searchingFab.contains(#"href="/mates/nearby""#), searchingFab)
            XCTAssertTrue(searchingFab.contains(#"data-state="searching""#), searchingFab)
            let topics = try await mina.get("/mates/search")
            XCTAssertEqual(topics.status, .ok, "topics can change while searching")

            let match = try await app.matchPair(joonMember, minaMember)
            let chat = "/mates/chat/\(match.uuidString.lowercased())"
            for path in ["/mates/search", "/mates/nearby", "/mates/nearby?tab=requested"] {
                try await assertRedirect(&mina, path, to: chat)
                try await assertRedirect(&joon, path, to: chat)
            }
            for browser in [mina, joon] {
                var browser = browser
                let home = try await browser.get("/mates")
                let fab = try tag(home, "state-fab")
                XCTAssertTrue(fab.contains(#"href="\#(chat)""#), fab)
                XCTAssertTrue(fab.contains(#"data-state="matched""#), fab)
                XCTAssertTrue(home.text.contains(#"<span class="fab-badge" aria-hidden="true" hidden>0</span>"#), "no unread line, no number")
            }
            // Two lines 준호 has not read: the chat button on /mates counts them, and says so.
            for text in ["도착했어요", "어디세요?"] {
                let sent = try await app.send(.POST, "\(Application.mates)/chat/\(match)/messages", json: ["text": text], token: minaMember.token)
                XCTAssertEqual(sent.status, .created, sent.text)
            }
            var reader = joon
            let unreadHome = try await reader.get("/mates")
            XCTAssertTrue(unreadHome.text.contains(#"<span class="fab-badge" aria-hidden="true">2</span>"#), unreadHome.text)
            XCTAssertTrue(try tag(unreadHome, "state-fab").contains("읽지 않은 메시지 2개"))
        }
    }

    func testTheChatIsForItsTwoPeopleAndAnEndedOneIsClosed() async throws {
        try await withTestApp { app in
            var (mina, minaMember) = try await verifiedBrowser(app, nickname: "미나")
            let (joon, joonMember) = try await verifiedBrowser(app, nickname: "준호")
            var (stranger, _) = try await verifiedBrowser(app, nickname: "남남")
            let match = try await app.matchPair(minaMember, joonMember)
            let id = match.uuidString.lowercased()
            let chatPath = "/mates/chat/\(id)"

            for (browser, partner) in [(mina, joonMember), (joon, minaMember)] {
                var browser = browser
                let page = try await browser.get(chatPath)
                XCTAssertEqual(page.status, .ok)
                assertIDs(page, ["chat-log", "chat-form", "chat-input", "chat-send", "chat-menu", "menu-game", "menu-review",
                                 "menu-report", "menu-cancel", "cancel-dialog", "chat-ended"])
                XCTAssertTrue(page.text.contains(#"<h1 id="chat-title">\#(partner.nickname)</h1>"#), "the partner's name heads the chat")
                let config = try XCTUnwrap(try pageConfig(page)["match"] as? [String: Any])
                XCTAssertEqual(config["id"] as? String, id)
                XCTAssertEqual(config["open"] as? Bool, true)
                XCTAssertEqual(config["partner"] as? String, partner.id.uuidString.lowercased())
                XCTAssertEqual(config["live"] as? String, "\(chatPath)/live")
                XCTAssertTrue(try tag(page, "chat-ended").contains(#"hidden="hidden""#))
                XCTAssertFalse(try tag(page, "chat-input").contains("disabled"))
                XCTAssertFalse(try tag(page, "menu-game").contains("disabled"))
                XCTAssertFalse(try tag(page, "menu-cancel").contains("disabled"))
                let review = try await browser.get("/mates/review/\(id)")
                XCTAssertEqual(review.status, .ok)
                let report = try await browser.get("/mates/report/\(id)")
                XCTAssertEqual(report.status, .ok)
            }

            // The socket opens only from a page of this site (it rides on the cookie, no CSRF token).
            let sameSite: HTTPHeaders = ["Origin": "http://localhost:8080", "Host": "localhost:8080"]
            for headers: HTTPHeaders in [[:], ["Origin": "https://evil.example", "Host": "localhost:8080"]] {
                var browser = mina
                let socket = try await browser.get("\(chatPath)/live", extraHeaders: headers)
                XCTAssertEqual(socket.status, .forbidden, "\(headers)")
            }
            for path in [chatPath, "\(chatPath)/live", "/mates/review/\(id)", "/mates/report/\(id)",
                         "/mates/chat/\(UUID().uuidString.lowercased())", "/mates/chat/not-a-match", "/mates/review/1"] {
                let page = try await stranger.get(path, extraHeaders: sameSite)
                XCTAssertEqual(page.status, .notFound, path)
                XCTAssertFalse(page.text.contains(#"id="chat-log""#), path)
            }

            let finished = try await app.send(.POST, "\(Application.mates)/match/finish", token: minaMember.token)
            XCTAssertEqual(finished.status, .ok, finished.text)
            for browser in [mina, joon] {
                var browser = browser
                let page = try await browser.get(chatPath)
                XCTAssertEqual(page.status, .ok, "an ended chat can still be read")
                XCTAssertEqual((try pageConfig(page)["match"] as? [String: Any])?["open"] as? Bool, false)
                XCTAssertTrue(try tag(page, "chat-input").contains(#"disabled="disabled""#))
                XCTAssertTrue(try tag(page, "chat-send").contains(#"disabled="disabled""#))
                XCTAssertFalse(try tag(page, "chat-ended").contains("hidden"), "the ended notice shows")
                XCTAssertTrue(try tag(page, "chat-ended-review").contains(#"href="/mates/review/\#(id)""#))
                XCTAssertTrue(try tag(page, "menu-game").contains("disabled"))
                XCTAssertTrue(try tag(page, "menu-cancel").contains("disabled"))
                XCTAssertFalse(try tag(page, "menu-review").contains("disabled"))
                let review = try await browser.get("/mates/review/\(id)")
                XCTAssertEqual((try pageConfig(review)["match"] as? [String: Any])?["open"] as? Bool, false)
            }
            let home = try await mina.get("/mates")
            XCTAssertTrue(try tag(home, "state-fab").contains(#"data-state="idle""#), "both are idle again")
            let outsider = try await stranger.get(chatPath)
            XCTAssertEqual(outsider.status, .notFound, "ended or not, not someone else's")
        }
    }

    func testReviewAndReportFormsAndNicknamesAreEscaped() async throws {
        try await withTestApp { app in
            var (mina, minaMember) = try await verifiedBrowser(app, nickname: "미나")
            let partner = try await app.mate(#"a"b'c&d"#)
            let match = try await app.matchPair(partner, minaMember)
            let id = match.uuidString.lowercased()

            let review = try await mina.get("/mates/review/\(id)")
            XCTAssertEqual(review.status, .ok)
            for (index, pick) in ["good_manners", "punctual", "quick_reply", "kind", "skilled", "worthwhile"].enumerated() {
                let input = try tag(review, "pick-\(pick)")
                XCTAssertTrue(input.contains(#"type="checkbox""#) && input.contains(#"value="\#(index)""#), input)
            }
            XCTAssertEqual(review.text.components(separatedBy: #"name="pick""#).count - 1, 6)
            assertIDs(review, ["review-form", "review-comment", "send-review"])
            XCTAssertFalse(review.text.contains(#"id="already-reviewed""#))
            XCTAssertFalse(try tag(review, "send-review").contains("disabled"))

            let report = try await mina.get("/mates/report/\(id)")
            XCTAssertEqual(report.status, .ok)
            for category in ["rude", "no_show", "harassment", "spam", "fake_profile", "other"] {
                XCTAssertTrue(try tag(report, "category-\(category)").contains(#"value="\#(category)""#), category)
            }
            XCTAssertEqual(report.text.components(separatedBy: #"name="category""#).count - 1, 6)
            assertIDs(report, ["report-form", "report-comment", "send-report"])
            XCTAssertEqual(try pageConfig(report)["user"] as? String, partner.id.uuidString.lowercased())

            // Allowed characters that mean something in markup: written as text, `&` escaped. The
            // review and report pages name the partner through `mates.review.title` / `mates.report.title`.
            for path in ["/mates/chat/\(id)", "/mates/review/\(id)", "/mates/report/\(id)"] {
                let page = try await mina.get(path)
                XCTAssertEqual(page.status, .ok, path)
                XCTAssertTrue(page.text.contains("c&amp;d"), "the partner's name is shown: \(path)")
                XCTAssertFalse(page.text.contains("c&d"), path)
            }
            // A nickname from before the rules (or from outside them), with markup in it.
            try await User.query(on: app.db).filter(\.$id == partner.id).set(\.$nickname, to: #"<b>"x"</b>"#).update()
            // Written behind the account store's back: announced as its writes are (the pages keep the partner).
            await app.events.publish(SessionCache.Change.user(partner.id).message, to: SessionCache.topic)
            try await Task.sleep(for: .milliseconds(50))
            for path in ["/mates/chat/\(id)", "/mates/review/\(id)", "/mates/report/\(id)"] {
                let page = try await mina.get(path)
                XCTAssertEqual(page.status, .ok, path)
                XCTAssertFalse(page.text.contains("<b>"), path)
                XCTAssertTrue(page.text.contains("&lt;b&gt;"), "the partner's name is shown, escaped: \(path)")
            }

            // Reviewed once: the page thanks instead of showing an empty form to fill again, and the
            // ended chat no longer asks for a review.
            _ = try await app.send(.POST, "\(Application.mates)/match/finish", token: partner.token)
            struct ReviewBody: Encodable { let matchId: UUID; let reputation: [Int]; let comment: String }
            let sent = try await app.send(.POST, "\(Application.mates)/reviews", json: ReviewBody(matchId: match, reputation: [1, 0, 0, 0, 0, 1], comment: "좋았어요"),
                                          token: minaMember.token)
            XCTAssertEqual(sent.status, .created, sent.text)
            let reviewed = try await mina.get("/mates/review/\(id)")
            XCTAssertEqual(reviewed.status, .ok)
            XCTAssertTrue(reviewed.text.contains(#"id="already-reviewed""#))
            XCTAssertTrue(reviewed.text.contains("후기를 남겼어요. 고마워요!"))
            XCTAssertFalse(reviewed.text.contains(#"id="send-review""#), "no form to send again")
            let chat = try await mina.get("/mates/chat/\(id)")
            XCTAssertTrue(chat.text.contains(#"id="chat-ended-reviewed""#) && !chat.text.contains(#"id="chat-ended-review""#))
            XCTAssertTrue(chat.text.contains(#"placeholder="끝난 대화예요""#))
            // The log's role is on a wrapper: the lines' list keeps its semantics (axe `listitem`).
            XCTAssertTrue(chat.text.contains(#"<div id="chat-log-region" role="log" aria-label="#))
            XCTAssertTrue(chat.text.contains(#"<ol id="chat-log" class="chat-log"></ol></div>"#))
        }
    }

    func testASuspendedAccountIsRefusedButSeesWhyOnItsProfile() async throws {
        try await withTestApp { app in
            var (browser, member) = try await verifiedBrowser(app, nickname: "정지됨")
            _ = try await MatesStore(database: app.db, application: app).suspend(member.id, at: Date())
            for path in ["/mates", "/mates/nearby", "/mates/search", "/mates/shop", "/mates/chat/\(UUID().uuidString.lowercased())"] {
                let page = try await browser.get(path)
                XCTAssertEqual(page.status, .forbidden, path)
                XCTAssertEqual(page.headers.contentType?.subType, "html", path)
                XCTAssertFalse(page.text.contains(#"id="map""#), path)
            }
            let profile = try await browser.get("/mates/profile")
            XCTAssertEqual(profile.status, .ok, "a suspended account still sees why")
            assertIDs(profile, ["suspended-notice", "profile-form", "mate-card"])
            XCTAssertEqual((try pageConfig(profile)["profile"] as? [String: Any])?["suspended"] as? Bool, true)
        }
    }

    /// Issue 61: a match's pages read the match and the partner from `MatchPageViews`, kept at its
    /// version (`ChangeVersion`): a name changed behind the store's back shows only once an
    /// instance announces a change of what those pages show.
    func testAMatchsPagesFollowAnnouncedChangesOnly() async throws {
        try await withTestApp { app in
            var (mina, minaMember) = try await verifiedBrowser(app, nickname: "미나")
            let (_, joonMember) = try await verifiedBrowser(app, nickname: "준호")
            let match = try await app.matchPair(minaMember, joonMember)
            let chatPath = "/mates/chat/\(match.uuidString.lowercased())"
            let first = try await mina.get(chatPath)
            XCTAssertTrue(first.text.contains(#"<h1 id="chat-title">준호</h1>"#))
            // The announcements of the writes above come back from the bus too: let them land first.
            try await Task.sleep(for: .milliseconds(100))
            _ = try await mina.get(chatPath)

            try await User.query(on: app.db).filter(\.$id == joonMember.id).set(\.$nickname, to: "몰래준호").update()
            let kept = try await mina.get(chatPath)
            XCTAssertTrue(kept.text.contains(#"<h1 id="chat-title">준호</h1>"#), "kept until told")
            await app.events.publish("changed", to: MatchPageViews.topic)
            try await Task.sleep(for: .milliseconds(50))
            let told = try await mina.get(chatPath)
            XCTAssertTrue(told.text.contains(#"<h1 id="chat-title">몰래준호</h1>"#), "another instance's change shows")
        }
    }
}
