import Accounts
import Fluent
import LookForRealBurgerApp
import Mates
import MenuGame
import Platform
import SesacStudyApp
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// Security probe items 3 and 5: Plot writes attribute values as given, so a `"` in a nickname,
/// a dish title or a `next` parameter ended the attribute and started markup. Every field a page
/// renders gets a hostile value here; the markup it tries to start must never appear.
final class HostileValuesInPagesTests: XCTestCase {
    /// Would open an element if it escaped its attribute or text.
    static let markup = #"zq"><i id=pwn>'&{total}"#
    static let injected = "<i id=pwn>"

    func assertNoInjection(_ response: TestingHTTPResponse, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(response.text.contains(Self.injected), "\(context): markup escaped its place", file: file, line: line)
        XCTAssertFalse(response.text.contains(#"zq">"#), "\(context): an attribute was closed early", file: file, line: line)
    }

    func testRedirectTargetsAndPathsInForms() async throws {
        try await withTestApp { app in
            let next = "/" + (Self.markup.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            for path in ["/login?next=\(next)", "/play/welcome?next=\(next)", "/signup?next=\(next)"] {
                let page = try await app.send(.GET, path, headers: ["Accept": "text/html"])
                assertNoInjection(page, path)
            }
            // The probe's meta-refresh redirect.
            let refresh = try await app.send(.GET, #"/login?next=/%22%3E%3Cmeta%20http-equiv%3D%22refresh%22%20content%3D%220%3Burl%3Dhttps%3A%2F%2Fevil.example%2F%22%3E"#,
                                             headers: ["Accept": "text/html"])
            XCTAssertFalse(refresh.text.contains("<meta http-equiv"), "no element from the query")
            // The footer's language form repeats the path in a hidden field: `'` and `&` arrive raw.
            let notFound = try await app.send(.GET, "/nope'&x=1", headers: ["Accept": "text/html"])
            XCTAssertEqual(notFound.status, .notFound)
            XCTAssertTrue(notFound.text.contains(#"value="/nope&#39;&amp;x=1""#), notFound.text)
        }
    }

    func testNicknamesOnMyPageAndInTheHeader() async throws {
        try await withTestApp { app in
            let nickname = #"a"b'c&d"#
            _ = try await app.signUp("mina@example.com", nickname: nickname)
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", form: ["email": "mina@example.com", "password": "password1"])
            let me = try await browser.get("/me")
            XCTAssertEqual(me.status, .ok)
            XCTAssertTrue(me.text.contains(#"value="a&quot;b&#39;c&amp;d""#), "the nickname field keeps the whole value")
            XCTAssertFalse(me.text.contains(#"value="a"b"#))
            // A failed sign-up shows the typed values again, in attributes.
            var other = CookieBrowser(app: app)
            _ = try await other.get("/signup")
            let again = try await other.post("/signup", form: ["email": Self.markup, "nickname": Self.markup, "password": "short"])
            XCTAssertEqual(again.status, .unprocessableEntity)
            assertNoInjection(again, "sign-up form shown again")
            _ = try await other.get("/login")
            let login = try await other.post("/login", form: ["email": Self.markup, "password": "password1"])
            assertNoInjection(login, "login form shown again")
        }
    }

    func testDishFieldsOnTheShopPagesAndTheirArtwork() async throws {
        try await withTestApp { app in
            let token = try await app.signUpAdmin().accessToken
            let hash = Fixtures.bulgogi
            let edited = try await app.send(.PATCH, "/api/v1/banchan/dishes/\(hash)",
                                            json: DishEdit(title: Self.markup, detailSections: [Self.markup, "둘째 문단"]), token: token)
            XCTAssertEqual(edited.status, .ok, edited.text)

            var browser = CookieBrowser(app: app)
            let detail = try await browser.get("/shop/dishes/\(hash)")
            XCTAssertEqual(detail.status, .ok)
            assertNoInjection(detail, "dish page (title in meta tags, thumbnail and detail alt)")
            XCTAssertTrue(detail.text.contains("zq&quot;&gt;&lt;i id=pwn&gt;&#39;&amp;"), "escaped, not dropped")
            let added = try await browser.post("/shop/cart", form: ["hash": hash, "quantity": "1"])
            XCTAssertEqual(added.status, .seeOther, added.text)
            let cart = try await browser.get("/shop/cart")
            assertNoInjection(cart, "cart (remove button's aria-label)")
            let home = try await browser.get("/shop")
            assertNoInjection(home, "shop front")

            for file in ["main.svg", "thumb-1.svg", "detail-1.svg"] {
                let svg = try await app.send(.GET, "/images/banchan/\(hash)/\(file)")
                XCTAssertEqual(svg.status, .ok)
                assertNoInjection(svg, file)
                XCTAssertEqual(svg.headers.first(name: "Content-Security-Policy"), SecurityHeadersMiddleware.documentPolicy)
            }
        }
    }

    /// The probe's stored script: an admin-written menu name in the menu's generated SVG.
    func testMenuNamesInTheirImagesCannotRunScript() async throws {
        try await withTestApp { app in
            let token = try await app.signUpAdmin().accessToken
            let menu = #"{"id": "svgx", "name": {"ko": "x\" onload=\"document.title=origin", "en": "x", "ja": "x"}, "emoji": "🍚", "nations": ["KOREAN"]}"#
            let created = try await app.send(.POST, "/api/v1/menu-game/menus", raw: menu, token: token)
            XCTAssertEqual(created.status, .created, created.text)
            let svg = try await app.send(.GET, "/images/menus/svgx.svg")
            XCTAssertEqual(svg.status, .ok)
            XCTAssertFalse(svg.text.contains(#"" onload=""#), svg.text)
            XCTAssertTrue(svg.text.contains("x&quot; onload=&quot;document.title=origin"))
            let policy = try XCTUnwrap(svg.headers.first(name: "Content-Security-Policy"))
            XCTAssertTrue(policy.hasPrefix("default-src 'none'") && policy.contains("sandbox"), policy)
        }
    }

    /// The menu game's pages carry their data as JSON inside a script element; a device cookie or
    /// an admin value must not be able to close that element or open a comment.
    func testScriptDataCannotLeaveItsElement() async throws {
        try await withTestApp { app in
            let device = "device-token-0000</script><!--<script>"
            var browser = CookieBrowser(app: app)
            browser.cookies["wwe_device"] = device
            _ = try await browser.get("/play/welcome")
            _ = try await browser.post("/play/preferences", fields: [("next", "/play")])
            let page = try await browser.get("/play")
            XCTAssertEqual(page.status, .ok, page.text)
            let config = try XCTUnwrap(page.text.range(of: #"id="page-config">"#))
            let json = page.text[config.upperBound...].prefix { $0 != "<" }
            XCTAssertFalse(json.isEmpty)
            XCTAssertFalse(page.text.contains("</script><!--"), "the value stays inside the JSON")
            if page.text.contains("device-token-0000") {
                XCTAssertTrue(json.contains(#"\u003c/script\u003e\u003c!--"#), String(json))
                XCTAssertFalse(json.contains("<"), "no angle bracket at all inside the block")
            }
        }
    }

    func testFeedbackInTheAdminInbox() async throws {
        try await withTestApp { app in
            var visitor = CookieBrowser(app: app)
            _ = try await visitor.get("/play/welcome")
            _ = try await visitor.post("/play/preferences", fields: [("next", "/play")])
            _ = try await visitor.get("/play/settings")
            let sent = try await visitor.post("/play/feedback", form: ["message": Self.markup])
            XCTAssertEqual(sent.status, .seeOther, sent.text)

            _ = try await app.signUpAdmin().accessToken
            var boss = CookieBrowser(app: app)
            _ = try await boss.get("/login")
            _ = try await boss.post("/login", form: ["email": "boss@example.com", "password": "password1"])
            let inbox = try await boss.get("/play/feedback")
            XCTAssertEqual(inbox.status, .ok)
            assertNoInjection(inbox, "feedback inbox")
        }
    }

    struct DishEdit: Encodable {
        let title: String
        let detailSections: [String]
    }
}
