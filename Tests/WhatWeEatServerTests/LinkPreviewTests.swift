import BurgerMap
import MenuGame
import Fluent
import NIOFoundationEssentialsCompat
import Platform
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// Issue 40, item 5: a link pasted into KakaoTalk shows a card. Every page carries Open Graph and
/// Twitter tags; the home, a group's invitation, a menu result's share link, a place, a review and a
/// dish say what they are, with an absolute `PUBLIC_URL` image that is a real JPEG or PNG.
final class LinkPreviewTests: XCTestCase {
    static let publicURL = "https://whatweeat.example"

    /// The `content` of each `<meta property|name="…">` in the page's head.
    func tags(_ page: TestingHTTPResponse) -> [String: String] {
        let head = page.text.components(separatedBy: "</head>").first ?? ""
        var found: [String: String] = [:]
        for match in head.matches(of: /<meta (?:property|name)="([^"]+)" content="([^"]*)"\/>/) {
            found[String(match.1)] = String(match.2)
        }
        return found
    }

    /// Follows redirects as a crawler does (no cookies kept), to the page it reads.
    func crawl(_ app: Application, _ path: String) async throws -> TestingHTTPResponse {
        var current = path
        for _ in 0..<5 {
            let response = try await app.send(.GET, current, headers: ["User-Agent": "facebookexternalhit/1.1;kakaotalk-scrap/1.0"])
            guard response.status == .seeOther || response.status == .found, let location = response.headers.first(name: .location) else { return response }
            current = location
        }
        throw Abort(.loopDetected)
    }

    /// The card's image is on this site and is a JPEG or PNG of the size the tags say.
    func assertRasterImage(_ app: Application, _ tags: [String: String], file: StaticString = #filePath, line: UInt = #line) async throws {
        let image = try XCTUnwrap(tags["og:image"], file: file, line: line)
        XCTAssertTrue(image.hasPrefix(Self.publicURL + "/"), "absolute, from PUBLIC_URL: \(image)", file: file, line: line)
        XCTAssertEqual(tags["twitter:image"], image, file: file, line: line)
        let fetched = try await app.send(.GET, String(image.dropFirst(Self.publicURL.count)))
        XCTAssertEqual(fetched.status, .ok, image, file: file, line: line)
        let size = try XCTUnwrap(rasterImageSize(Data(buffer: fetched.body)), "\(image) is a JPEG or PNG", file: file, line: line)
        if let width = tags["og:image:width"], let height = tags["og:image:height"] {
            XCTAssertEqual("\(size.width)x\(size.height)", "\(width)x\(height)", image, file: file, line: line)
        }
    }

