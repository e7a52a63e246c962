@testable import Banchan
import Fluent
import Platform
import WhatWeEatTesting
import XCTVapor

/// Issue 41, the shop's terms from the console: the delivery fee, the free-delivery total and the
/// 새벽배송 cut-off start from the environment, and once an operator saves them (the console's form
/// or `PUT /api/v1/admin/shop-settings`) every order, page and instance uses the saved ones; bad
/// values change nothing, and only administrators reach them.
final class ShopTermsTests: XCTestCase {
    func settings(_ app: Application, _ token: String) async throws -> [String: Any] {
        let response = try await app.send(.GET, "/api/v1/admin/shop-settings", token: token)
        XCTAssertEqual(response.status, .ok, response.text)
        return try response.object()
    }

    func testTheEnvironmentsTermsHoldUntilAnOperatorSaves() async throws {
        try await withTestApp(adjust: { settings in
            settings.shop.deliveryFee = 3_000
            settings.shop.dawnSchedule = DawnSchedule(cutoffMinutes: 21 * 60 + 30)
        }) { app in
            let admin = try await app.signUpAdmin().accessToken
            let terms = try await settings(app, admin)
            XCTAssertEqual(terms["deliveryFee"] as? Int, 3_000)
            XCTAssertEqual(terms["freeDeliveryFrom"] as? Int, 40_000)
            XCTAssertEqual(terms["dawnCutoff"] as? String, "21:30")
            XCTAssertTrue(terms["savedAt"] is NSNull, "nothing saved yet")
            XCTAssertTrue(terms["savedBy"] is NSNull)
        }
    }

