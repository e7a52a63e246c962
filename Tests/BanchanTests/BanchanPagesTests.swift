import Accounts
@testable import Banchan
import Fluent
import Platform
import WhatWeEatTesting
import XCTVapor

/// The shop's pages as a browser meets them: cookies, CSRF, bad input, another browser's orders.
final class BanchanPagesTests: XCTestCase {
    func testBrowsingNeedsNoAccountAndGivesTheBrowserADevice() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            let home = try await browser.get("/shop")
            XCTAssertEqual(home.status, .ok)
            XCTAssertEqual(home.text.components(separatedBy: "class=\"dish-card").count - 1, 45)
            XCTAssertTrue(home.text.contains("<del class=\"original-price\">"), "discounted prices are struck through")
            XCTAssertNotNil(browser.cookies["wwe_device"])
            let detail = try await browser.get("/shop/dishes/\(Fixtures.bulgogi)")
            XCTAssertTrue(detail.text.contains(#"data-price="23900""#))
            XCTAssertTrue(detail.text.contains(#"min="1" max="10""#))
            XCTAssertTrue(detail.text.contains(#"data-share-url="http://127.0.0.1:8080/shop/dishes/\#(Fixtures.bulgogi)""#), "a dish can be sent to a friend")
            // In English the page's own words follow the reader; the dish's text stays as written.
            let english = try await app.send(.GET, "/shop/dishes/\(Fixtures.bulgogi)", headers: ["Accept-Language": "en"])
            XCTAssertTrue(english.text.contains("Event deal") && english.text.contains("Early-morning delivery · Nationwide parcel"))
            XCTAssertTrue(english.text.contains("₩2,500 (free from ₩40,000)"), "prices as English writes them")
            XCTAssertTrue(english.text.contains("₩23,900"))
            let unknown = try await browser.get("/shop/dishes/NOPE1")
            XCTAssertEqual(unknown.status, .notFound)
        }
    }

    /// The sections are rendered once per language and kept (`PageFragments`) until the listings
    /// change; the cart count in the header is each browser's own.
    func testTheKeptSectionsFollowStockAndLanguageAndTheCartCountIsPerBrowser() async throws {
        try await withTestApp { app in
            func soldOutBadges(_ page: TestingHTTPResponse) -> Int { page.text.components(separatedBy: "badge badge-soldout").count - 1 }
            var browser = CookieBrowser(app: app)
            let before = try await browser.get("/shop")
            let english = try await app.send(.GET, "/shop", headers: ["Accept-Language": "en"])
            XCTAssertTrue(before.text.contains("메인요리"))
            XCTAssertTrue(english.text.contains("Main dishes"), "the English page is its own")
            XCTAssertFalse(english.text.contains("메인요리"), "no Korean fragment served to an English reader")

            let admin = try await app.signUpAdmin().accessToken
            let emptied = try await app.send(.PATCH, "/api/v1/banchan/dishes/\(Fixtures.dakgalbi)", json: ["stock": 0], token: admin)
            XCTAssertEqual(emptied.status, .ok, emptied.text)
            let after = try await browser.get("/shop")
            XCTAssertEqual(soldOutBadges(after), soldOutBadges(before) + 1, "the kept sections were made again after the change")

            _ = try await browser.get("/shop/dishes/\(Fixtures.bulgogi)")
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "3"])
            let mine = try await browser.get("/shop")
            XCTAssertTrue(mine.text.contains(#"<span class="cart-count">3</span>"#))
            var other = CookieBrowser(app: app)
            let theirs = try await other.get("/shop")
            XCTAssertFalse(theirs.text.contains("cart-count"), "another browser's cart is empty")
        }
    }

    /// A dish's page keeps its gallery, facts and detail images per language until a dish or its
    /// stock changes; the order form is made per reader.
    func testTheDishPageFollowsEditsStockAndLanguage() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            let path = "/shop/dishes/\(Fixtures.bulgogi)"
            let first = try await browser.get(path)
            XCTAssertEqual(first.status, .ok)
            let english = try await app.send(.GET, path, headers: ["Accept-Language": "en"])
            XCTAssertTrue(english.text.contains("Delivery fee"), "the English page has its own facts")
            XCTAssertFalse(first.text.contains("Delivery fee"))

            let admin = try await app.signUpAdmin().accessToken
            let renamed = try await app.send(.PATCH, "/api/v1/banchan/dishes/\(Fixtures.bulgogi)", json: ["title": "새 이름 불고기"], token: admin)
            XCTAssertEqual(renamed.status, .ok, renamed.text)
            let restocked = try await app.send(.PATCH, "/api/v1/banchan/dishes/\(Fixtures.bulgogi)", json: ["stock": 7], token: admin)
            XCTAssertEqual(restocked.status, .ok, restocked.text)
            let after = try await browser.get(path)
            XCTAssertTrue(after.text.contains(#"<h1 id="dish-title">새 이름 불고기</h1>"#), "the kept facts were made again")
            XCTAssertTrue(after.text.contains("새 이름 불고기 사진 1/"), "and the gallery")
            XCTAssertTrue(after.text.contains(#"max="7""#), "the form follows the stock")

            // Two browsers get the same kept parts but their own form token.
            var other = CookieBrowser(app: app)
            let theirs = try await other.get(path)
            func token(_ page: TestingHTTPResponse) -> String? {
                page.text.components(separatedBy: #"name="_csrf" value=""#).dropFirst().first?.components(separatedBy: "\"").first
            }
            XCTAssertNotNil(token(after))
            XCTAssertNotEqual(token(after), token(theirs))

            let retired = try await app.send(.DELETE, "/api/v1/banchan/dishes/\(Fixtures.bulgogi)", token: admin)
            XCTAssertTrue(retired.status == .ok || retired.status == .noContent, retired.text)
            let gone = try await browser.get(path)
            XCTAssertEqual(gone.status, .notFound, "a retired dish has no page")
        }
    }

    func testTheCartFormRefusesBadInputAndChangesNothing() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/shop/dishes/\(Fixtures.bulgogi)")
            let forged = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "1"], includeCSRF: false)
            XCTAssertEqual(forged.status, .forbidden)
            let tooMany = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "11"])
            XCTAssertEqual(tooMany.status, .unprocessableEntity)
            XCTAssertTrue(tooMany.text.contains("한 번에 10개까지"), "the dish page shows why")
            let garbage = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "lots"])
            XCTAssertEqual(garbage.status, .badRequest)
            let unknown = try await browser.post("/shop/cart", form: ["hash": "NOPE1", "quantity": "1"])
            XCTAssertEqual(unknown.status, .notFound)
            let cart = try await browser.get("/shop/cart")
            XCTAssertTrue(cart.text.contains("장바구니가 비어 있어요."))
            // Where it would go is filled in right; an empty cart still orders nothing (`order_empty`), and
            // checkout, having nothing to show, sends the browser back to its (empty) cart.
            let empty = try await browser.post("/shop/orders", form: Fixtures.checkoutForm(key: "k1"))
            XCTAssertEqual(empty.status, .seeOther, empty.text)
            XCTAssertEqual(empty.headers.first(name: .location), "/shop/cart")
            let orders = try await BanchanOrder.query(on: app.db).count()
            XCTAssertEqual(orders, 0)

            // Adding twice adds up, within the limit.
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "6"])
            let over = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "5"])
            XCTAssertEqual(over.status, .unprocessableEntity)
            let added = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "4"])
            XCTAssertEqual(added.headers.first(name: .location), "/shop/cart?added=\(Fixtures.bulgogi)")
            let full = try await browser.get("/shop/cart")
            XCTAssertTrue(full.text.contains(#"value="10""#))

            // A quantity box emptied and sent is named in the cart, not a bare error page.
            let emptied = try await browser.post("/shop/cart/\(Fixtures.bulgogi)", form: ["quantity": ""])
            XCTAssertEqual(emptied.status, .unprocessableEntity)
            XCTAssertTrue(emptied.text.contains("수량: 숫자를 적어 주세요.") && emptied.text.contains("form-error"), emptied.text)
            let kept = try await browser.get("/shop/cart")
            XCTAssertTrue(kept.text.contains(#"value="10""#), "and changes nothing")
            let word = try await browser.post("/shop/cart/\(Fixtures.bulgogi)", form: ["quantity": "ten"])
            XCTAssertEqual(word.status, .badRequest, "only a script sends a word")
            // On the dish page an emptied box adds the smallest quantity, as a form without one does.
            _ = try await browser.post("/shop/cart/\(Fixtures.bulgogi)/remove", form: [:])
            let smallest = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": ""])
            XCTAssertEqual(smallest.status, .seeOther, smallest.text)
        }
    }

    /// The orders page lists newest first with each order's first dish and how many more, pages
    /// with the shared cursor, and refuses a cursor it did not make.
    func testTheOrdersPageSummarizesAndPages() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/shop/dishes/\(Fixtures.dakgalbi)")
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.dakgalbi, "quantity": "1"])
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "1"])
            let twoLines = try await browser.post("/shop/orders", form: Fixtures.checkoutForm(key: "list-key-1"))
            XCTAssertEqual(twoLines.status, .seeOther, twoLines.text)
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "1"])
            let oneLine = try await browser.post("/shop/orders", form: Fixtures.checkoutForm(key: "list-key-2"))
            XCTAssertEqual(oneLine.status, .seeOther, oneLine.text)
            let newest = try XCTUnwrap(oneLine.headers.first(name: .location)), older = try XCTUnwrap(twoLines.headers.first(name: .location))

            let page = try await browser.get("/shop/orders")
            XCTAssertEqual(page.status, .ok)
            let newestAt = try XCTUnwrap(page.text.range(of: #"href="\#(newest)""#)), olderAt = try XCTUnwrap(page.text.range(of: #"href="\#(older)""#))
            XCTAssertLessThan(newestAt.lowerBound, olderAt.lowerBound, "newest first")
            XCTAssertTrue(page.text.contains(" 외 1건</span>"), "a two-dish order names its first dish and one more")
            XCTAssertEqual(page.text.components(separatedBy: #"class="order-card card""#).count - 1, 2)

            let first = try await browser.get("/shop/orders?limit=1")
            XCTAssertTrue(first.text.contains(#"href="\#(newest)""#))
            XCTAssertFalse(first.text.contains(#"href="\#(older)""#))
            let more = try XCTUnwrap(first.text.range(of: #"href="/shop/orders\?cursor=[^"]+""#, options: .regularExpression))
            let next = String(first.text[more].dropFirst(6).dropLast())
            let second = try await browser.get(next + "&limit=1")
            XCTAssertTrue(second.text.contains(#"href="\#(older)""#), second.text)
            XCTAssertFalse(second.text.contains(#"href="\#(newest)""#))

            let forged = try await browser.get("/shop/orders?cursor=not-a-cursor")
            XCTAssertEqual(forged.status, .badRequest)
            var stranger = CookieBrowser(app: app)
            let theirs = try await stranger.get("/shop/orders")
            XCTAssertFalse(theirs.text.contains("order-card"), "another browser has no orders")
        }
    }

    /// An order's page is one statement of rows (`orderView`): its lines in the order they were
    /// added, its totals, and what a cancellation leaves.
    func testTheOrderPageShowsItsLinesTotalsAndCancellation() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/shop/dishes/\(Fixtures.bulgogi)")
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "2"])
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.dakgalbi, "quantity": "1"])
            let placed = try await browser.post("/shop/orders", form: Fixtures.checkoutForm(key: "detail-key-1"))
            XCTAssertEqual(placed.status, .seeOther, placed.text)
            let location = try XCTUnwrap(placed.headers.first(name: .location))
            let order = try await BanchanOrder.query(on: app.db).with(\.$items).first()
            let stored = try XCTUnwrap(order)

            let page = try await browser.get(location)
            XCTAssertEqual(page.status, .ok)
            let lines = stored.lines
            XCTAssertEqual(lines.map(\.quantity), [2, 1])
            let firstAt = try XCTUnwrap(page.text.range(of: "<span>\(lines[0].title)</span>"))
            let secondAt = try XCTUnwrap(page.text.range(of: "<span>\(lines[1].title)</span>"))
            XCTAssertLessThan(firstAt.lowerBound, secondAt.lowerBound, "in the order they were added")
            XCTAssertTrue(page.text.contains("\(Won.format(lines[0].unitPrice)) × 2"))
            XCTAssertTrue(page.text.contains(#"id="order-grand-total">\#(Won.format(stored.total))<"#))
            XCTAssertTrue(page.text.contains(#"id="cancel-order""#))
            XCTAssertFalse(page.text.contains("취소 사유"))

            let cancelled = try await browser.post(location + "/cancel", form: [:])
            XCTAssertEqual(cancelled.headers.first(name: .location), location)
            let after = try await browser.get(location)
            XCTAssertTrue(after.text.contains(#"id="order-status">주문 취소<"#), after.text)
            XCTAssertTrue(after.text.contains("취소 사유: 고객 요청으로 취소"))
            XCTAssertFalse(after.text.contains(#"id="cancel-order""#), "a cancelled order cannot be cancelled again")

            let unknown = try await browser.get("/shop/orders/\(UUID())")
            XCTAssertEqual(unknown.status, .notFound)
        }
    }

    func testADoubleSubmittedCheckoutOrdersOnceAndOrdersStayWithTheirBrowser() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/shop/dishes/\(Fixtures.dakgalbi)")
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.dakgalbi, "quantity": "1"])
            _ = try await browser.get("/shop/cart")
            // The page is kept by what it shows, but each checkout shown carries its own key (a
            // key shared by two checkouts would answer the second with the first's order).
            var keys: [String] = []
            for _ in 0..<2 {
                let page = try await browser.get("/shop/checkout").text
                let start = try XCTUnwrap(page.range(of: #"name="idempotencyKey" value=""#), page).upperBound
                keys.append(String(page[start...].prefix { $0 != "\"" }))
            }
            XCTAssertTrue(keys.allSatisfy { $0.count >= 16 }, "\(keys)")
            XCTAssertNotEqual(keys[0], keys[1])
            let first = try await browser.post("/shop/orders", form: Fixtures.checkoutForm(key: "page-key-1"))
            let second = try await browser.post("/shop/orders", form: Fixtures.checkoutForm(key: "page-key-1"))
            XCTAssertEqual(first.status, .seeOther)
            XCTAssertEqual(first.headers.first(name: .location), second.headers.first(name: .location))
            let count = try await BanchanOrder.query(on: app.db).count()
            XCTAssertEqual(count, 1)
            let location = try XCTUnwrap(first.headers.first(name: .location))

            let mine = try await browser.get(location)
            XCTAssertEqual(mine.status, .ok)
            XCTAssertTrue(mine.text.contains("결제 대기"))
            var stranger = CookieBrowser(app: app)
            let theirs = try await stranger.get(location)
            XCTAssertEqual(theirs.status, .notFound)
            _ = try await stranger.get("/shop")
            let strangerPays = try await stranger.post(location + "/pay", form: [:])
            XCTAssertEqual(strangerPays.status, .notFound)

            let paid = try await browser.post(location + "/pay", form: [:])
            XCTAssertEqual(paid.headers.first(name: .location), location + "/complete", "paying leads to the confirmation")
            let after = try await browser.get(location)
            XCTAssertTrue(after.text.contains("결제 완료"))
            let history = try await browser.get("/shop/orders")
            XCTAssertTrue(history.text.contains("결제 완료"))
        }
    }

    func testASignedInShoppersCartIsTheirAccounts() async throws {
        try await withTestApp { app in
            let tokens = try await app.signUp()
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", form: ["email": "mina@example.com", "password": "password1"])
            _ = try await browser.get("/shop/dishes/\(Fixtures.dakgalbi)")
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.dakgalbi, "quantity": "2"])
            let api = try await app.send(.GET, "/api/v1/banchan/cart", token: tokens.accessToken)
            XCTAssertEqual((try api.object()["items"] as? [[String: Any]])?.first?["quantity"] as? Int, 2)
        }
    }
}