    func testTheHomeAGroupsInvitationAndAMenuResultShowCards() async throws {
        try await withTestApp(adjust: { $0.publicURL = Self.publicURL }) { app in
            let home = tags(try await app.send(.GET, "/"))
            XCTAssertEqual(home["og:title"], "우리뭐먹지 — 오늘 뭐 먹지?")
            XCTAssertEqual(home["og:url"], Self.publicURL + "/")
            XCTAssertEqual(home["og:site_name"], "우리뭐먹지")
            XCTAssertEqual(home["og:locale"], "ko_KR")
            XCTAssertEqual(home["twitter:card"], "summary_large_image")
            XCTAssertEqual(home["og:description"], home["description"])
            try await assertRasterImage(app, home)

            // A group's link as a messenger's crawler follows it: a fresh client is sent to the
            // onboarding, which names the group's invitation and its /join link.
            let created = try await app.send(.POST, "/api/v1/menu-game/groups", headers: ["X-Device-Token": "host-device-token-0001"])
            let pin = try XCTUnwrap(try created.object()["pin"] as? String)
            let invitation = tags(try await crawl(app, "/join/\(pin)"))
            XCTAssertEqual(invitation["og:title"], "👥 함께 메뉴 고르기에 초대받았어요")
            XCTAssertTrue(invitation["og:description"]?.contains(pin) == true, "\(invitation)")
            XCTAssertEqual(invitation["og:url"], "\(Self.publicURL)/join/\(pin)")
            try await assertRasterImage(app, invitation)
            let english = tags(try await app.send(.GET, "/play/welcome?next=/play/groups/\(pin)", headers: ["Accept-Language": "en"]))
            XCTAssertEqual(english["og:title"], "👥 You&#39;re invited to pick a menu together")
            XCTAssertEqual(english["og:locale"], "en_US")
            // Once the host closes it, the same link no longer invites: it says the game is over
            // and leads to the result (the UX review: a closed game's card still invited).
            let closed = try await app.send(.POST, "/api/v1/menu-game/groups/\(pin)/close", headers: ["X-Device-Token": "host-device-token-0001"])
            XCTAssertEqual(closed.status, .ok, closed.text)
            let over = tags(try await crawl(app, "/join/\(pin)"))
            XCTAssertEqual(over["og:title"], "🍽️ 메뉴가 이미 정해진 게임이에요")
            XCTAssertTrue(over["og:description"]?.contains(pin) == true)
            XCTAssertEqual(over["og:url"], "\(Self.publicURL)/play/groups/\(pin)/result")
            // An unknown PIN gets the plain invitation: the card tells nothing a lobby would not.
            let unknownPIN = tags(try await app.send(.GET, "/play/welcome?next=/play/groups/999999"))
            XCTAssertEqual(unknownPIN["og:title"], "👥 함께 메뉴 고르기에 초대받았어요")

            // A result's share link: the menu's own page and its card.
            let shared = try await crawl(app, "/play/menus/kimchi-jjigae")
            XCTAssertEqual(shared.status, .ok)
            XCTAssertTrue(shared.text.contains(#"id="shared-menu-play""#), "the way into the game")
            // Every menu can be found nearby: 카카오맵's and 네이버지도's search for its name (our map has burgers only).
            let stew = "%EA%B9%80%EC%B9%98%EC%B0%8C%EA%B0%9C"
            XCTAssertTrue(shared.text.contains(#"href="https://map.kakao.com/link/search/\#(stew)""#), "카카오맵's search")
            XCTAssertTrue(shared.text.contains(#"href="https://map.naver.com/p/search/\#(stew)""#), "네이버지도's search")
            let menu = tags(shared)
            XCTAssertEqual(menu["og:title"], "🍲 오늘은 김치찌개 어때요?")
            XCTAssertEqual(menu["og:image"], "\(Self.publicURL)/images/menus/kimchi-jjigae.jpg")
            try await assertRasterImage(app, menu)
            let unknown = try await app.send(.GET, "/play/menus/no-such-menu")
            XCTAssertEqual(unknown.status, .notFound)
            let unknownCard = try await app.send(.GET, "/images/menus/no-such-menu.jpg")
            XCTAssertEqual(unknownCard.status, .notFound)

            // Every menu of the catalog has its card.
            for menu in app.menuCatalog.snapshot.menus {
                XCTAssertTrue(FileManager.default.fileExists(atPath: MenuImages.cardFile(menu, resources: app.directory.resourcesDirectory)),
                              "\(menu.id) \(menu.emoji): run Resources/catalogs/draw_menu_cards.py")
            }
        }
    }

    func testAPlaceAReviewAndADishShowTheirOwnPictures() async throws {
        try await withTestApp(adjust: { $0.publicURL = Self.publicURL }) { app in
            // A review with an uploaded photo: the photo itself is the card.
            let author = try await app.member("버거러버")
            let place = try await app.place(author.token, #"<Burger & "Co">"#)
            let reviewID = try await app.review(author.token, place: place, title: "육즙 가득", rating: 5)
            let review = tags(try await app.send(.GET, "/map/reviews/\(reviewID.uuidString.lowercased())"))
            XCTAssertEqual(review["og:type"], "article")
            XCTAssertEqual(review["og:title"], "육즙 가득 — &lt;Burger &amp; &quot;Co&quot;&gt; ★★★★★", "escaped like any attribute")
            try await assertRasterImage(app, review)

            let placePage = tags(try await app.send(.GET, "/map/places/\(place.uuidString.lowercased())"))
            XCTAssertEqual(placePage["og:title"], "🍔 &lt;Burger &amp; &quot;Co&quot;&gt;")
            XCTAssertTrue(placePage["og:description"]?.contains("★ 5.0") == true, "\(placePage)")
            try await assertRasterImage(app, placePage)

            // A drawn (seeded) photo is an SVG on the page and a JPEG in the card.
            let firstDrawn = try await BurgerPhoto.query(on: app.db).filter(\.$artwork != nil).filter(\.$reviewID != nil).first()
            let drawn = try XCTUnwrap(firstDrawn, "the catalog's reviews have drawn photos")
            if let id = drawn.id, let reviewOfDrawn = drawn.reviewID {
                let page = tags(try await app.send(.GET, "/map/reviews/\(reviewOfDrawn.uuidString.lowercased())"))
                XCTAssertTrue(page["og:image"]?.hasSuffix(".jpg") == true, "\(page)")
                try await assertRasterImage(app, page)
                XCTAssertEqual(BurgerMapImages.rasterURL(ofPhotoURL: "/images/burger-map/photos/\(id.uuidString.lowercased()).svg"),
                               "/images/burger-map/photos/\(id.uuidString.lowercased()).jpg")
            }
            XCTAssertNil(BurgerMapImages.rasterURL(ofPhotoURL: "/uploads/ab/cd.webp"), "not every messenger draws WebP: the app's card instead")

            // A dish: its drawn card.
            let dish = tags(try await app.send(.GET, "/shop/dishes/\(Fixtures.bulgogi)"))
            XCTAssertEqual(dish["og:title"], "[소중한식사] 한우 소불고기 500g")
            XCTAssertTrue(dish["og:description"]?.hasPrefix("23,900원 · ") == true, "\(dish)")
            XCTAssertEqual(dish["og:image"], "\(Self.publicURL)/images/banchan/\(Fixtures.bulgogi)/card.jpg")
            try await assertRasterImage(app, dish)
            for name in ["main", "thumb-1"] {
                let picture = try await app.send(.GET, "/images/banchan/\(Fixtures.bulgogi)/\(name).jpg")
                XCTAssertEqual(rasterImageSize(Data(buffer: picture.body))?.format, "jpeg", name)
            }
            for bad in ["thumb-99", "detail-1", "card.png", "..%2F..%2Fetc"] {
                let refused = try await app.send(.GET, "/images/banchan/\(Fixtures.bulgogi)/\(bad).jpg")
                XCTAssertTrue([.notFound, .forbidden].contains(refused.status), "\(bad): \(refused.status)")
            }
        }
    }
}