    func testSavedTermsPriceTheNextOrderAndEveryPage() async throws {
        try await withTestApp { app in
            let boss = try await app.member("사장님", admin: true)
            let buyer = try await app.member("구매자")
            // The dish page is rendered once with the old fee, so its kept fragment must follow the change.
            let before = try await app.send(.GET, "/shop/dishes/\(Fixtures.bulgogi)")
            XCTAssertTrue(before.text.contains("2,500원"), "the environment's default fee")
            let first = try await app.send(.POST, "/api/v1/banchan/orders", raw: #"{"items": [{"hash": "\#(Fixtures.bulgogi)", "quantity": 1}]}"#, token: buyer.token)
            XCTAssertEqual(try first.object()["deliveryFee"] as? Int, 2_500)

            let saved = try await app.send(.PUT, "/api/v1/admin/shop-settings", json: ["deliveryFee": 3_500, "freeDeliveryFrom": 90_000], token: boss.token)
            XCTAssertEqual(saved.status, .ok, saved.text)
            let answer = try saved.object()
            XCTAssertEqual(answer["deliveryFee"] as? Int, 3_500)
            XCTAssertEqual(answer["freeDeliveryFrom"] as? Int, 90_000)
            XCTAssertEqual(answer["dawnCutoff"] as? String, "22:00", "a field left out keeps its value")
            XCTAssertEqual(answer["savedBy"] as? String, boss.id.uuidString)
            XCTAssertNotNil(answer["savedAt"] as? String)

            let second = try await app.send(.POST, "/api/v1/banchan/orders", raw: #"{"items": [{"hash": "\#(Fixtures.bulgogi)", "quantity": 1}]}"#, token: buyer.token)
            XCTAssertEqual(try second.object()["deliveryFee"] as? Int, 3_500)
            let firstAgain = try await app.send(.GET, "/api/v1/banchan/orders/\(try XCTUnwrap(first.object()["id"] as? String))", token: buyer.token)
            XCTAssertEqual(try firstAgain.object()["deliveryFee"] as? Int, 2_500, "an order placed keeps its fee")

            let detail = try await app.send(.GET, "/api/v1/banchan/dishes/\(Fixtures.bulgogi)").object()
            let fee = try XCTUnwrap(detail["deliveryFee"] as? [String: Any], "\(detail.keys)")
            XCTAssertEqual(fee["fee"] as? Int, 3_500)
            XCTAssertEqual(fee["freeFrom"] as? Int, 90_000)
            let after = try await app.send(.GET, "/shop/dishes/\(Fixtures.bulgogi)")
            XCTAssertTrue(after.text.contains("3,500원"), "the dish page names the new fee")
            XCTAssertFalse(after.text.contains("2,500원 ("), "and not the old one")
            let shop = try await app.send(.GET, "/shop")
            XCTAssertTrue(shop.text.contains("90,000원"))

            let audit = try await app.send(.GET, "/api/v1/admin/audit", token: boss.token).object()
            let entries = try XCTUnwrap(audit["items"] as? [[String: Any]])
            let entry = try XCTUnwrap(entries.first { $0["action"] as? String == "banchan.terms.change" }, "\(entries)")
            XCTAssertEqual((entry["before"] as? [String: String])?["deliveryFee"], "2500")
            XCTAssertEqual((entry["after"] as? [String: String])?["deliveryFee"], "3500")
            XCTAssertEqual((entry["after"] as? [String: String])?["dawnCutoff"], "22:00")
        }
    }

    func testTheCutoffDecidesTheMorning() async throws {
        try await withTestApp { app in
            let boss = try await app.member("사장님", admin: true)
            let buyer = try await app.member("구매자")
            // 00:00: no moment of the day is before it, so every 새벽배송 waits a night more.
            let saved = try await app.send(.PUT, "/api/v1/admin/shop-settings", json: ["dawnCutoff": "00:00"], token: boss.token)
            XCTAssertEqual(saved.status, .ok, saved.text)
            let delivery: [String: Any] = ["recipient": "김반찬", "phone": "01012345678", "address": "서울시 마포구 월드컵로 1",
                                           "addressDetail": "101동 202호", "slot": "dawn"]
            let body = String(decoding: try JSONSerialization.data(withJSONObject: [
                "items": [["hash": Fixtures.bulgogi, "quantity": 1]], "delivery": delivery] as [String: Any]), as: UTF8.self)
            let placed = try await app.send(.POST, "/api/v1/banchan/orders", raw: body, token: buyer.token)
            XCTAssertEqual(placed.status, .created, placed.text)
            let arrives = try XCTUnwrap((try placed.object()["delivery"] as? [String: Any])?["arrivesOn"] as? String)
            XCTAssertEqual(arrives, DawnSchedule(cutoffMinutes: 0).arrivalDay(placedAt: Date()))
            XCTAssertNotEqual(arrives, DawnSchedule(cutoffMinutes: 24 * 60).arrivalDay(placedAt: Date()), "the morning after next, not the next")
        }
    }

    func testATimeOfDayIsSaidAsPeopleSayIt() {
        let said: [(Int, Language, String)] = [
            (22 * 60, .ko, "밤 10시"), (20 * 60 + 30, .ko, "저녁 8시 30분"), (15 * 60, .ko, "오후 3시"), (12 * 60, .ko, "오후 12시"),
            (9 * 60 + 5, .ko, "오전 9시 5분"), (0, .ko, "새벽 12시"), (90, .ko, "새벽 1시 30분"),
            (22 * 60, .en, "10 pm"), (20 * 60 + 30, .en, "8:30 pm"), (0, .en, "12 am"), (9 * 60 + 5, .en, "9:05 am"),
            (22 * 60, .ja, "夜10時"), (13 * 60 + 15, .ja, "午後1時15分"),
        ]
        for (minutes, language, phrase) in said {
            XCTAssertEqual(SpokenTime.phrase(minutes: minutes, language), phrase, "\(minutes) in \(language)")
        }
    }

    /// Issue 61, point 2: the dish page said "오후 8시까지" (the catalog's text) while checkout said
    /// "밤 22:00까지" (the setting). Every place now says the cut-off in force, one way.
    func testOneCutoffSaidTheSameWayEverywhere() async throws {
        try await withTestApp { app in
            let boss = try await app.member("사장님", admin: true)
            func everywhere(_ phrase: String, file: StaticString = #filePath, line: UInt = #line) async throws {
                var browser = CookieBrowser(app: app)
                let dish = try await browser.get("/shop/dishes/\(Fixtures.bulgogi)")
                let info = try XCTUnwrap(dish.text.firstMatch(of: /id="delivery-info">([^<]*)</)?.1, file: file, line: line)
                XCTAssertTrue(info.contains("새벽배송: \(phrase)까지 주문하면"), String(info), file: file, line: line)
                let added = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "1"])
                XCTAssertEqual(added.status, .seeOther, file: file, line: line)
                let checkout = try await browser.get("/shop/checkout")
                XCTAssertTrue(checkout.text.contains("새벽배송은 \(phrase)까지 주문하면"), "checkout", file: file, line: line)
                let api = try await app.send(.GET, "/api/v1/banchan/dishes/\(Fixtures.bulgogi)").object()
                XCTAssertTrue((api["deliveryInfo"] as? String)?.contains(phrase) == true, "\(api["deliveryInfo"] ?? "")", file: file, line: line)
                let shipped = try await app.send(.GET, "/detail/\(Fixtures.bulgogi)")
                XCTAssertTrue(shipped.text.contains("새벽배송: \(phrase)까지"), "the 배민찬 app's delivery_info", file: file, line: line)
                for text in [dish.text, checkout.text, shipped.text] {
                    XCTAssertNil(text.firstMatch(of: /오후 8시까지|\d{2}:\d{2}까지/), "no other cut-off", file: file, line: line)
                }
            }
            try await everywhere("밤 10시")
            let english = try await app.send(.GET, "/shop/dishes/\(Fixtures.bulgogi)", headers: ["Accept-Language": "en"])
            XCTAssertTrue(english.text.contains("order by 10 pm (Korea time)"), "in the reader's language")

            let saved = try await app.send(.PUT, "/api/v1/admin/shop-settings", json: ["dawnCutoff": "20:30"], token: boss.token)
            XCTAssertEqual(saved.status, .ok, saved.text)
            try await everywhere("저녁 8시 30분")
        }
    }

