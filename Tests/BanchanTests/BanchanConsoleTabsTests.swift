@testable import Banchan
import Fluent
import Payments
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Issue 41, the console's tabs beyond orders: Today (what waits for the operator: paid orders to
/// prepare, cancel requests, refunds, the day's orders and takings, sign-ups, free disk), the
/// shop's Catalog (price, sale, stock, section, off sale and back, each audited) and the audit log
/// page; none of them exists for anyone but an administrator.
final class BanchanConsoleTabsTests: XCTestCase {
    func placePaid(_ app: Application, _ buyer: Member) async throws -> String {
        try await placePaidOrder(app, buyer).id
    }

    /// The figure whose label is `label` on the Today page: its value.
    func figure(_ page: String, _ label: String) -> String? {
        guard let labelRange = page.range(of: #"<span class="figure-label">\#(label)</span>"#) else { return nil }
        let before = page[..<labelRange.lowerBound]
        guard let open = before.range(of: #"<span class="figure-value">"#, options: .backwards) else { return nil }
        return before[open.upperBound...].components(separatedBy: "</span>").first
    }

    func testOnlyAdministratorsReachTheTabs() async throws {
        try await withTestApp { app in
            _ = try await app.signUpAdmin("boss@example.com", nickname: "사장님")
            let buyer = try await app.member("구매자")
            for path in ["/admin", "/admin/catalog", "/admin/catalog/dishes/\(Fixtures.bulgogi)", "/admin/audit"] {
                let anonymous = try await app.send(.GET, path)
                XCTAssertEqual(anonymous.status, .notFound, path)
                var someone = try await CookieBrowser.signedIn(app, as: buyer.email)
                let signedIn = try await someone.get(path)
                XCTAssertEqual(signedIn.status, .notFound, path)
            }
            var someone = try await CookieBrowser.signedIn(app, as: buyer.email)
            _ = try await someone.get("/shop")
            let forced = try await someone.post("/admin/catalog/dishes/\(Fixtures.bulgogi)", form: ["salePrice": "1"])
            XCTAssertEqual(forced.status, .notFound)
            let dish = try await app.send(.GET, "/api/v1/banchan/dishes/\(Fixtures.bulgogi)").object()["dish"] as? [String: Any]
            XCTAssertNotNil(dish?["salePrice"] as? Int)
            XCTAssertNotEqual(dish?["salePrice"] as? Int, 1, "nothing changed")

            var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
            for path in ["/admin", "/admin/orders", "/admin/catalog", "/admin/audit"] {
                let page = try await boss.get(path)
                XCTAssertEqual(page.status, .ok, path)
                let tab = path == "/admin" ? "today" : String(path.dropFirst("/admin/".count))
                XCTAssertTrue(page.text.contains(#"id="admin-tab-\#(tab)" aria-current="page""#) || page.text.contains(#"aria-current="page" class="admin-tab current" id="admin-tab-\#(tab)""#)
                              || page.text.range(of: #"class="admin-tab current"[^>]*id="admin-tab-\#(tab)""#, options: .regularExpression) != nil, "\(path) marks its tab")
            }
        }
    }

    func testTodayCountsWhatWaits() async throws {
        try await withTestApp { app in
            let admin = try await app.signUpAdmin("boss@example.com", nickname: "사장님").accessToken
            let buyer = try await app.member("구매자")
            var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
            let before = try await boss.get("/admin")
            XCTAssertEqual(figure(before.text, "준비할 주문 (결제 완료)"), "0")
            let signUps = try XCTUnwrap(Int(figure(before.text, "오늘 가입") ?? ""))
            XCTAssertGreaterThanOrEqual(signUps, 2, "the operator and the buyer signed up today")
            XCTAssertNotNil(figure(before.text, "남은 디스크"))
            XCTAssertTrue(before.text.contains("WhatWeEat \(AppVersion.current) ("), "the console says which version answers")

            _ = try await placePaid(app, buyer)
            let second = try await placePaid(app, buyer)
            _ = try await app.send(.POST, "/api/v1/banchan/orders", raw: #"{"items": [{"hash": "\#(Fixtures.dakgalbi)", "quantity": 1}]}"#, token: buyer.token)
            _ = try await app.send(.POST, "/api/v1/admin/orders/\(second)/status", json: ["status": "preparing"], token: admin)
            _ = try await app.send(.POST, "/api/v1/banchan/orders/\(second)/cancel", json: ["reason": "마음이 바뀌었어요"], token: buyer.token)

            _ = try await app.member("새손님")
            XCTAssertEqual(figure(before.text, "푸시 실패 (오늘)"), "0")
            // Failures counted by any instance (the table they share), today in Korea.
            await app.tally(.pushFailed)
            await app.tally(.pushFailed)
            await app.tally(.smsFailed)
            let after = try await boss.get("/admin")
            XCTAssertEqual(figure(after.text, "푸시 실패 (오늘)"), "2")
            XCTAssertEqual(figure(after.text, "문자 실패 (오늘)"), "1")
            XCTAssertEqual(figure(after.text, "오늘 가입"), String(signUps + 1))
            XCTAssertEqual(figure(after.text, "준비할 주문 (결제 완료)"), "1")
            XCTAssertEqual(figure(after.text, "답할 취소 요청"), "1", "the request the buyer made while it was prepared")
            XCTAssertEqual(figure(after.text, "오늘 들어온 주문"), "3", "placed, paid or not")
            XCTAssertNotNil(figure(after.text, "오늘 결제 2건"), "two paid today")
            XCTAssertTrue(after.text.contains(#"href="/admin/orders?status=paid""#), "the figure leads to those orders")
        }
    }

    func testTheCatalogChangesADishTakesItOffSaleAndBringsItBackEachAudited() async throws {
        try await withTestApp { app in
            _ = try await app.signUpAdmin("boss@example.com", nickname: "사장님")
            var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
            let list = try await boss.get("/admin/catalog")
            XCTAssertTrue(list.text.contains(#"id="catalog-\#(Fixtures.bulgogi)""#))

            let changed = try await boss.post("/admin/catalog/dishes/\(Fixtures.bulgogi)", form: ["salePrice": "19900", "originalPrice": "0", "stock": "7", "section": "main"])
            XCTAssertEqual(changed.status, .seeOther, changed.text)
            func read() async throws -> [String: Any] {
                let detail = try await app.send(.GET, "/api/v1/banchan/dishes/\(Fixtures.bulgogi)").object()
                return (detail["dish"] as? [String: Any] ?? [:]).merging(detail) { summary, _ in summary }
            }
            var dish = try await read()
            XCTAssertEqual(dish["salePrice"] as? Int, 19_900)
            XCTAssertTrue(dish["originalPrice"] is NSNull, "0 removes the sale")
            XCTAssertEqual(dish["stock"] as? Int, 7)
            XCTAssertNotEqual(dish["title"] as? String, "", "a form without the words leaves them as they were")

            // The words a buyer reads, the delivery note included, are the console's too.
            let editPage = try await boss.get("/admin/catalog/dishes/\(Fixtures.bulgogi)")
            XCTAssertTrue(editPage.text.contains(#"id="dish-deliveryInfo""#) && editPage.text.contains(#"id="dish-title""#))
            let worded = try await boss.post("/admin/catalog/dishes/\(Fixtures.bulgogi)", form: [
                "title": "  한우 불고기 500g ", "description": "달콤한 간장 양념", "deliveryInfo": "아이스팩과 함께 보내요.\r\n받는 즉시 냉장 보관해 주세요.",
                "salePrice": "19900", "originalPrice": "0", "stock": "7", "section": "main",
            ])
            XCTAssertEqual(worded.status, .seeOther, worded.text)
            dish = try await read()
            XCTAssertEqual(dish["title"] as? String, "한우 불고기 500g")
            XCTAssertEqual(dish["description"] as? String, "달콤한 간장 양념")
            let shopPage = try await boss.get("/shop/dishes/\(Fixtures.bulgogi)")
            XCTAssertTrue(shopPage.text.contains("아이스팩과 함께 보내요."), "the dish page shows the note")
            let tooLong = try await boss.post("/admin/catalog/dishes/\(Fixtures.bulgogi)", form: [
                "title": "한우 불고기 500g", "deliveryInfo": String(repeating: "가", count: 301), "salePrice": "19900", "stock": "7", "section": "main",
            ])
            XCTAssertEqual(tooLong.status, .unprocessableEntity, "a note past 300 characters is refused")
            let empty = try await boss.post("/admin/catalog/dishes/\(Fixtures.bulgogi)", form: ["title": " ", "salePrice": "19900", "stock": "7", "section": "main"])
            XCTAssertEqual(empty.status, .unprocessableEntity, "a dish keeps a name")
            dish = try await read()
            XCTAssertEqual(dish["title"] as? String, "한우 불고기 500g", "a refused change changes nothing")

            let bad = try await boss.post("/admin/catalog/dishes/\(Fixtures.bulgogi)", form: ["salePrice": "19900", "stock": "7", "section": "dessert"])
            XCTAssertEqual(bad.status, .unprocessableEntity)
            XCTAssertTrue(bad.text.contains("form-error"))
            let negative = try await boss.post("/admin/catalog/dishes/\(Fixtures.bulgogi)", form: ["salePrice": "19900", "stock": "-1", "section": "main"])
            XCTAssertEqual(negative.status, .unprocessableEntity)
            dish = try await read()
            XCTAssertEqual(dish["stock"] as? Int, 7, "a refused change changes nothing")

            let retired = try await boss.post("/admin/catalog/dishes/\(Fixtures.bulgogi)/retire", form: [:])
            XCTAssertEqual(retired.status, .seeOther)
            let gone = try await app.send(.GET, "/api/v1/banchan/dishes/\(Fixtures.bulgogi)")
            XCTAssertEqual(gone.status, .notFound, "off sale")
            let retiredPage = try await boss.get("/admin/catalog/dishes/\(Fixtures.bulgogi)")
            XCTAssertTrue(retiredPage.text.contains(#"id="dish-retired""#))
            let back = try await boss.post("/admin/catalog/dishes/\(Fixtures.bulgogi)", form: ["salePrice": "18900", "stock": "5", "section": "main"])
            XCTAssertEqual(back.status, .seeOther)
            dish = try await read()
            XCTAssertEqual(dish["salePrice"] as? Int, 18_900)
            XCTAssertEqual(dish["stock"] as? Int, 5)

            let entries = try await AuditLog(database: app.db).page(CursorPageRequest())
            XCTAssertEqual(entries.items.map(\.action), ["banchan.dish.add", "banchan.dish.retire", "banchan.dish.change", "banchan.dish.change"])
            XCTAssertEqual(entries.items[2].after?["title"], "한우 불고기 500g", "the words' change is audited too")
            XCTAssertEqual(entries.items.last?.after?["salePrice"], "19900")
            XCTAssertEqual(entries.items.last?.after?["stock"], "7")

            let log = try await boss.get("/admin/audit")
            XCTAssertEqual(log.text.components(separatedBy: #"class="card audit-entry""#).count - 1, 4)
            XCTAssertTrue(log.text.contains("사장님"), "who did it")
            // In words (the UX review: "status=cancel_requested"): what was done to what, and each
            // field from before to after; the machine's action stays beside it.
            XCTAssertTrue(log.text.contains("<strong>상품을 고쳤어요</strong> · 상품 \(Fixtures.bulgogi)"), log.text)
            XCTAssertTrue(log.text.contains("<li>판매가: 23900 → 19900</li>") && log.text.contains("<li>재고: "), "fields from before to after")
            XCTAssertTrue(log.text.contains("<li>분류: 메인요리</li>"), "a field that stayed reads once, in words")
            XCTAssertTrue(log.text.contains("<code>banchan.dish.change</code>"))
            XCTAssertFalse(log.text.contains("salePrice="), "no machine words as the sentence")
            let edit = try await boss.post("/admin/audit", form: [:])
            XCTAssertTrue([.notFound, .methodNotAllowed].contains(edit.status), "the log has nothing to change it with")
        }
    }

    func testThePackingListAndACancelThatAsksForTheReasonTheBuyerReads() async throws {
        try await withTestApp { app in
            _ = try await app.signUpAdmin("boss@example.com", nickname: "사장님")
            let buyer = try await app.member("구매자")
            var browser = try await CookieBrowser.signedIn(app, as: buyer.email)
            _ = try await browser.get("/shop/dishes/\(Fixtures.bulgogi)")
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "2"])
            _ = try await browser.get("/shop/checkout")
            let placed = try await browser.post("/shop/orders", form: Fixtures.checkoutForm(key: "packing-1"))
            let location = try XCTUnwrap(placed.headers.first(name: .location))
            let id = String(location.split(separator: "/").last ?? "")
            _ = try await browser.get(location)
            _ = try await browser.post(location + "/pay", form: [:])
            _ = try await placePaid(app, buyer)   // through the API: no address

            var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
            let list = try await boss.get("/admin/orders/packing")
            XCTAssertTrue(location.hasPrefix("/shop/orders/"), location)
            XCTAssertEqual(list.status, .ok)
            XCTAssertTrue(list.text.contains("포장할 주문 2건"), "both paid orders of today")
            XCTAssertTrue(list.text.contains("김반찬 · 010-1234-5678") && list.text.contains("101동 202호"), "the slip says where it goes")
            XCTAssertTrue(list.text.contains("배송지 없이 들어온 주문"), "an order without an address says so")
            let picks = try XCTUnwrap(list.text.components(separatedBy: #"id="packing-picks""#).last?.components(separatedBy: "</table>").first)
            XCTAssertTrue(picks.contains(#"<td class="number">3</td>"#), "two and one of the same dish: pick three")
            let otherDay = try await boss.get("/admin/orders/packing?day=2001-01-01")
            XCTAssertTrue(otherDay.text.contains("포장할 주문 0건"))
            let badDay = try await boss.get("/admin/orders/packing?day=soon")
            XCTAssertEqual(badDay.status, .badRequest)
            var someone = try await CookieBrowser.signedIn(app, as: buyer.email)
            let hidden = try await someone.get("/admin/orders/packing")
            XCTAssertEqual(hidden.status, .notFound)

            // Cancelling from the console asks first, with the words the buyer reads.
            let detail = try await boss.get("/admin/orders/\(id)")
            XCTAssertTrue(detail.text.contains(#"href="/admin/orders/\#(id.lowercased())/cancel""#), "cancel is a link to a question, not one tap")
            let ask = try await boss.get("/admin/orders/\(id)/cancel")
            XCTAssertTrue(ask.text.contains("환불돼요") && ask.text.contains(#"value="가게 사정으로 취소""#))
            let cancelled = try await boss.post("/admin/orders/\(id)/status", form: ["status": "cancelled", "reason": "재료가 다 떨어졌어요"])
            XCTAssertEqual(cancelled.status, .seeOther)
            let order = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", token: buyer.token).object()
            XCTAssertEqual(order["status"] as? String, "cancelled")
            XCTAssertEqual(order["cancelReason"] as? String, "재료가 다 떨어졌어요", "the operator's words reach the buyer")
            let after = try await boss.get("/admin/orders/packing")
            XCTAssertTrue(after.text.contains("포장할 주문 1건"), "a cancelled order is not packed")
        }
    }

    /// A number box emptied in the dish form is named beside what was typed (not a bare error
    /// page) and changes nothing; an emptied list price ends the sale.
    func testAnEmptiedBoxIsNamedInTheFormAndAnEmptiedListPriceEndsTheSale() async throws {
        try await withTestApp { app in
            _ = try await app.signUpAdmin("boss@example.com", nickname: "사장님")
            var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
            _ = try await boss.get("/admin/catalog")
            func read() async throws -> [String: Any] {
                let detail = try await app.send(.GET, "/api/v1/banchan/dishes/\(Fixtures.bulgogi)").object()
                return (detail["dish"] as? [String: Any] ?? [:]).merging(detail) { summary, _ in summary }
            }
            let before = try await read()
            XCTAssertNotNil(before["stock"] as? Int)
            // A box emptied in the form is named beside what was typed, not a bare error page.
            let emptied = try await boss.post("/admin/catalog/dishes/\(Fixtures.bulgogi)", form: ["salePrice": "", "originalPrice": "", "stock": "9", "section": "main"])
            XCTAssertEqual(emptied.status, .unprocessableEntity)
            XCTAssertTrue(emptied.text.contains("판매가 (원): 숫자를 적어 주세요."), emptied.text)
            XCTAssertTrue(emptied.text.contains(#"id="dish-stock" name="stock" value="9""#), "keeps what was typed")
            let noStock = try await boss.post("/admin/catalog/dishes/\(Fixtures.bulgogi)", form: ["salePrice": "19900", "stock": " ", "section": "main"])
            XCTAssertTrue(noStock.text.contains("재고: 숫자를 적어 주세요."))
            var dish = try await read()
            XCTAssertEqual(dish["stock"] as? Int, before["stock"] as? Int, "a refused change changes nothing")
            // An emptied list price ends a sale.
            _ = try await boss.post("/admin/catalog/dishes/\(Fixtures.bulgogi)", form: ["salePrice": "19900", "originalPrice": "25000", "stock": "7", "section": "main"])
            dish = try await read()
            XCTAssertEqual(dish["originalPrice"] as? Int, 25_000)
            let saleEnded = try await boss.post("/admin/catalog/dishes/\(Fixtures.bulgogi)", form: ["salePrice": "19900", "originalPrice": "", "stock": "7", "section": "main"])
            XCTAssertEqual(saleEnded.status, .seeOther, saleEnded.text)
            dish = try await read()
            XCTAssertTrue(dish["originalPrice"] is NSNull)
        }
    }

    /// An operator's move of an order and its audit entry are one transaction: when the entry
    /// cannot be written the order stays where it was, its stock and payment untouched.
    func testAnOrdersMoveIsNotKeptWithoutItsAuditEntry() async throws {
        try await withTestApp { app in
            let admin = try await app.signUpAdmin("boss@example.com", nickname: "사장님").accessToken
            let buyer = try await app.member("구매자")
            let id = try await placePaid(app, buyer)
            let stockBefore = app.banchanListings.listing(hash: Fixtures.bulgogi)?.stock
            try await app.db.sql.raw("ALTER TABLE \(ident: AuditLog.table) RENAME TO audit_log_away").run()
            for status in ["preparing", "cancelled"] {
                let refused = try await app.send(.POST, "/api/v1/admin/orders/\(id)/status", json: ["status": status], token: admin)
                XCTAssertEqual(refused.status, .internalServerError, status)
            }
            try await app.db.sql.raw("ALTER TABLE audit_log_away RENAME TO \(ident: AuditLog.table)").run()
            let order = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", token: buyer.token).object()
            XCTAssertEqual(order["status"] as? String, "paid")
            XCTAssertEqual(app.banchanListings.listing(hash: Fixtures.bulgogi)?.stock, stockBefore, "no stock came back")
            let refunds = try await RefundStore(database: app.db).counts()
            XCTAssertEqual(refunds.pending + refunds.failed, 0, "no refund was asked for")
        }
    }
}
