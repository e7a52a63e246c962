import Accounts
import Banchan
import BanchanApp
import BurgerMap
import Fluent
import LookForRealBurgerApp
import MenuGame
import Payments
import Platform
import SesacStudyApp
import WhatWeEatServer
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// Security probe items 1, 4, 6, 9 and the arithmetic audit that followed item 1: numbers from a
/// request are range-checked before any arithmetic, and strings are bounded in bytes as well as
/// characters. Every case here either crashed the process, answered 500 or let bad data in.
final class InputLimitsTests: XCTestCase {
    // MARK: Numbers from requests

    /// The probe's crash: `already + quantity` overflowed and the process exited.
    func testHugeCartQuantitiesAreRefusedNotAdded() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/shop/dishes/\(Fixtures.bulgogi)")
            let one = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "1"])
            XCTAssertEqual(one.status, .seeOther)
            for quantity in [Int.max, Int.max - 1, Int.min, -1, 0] {
                _ = try await browser.get("/shop/dishes/\(Fixtures.bulgogi)")
                let response = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": String(quantity)])
                XCTAssertEqual(response.status, .unprocessableEntity, "quantity \(quantity)")
            }
            let tooBig = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "99999999999999999999999"])
            XCTAssertEqual(tooBig.status, .badRequest, "not a number we can hold")
            let items = try await CartItem.query(on: app.db).all()
            XCTAssertEqual(items.map(\.quantity), [1], "the cart is as it was")

            let api = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.bulgogi)", raw: #"{"quantity": 9223372036854775807}"#,
                                         headers: ["X-Device-Token": "device-token-000000000001"])
            XCTAssertEqual(api.status, .unprocessableEntity)
        }
    }

    /// `Int.min - 1` in the artwork route; a cursor so far in the future that PostgreSQL's
    /// microsecond encoding overflows; `abs(Int.min)` when formatting a test payment's amount.
    func testOtherNumbersThatCouldTrapAreRefused() async throws {
        try await withTestApp { app in
            for file in ["detail--9223372036854775808.svg", "detail-0.svg", "detail-9223372036854775807.svg", "thumb--9223372036854775808.svg"] {
                let response = try await app.send(.GET, "/images/banchan/\(Fixtures.bulgogi)/\(file)")
                XCTAssertEqual(response.status, .notFound, file)
            }
            let farFuture = Data("1e300|00000000-0000-0000-0000-000000000000".utf8).base64URLEncodedString()
            let listed = try await app.send(.GET, "/api/v1/menu-game/menus?cursor=\(farFuture)")
            XCTAssertEqual(listed.status, .badRequest)
            XCTAssertEqual(listed.errorCode, "invalid_cursor")
            XCTAssertEqual(Won.format(Int.min), "-9,223,372,036,854,775,808원")
            let gateway = TestPaymentGateway()
            do {
                _ = try await gateway.payment(id: "test:order-1:-9223372036854775808")
                XCTFail("a negative amount is no payment")
            } catch PaymentGatewayError.unknownPayment {}
        }
    }

    // MARK: Passwords, nicknames and emails

    func testPasswordsWithControlCharactersAreRefused() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()  // its seed reviewers would count as accounts
            for password in [String(repeating: "\u{0}", count: 8), "Secr\u{0}etPassword", "password\u{7}1", "pass\nword12"] {
                let response = try await app.send(.POST, "/api/v1/auth/signup", json: ["email": "nul@example.com", "password": password, "nickname": "nul1"])
                XCTAssertEqual(response.status, .unprocessableEntity, password.debugDescription)
                XCTAssertEqual(response.errorCode, "password_invalid_characters")
            }
            _ = try await app.signUp("mina@example.com", nickname: "미나", password: "password1")
            let truncated = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "mina@example.com", "password": "password1\u{0}anything"])
            XCTAssertEqual(truncated.status, .unauthorized, "bcrypt never sees a cut-short password")
            let users = try await User.query(on: app.db).count()
            XCTAssertEqual(users, 1)
        }
    }

    func testNicknamesAreBoundedInBytesAndRefuseInvisibleAndLookAlikeCharacters() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()  // its seed reviewers would count as accounts
            _ = try await app.signUp("admin@example.com", nickname: "admin")
            let cases: [(String, String)] = [
                ("z" + String(repeating: "\u{301}", count: 150_000) + "q", "invalid_nickname_length"),  // 2 characters, 300 KB
                ("z" + String(repeating: "\u{301}", count: 5) + "q", "invalid_nickname_characters"),
                ("ad\u{200B}min", "invalid_nickname_characters"),
                ("admin\u{200B}", "nickname_taken"),  // trimmed away: it is `admin`
                ("미\u{3164}나", "invalid_nickname_characters"),  // a Hangul filler: a blank in the name
                ("ad\u{202E}min", "invalid_nickname_characters"),
                ("ad\u{200D}min", "invalid_nickname_characters"),
                ("ａｄｍｉｎ", "nickname_taken"),  // full-width: NFKC makes it `admin`
                ("admın", "nickname_taken"),       // dotless i
                ("аdmin", "nickname_taken"),       // Cyrillic а
                // 81 code points as sent, 20 once trimmed: past openapi.yaml's maxLength, which
                // counts code points before trimming.
                (String(repeating: " ", count: 61) + String(repeating: "가", count: 20), "invalid_nickname_length"),
            ]
            for (index, (nickname, code)) in cases.enumerated() {
                let response = try await app.send(.POST, "/api/v1/auth/signup", json: ["email": "n\(index)@example.com", "password": "password1", "nickname": nickname])
                XCTAssertEqual(response.errorCode, code, "\(nickname.unicodeScalars.prefix(12).map { String($0.value, radix: 16) })")
            }
            // Emoji sequences joined by ZWJ are one picture each, and fine.
            let cook = try await app.send(.POST, "/api/v1/auth/signup", json: ["email": "cook@example.com", "password": "password1", "nickname": "요리사👩‍🍳"])
            XCTAssertEqual(cook.status, .created, cook.text)
            // Seven cooks: 7 characters, 21 code points (within the documented 80), 77 bytes.
            let cooks = try await app.send(.POST, "/api/v1/auth/signup", json: ["email": "cooks@example.com", "password": "password1",
                                                                                "nickname": String(repeating: "👩‍🍳", count: 7)])
            XCTAssertEqual(cooks.status, .created, cooks.text)
            let users = try await User.query(on: app.db).count()
            XCTAssertEqual(users, 3)
        }
    }

    func testEmailsAreBoundedInBytes() async throws {
        try await withTestApp { app in
            let marks = "a" + String(repeating: "\u{301}", count: 20_000) + "@example.com"
            let response = try await app.send(.POST, "/api/v1/auth/signup", json: ["email": marks, "password": "password1", "nickname": "marks"])
            XCTAssertEqual(response.errorCode, "invalid_email")
            let long = String(repeating: "가", count: 30) + "@example.com"  // 30 characters, 90 bytes in the local part
            let tooLong = try await app.send(.POST, "/api/v1/auth/signup", json: ["email": long, "password": "password1", "nickname": "long"])
            XCTAssertEqual(tooLong.errorCode, "invalid_email")
        }
    }

    // MARK: Redirects

    func testOnlySameSitePathsAreFollowed() {
        for unsafe in ["/\t/evil.example", "//evil.example", "/\\evil.example", "\t//evil.example", "https://evil.example", "/\r\nSet-Cookie:x=1",
                       "/ok\"><meta>", "/ /evil", "/\u{2028}/evil", "/\u{200B}/evil", "evil", ""] {
            XCTAssertNil(Layout.safeNextPath(unsafe), unsafe.debugDescription)
            XCTAssertEqual(Layout.redirect(to: unsafe).headers.first(name: .location), "/", unsafe.debugDescription)
        }
        for safe in ["/", "/me", "/play/groups/123456", "/map?q=치즈버거", "/shop/cart?added=HU6Z5#top", "/a%2F%2Fb"] {
            XCTAssertEqual(Layout.safeNextPath(safe), safe)
        }
    }

    func testLoginWithATabbedNextStaysOnTheSite() async throws {
        try await withTestApp { app in
            _ = try await app.signUp()
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/login")
            let signedIn = try await browser.post("/login", form: ["email": "mina@example.com", "password": "password1", "next": "/\t/evil.example"])
            XCTAssertEqual(signedIn.status, .seeOther)
            XCTAssertEqual(signedIn.headers.first(name: .location), "/me")
        }
    }

    // MARK: Request targets and bodies

    func testLongPathsNULsAndBrokenMultipartAreClientErrors() async throws {
        try await withTestApp { app in
            let long = try await app.send(.GET, "/" + String(repeating: "a", count: 4_100))
            XCTAssertEqual(long.status, .uriTooLong)
            XCTAssertEqual(long.errorCode, "uri_too_long")
            let nul = try await app.send(.GET, "/css/app.css%00.swift")
            XCTAssertEqual(nul.status, .notFound)
            let css = try await app.send(.GET, "/css/app.css")
            XCTAssertEqual(css.status, .ok, "the file itself is still served")

            let user = try await app.signUp()
            for path in ["/api/v1/auth/login", "/api/v1/menu-game/solo"] {
                let broken = try await app.send(.POST, path, raw: "--x--", headers: ["Content-Type": "multipart/form-data; boundary=x"])
                XCTAssertEqual(broken.status.code / 100, 4, "\(path): \(broken.status)")
            }
            let photo = try await app.send(.PUT, "/api/v1/me/profile-image", raw: "--x--", token: user.accessToken,
                                           headers: ["Content-Type": "multipart/form-data; boundary=x"])
            XCTAssertEqual(photo.status.code / 100, 4, "\(photo.status)")
        }
    }
}