    func testBadTermsAndOtherAccountsChangeNothing() async throws {
        try await withTestApp { app in
            let boss = try await app.member("사장님", admin: true)
            let member = try await app.member("손님")
            for (body, field) in [(#"{"deliveryFee": -1}"#, "deliveryFee"), (#"{"freeDeliveryFrom": 100000001}"#, "freeDeliveryFrom"),
                                  (#"{"dawnCutoff": "25:00"}"#, "dawnCutoff"), (#"{"dawnCutoff": "7:00"}"#, "dawnCutoff"),
                                  (#"{"deliveryFee": 3000, "dawnCutoff": "아침"}"#, "dawnCutoff")] {
                let refused = try await app.send(.PUT, "/api/v1/admin/shop-settings", raw: body, token: boss.token)
                XCTAssertEqual(refused.status, .unprocessableEntity, body)
                XCTAssertEqual(refused.errorCode, "invalid_shop_setting", body)
                XCTAssertTrue(refused.errorMessage?.contains(field) == true, refused.text)
            }
            let malformed = try await app.send(.PUT, "/api/v1/admin/shop-settings", raw: #"{"deliveryFee": "free"}"#, token: boss.token)
            XCTAssertEqual(malformed.status, .badRequest, malformed.text)
            let empty = try await app.send(.PUT, "/api/v1/admin/shop-settings", token: boss.token)
            XCTAssertEqual(empty.status, .ok, "no body: nothing to change")
            let same = try await app.send(.PUT, "/api/v1/admin/shop-settings", json: ["deliveryFee": 2_500], token: boss.token)
            XCTAssertEqual(same.status, .ok, "the fee in force: nothing to change")
            let nulls = try await app.send(.PUT, "/api/v1/admin/shop-settings", raw: #"{"deliveryFee": null, "dawnCutoff": null}"#, token: boss.token)
            XCTAssertEqual(try nulls.object()["deliveryFee"] as? Int, 2_500, "null keeps the value in force")
            let notAdmin = try await app.send(.PUT, "/api/v1/admin/shop-settings", json: ["deliveryFee": 0], token: member.token)
            XCTAssertEqual(notAdmin.status, .forbidden)
            let anonymous = try await app.send(.GET, "/api/v1/admin/shop-settings")
            XCTAssertEqual(anonymous.status, .unauthorized)

            let terms = try await settings(app, boss.token)
            XCTAssertEqual(terms["deliveryFee"] as? Int, 2_500)
            XCTAssertEqual(terms["dawnCutoff"] as? String, "22:00")
            XCTAssertTrue(terms["savedAt"] is NSNull, "nothing was saved, not even terms equal to those in force")
            let audit = try await app.send(.GET, "/api/v1/admin/audit", token: boss.token).object()
            XCTAssertFalse((audit["items"] as? [[String: Any]] ?? []).contains { $0["action"] as? String == "banchan.terms.change" })
        }
    }

    func testTheConsolesForm() async throws {
        try await withTestApp { app in
            let boss = try await app.member("사장님", admin: true)
            let member = try await app.member("손님")
            var browser = try await CookieBrowser.signedIn(app, as: boss.email)
            let form = try await browser.get("/admin/catalog/shop")
            XCTAssertEqual(form.status, .ok)
            XCTAssertTrue(form.text.contains(#"value="2500""#), "the fee in force")
            XCTAssertTrue(form.text.contains(#"value="22:00""#))
            XCTAssertTrue(form.text.contains("DELIVERY_FEE"), "says the environment's values hold")
            XCTAssertTrue(form.text.contains(#"id="catalog-nav-shop""#))

            let bad = try await browser.post("/admin/catalog/shop", form: ["deliveryFee": "3000", "freeDeliveryFrom": "50000", "dawnCutoff": "99:99"])
            XCTAssertEqual(bad.status, .unprocessableEntity)
            XCTAssertTrue(bad.text.contains("새벽배송 마감은 00:00–23:59"), "says why in Korean")
            XCTAssertTrue(bad.text.contains(#"value="99:99""#) && bad.text.contains(#"value="3000""#), "keeps what was typed")
            XCTAssertEqual(app.shopTermsInForce.terms.delivery.fee, 2_500, "nothing changed")

            let emptied = try await browser.post("/admin/catalog/shop", form: ["deliveryFee": "", "freeDeliveryFrom": "50000", "dawnCutoff": "21:00"])
            XCTAssertEqual(emptied.status, .unprocessableEntity)
            XCTAssertTrue(emptied.text.contains("배송비 (원): 숫자를 적어 주세요."), "names the emptied box")
            XCTAssertEqual(app.shopTermsInForce.terms.delivery.fee, 2_500, "nothing changed")

            let saved = try await browser.post("/admin/catalog/shop", form: ["deliveryFee": "3000", "freeDeliveryFrom": "50000", "dawnCutoff": "21:00"])
            XCTAssertEqual(saved.status, .seeOther)
            XCTAssertEqual(saved.headers.first(name: .location), "/admin/catalog/shop?saved=1")
            let again = try await browser.get("/admin/catalog/shop?saved=1")
            XCTAssertTrue(again.text.contains("저장했어요"), "says it was saved")
            XCTAssertTrue(again.text.contains(#"value="3000""#) && again.text.contains(#"value="50000""#) && again.text.contains(#"value="21:00""#))
            XCTAssertTrue(again.text.contains("마지막 저장"))
            XCTAssertFalse(again.text.contains("DELIVERY_FEE"))
            XCTAssertEqual(app.shopTermsInForce.terms, ShopTerms(delivery: DeliveryFeeRule(fee: 3_000, freeFrom: 50_000), dawn: DawnSchedule(cutoffMinutes: 21 * 60)))

            var someone = try await CookieBrowser.signedIn(app, as: member.email)
            let hidden = try await someone.get("/admin/catalog/shop")
            XCTAssertEqual(hidden.status, .notFound)
            _ = try await someone.get("/shop")
            let forced = try await someone.post("/admin/catalog/shop", form: ["deliveryFee": "0"])
            XCTAssertEqual(forced.status, .notFound)
            XCTAssertEqual(app.shopTermsInForce.terms.delivery.fee, 3_000)
        }
    }

    /// What another instance does: its terms in memory follow a save it did not make, when the
    /// save is announced on the event bus; and an instance starting later reads them at its seed.
    func testEveryInstanceFollowsASave() async throws {
        try await withTestApp { app in
            let saved = ShopTerms(delivery: DeliveryFeeRule(fee: 1_000, freeFrom: 20_000), dawn: DawnSchedule(cutoffMinutes: 20 * 60))
            _ = try await app.banchanStore.saveTerms(saved, by: nil, at: Date())
            XCTAssertEqual(app.shopTermsInForce.terms.delivery.fee, 2_500, "not taken before it is announced")
            await ShopTermsInForce.announceChange(on: app.events)
            let deadline = Date().addingTimeInterval(5)
            while app.shopTermsInForce.terms != saved, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
            XCTAssertEqual(app.shopTermsInForce.terms, saved)

            let starting = ShopTermsInForce(environment: ShopSettings().terms)
            try await starting.load(from: app.banchanStore)
            XCTAssertEqual(starting.terms, saved)
            XCTAssertEqual(starting.current.revision, 1)
        }
    }
}
