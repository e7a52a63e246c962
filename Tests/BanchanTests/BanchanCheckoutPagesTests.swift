@testable import Banchan
import Fluent
import Platform
import WhatWeEatTesting
import XCTVapor

/// Checkout, the confirmation, the receipt and the address book as a browser meets them (cookies,
/// CSRF, a refused form shown again with what was typed, another account's pages).
final class BanchanCheckoutPagesTests: XCTestCase {
    func testCheckoutPlacesTheOrderKeepsTheAddressAndLeadsToTheReceipt() async throws {
        try await withTestApp { app in
            let buyer = try await app.member("구매자")
            var browser = try await CookieBrowser.signedIn(app, as: buyer.email)
            _ = try await browser.get("/shop/dishes/\(Fixtures.bulgogi)")
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "1"])
            let cart = try await browser.get("/shop/cart")
            XCTAssertTrue(try openingTag(cart, "to-checkout").contains(#"href="/shop/checkout""#))
            let checkout = try await browser.get("/shop/checkout")
            XCTAssertEqual(checkout.status, .ok, checkout.text)
            for field in ["recipient", "phone", "postcode", "address", "addressDetail", "note"] {
                XCTAssertTrue(checkout.text.contains(#"name="\#(field)""#), field)
            }
            for slot in Delivery.Slot.allCases { XCTAssertFalse(try openingTag(checkout, "slot-\(slot.rawValue)").contains("disabled")) }
            for method in ["card", "trans", "vbank", "phone", "kakaopay", "naverpay", "tosspay"] {
                XCTAssertTrue(checkout.text.contains(#"id="method-\#(method)""#), method)
            }
            XCTAssertTrue(checkout.text.contains("카카오페이"))
            XCTAssertTrue(try openingTag(checkout, "method-card").contains("checked"))
            XCTAssertTrue(try openingTag(checkout, "checkout-save-address").contains("checked"), "keeping a new address is offered")

            var form = Fixtures.checkoutForm(key: "checkout-page-1")
            form["saveAddress"] = "on"
            form["note"] = "경비실에 맡겨 주세요"
            let placed = try await browser.post("/shop/orders", form: form)
            XCTAssertEqual(placed.status, .seeOther, placed.text)
            let location = try XCTUnwrap(placed.headers.first(name: .location))
            XCTAssertNotNil(location.range(of: "^/shop/orders/[0-9a-f-]{36}$", options: .regularExpression), location)
            let saved = try await CheckoutSupport.addresses(app, buyer)
            XCTAssertEqual(saved.count, 1)
            XCTAssertEqual(saved.first?["recipient"] as? String, "김반찬")
            XCTAssertEqual(saved.first?["addressDetail"] as? String, "101동 202호")
            XCTAssertEqual(saved.first?["isDefault"] as? Bool, true)
            let savedID = try XCTUnwrap(UUID(uuidString: saved.first?["id"] as? String ?? ""))

            let page = try await browser.get(location)
            XCTAssertTrue(page.text.contains(#"id="delivery-recipient">김반찬 · 010-1234-5678<"#), page.text)
            XCTAssertTrue(page.text.contains(#"id="delivery-address">서울시 마포구 월드컵로 1 101동 202호<"#))
            XCTAssertTrue(page.text.contains(#"id="delivery-slot">택배 · "#))
            XCTAssertTrue(page.text.contains(#"id="delivery-note">경비실에 맡겨 주세요<"#))
            XCTAssertFalse(page.text.contains(#"id="receipt-link""#), "no receipt before paying")
            let unpaidReceipt = try await browser.get(location + "/receipt")
            XCTAssertEqual(unpaidReceipt.status, .seeOther)
            XCTAssertEqual(unpaidReceipt.headers.first(name: .location), location, "an unpaid order is paid on its page first")
            let unpaidComplete = try await browser.get(location + "/complete")
            XCTAssertEqual(unpaidComplete.headers.first(name: .location), location)

            let paid = try await browser.post(location + "/pay", form: [:])
            XCTAssertEqual(paid.status, .seeOther, paid.text)
            XCTAssertEqual(paid.headers.first(name: .location), location + "/complete")
            let id = String(location.split(separator: "/").last ?? "")
            let order = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", token: buyer.token).object()
            let number = try XCTUnwrap(order["number"] as? String)
            let total = try XCTUnwrap(order["total"] as? Int), fee = try XCTUnwrap(order["deliveryFee"] as? Int)
            XCTAssertEqual(fee, 2_500, "23,900원 is under the free-delivery line")
            let complete = try await browser.get(location + "/complete")
            XCTAssertEqual(complete.status, .ok)
            XCTAssertTrue(complete.text.contains("주문이 완료됐어요"))
            XCTAssertTrue(complete.text.contains(number), complete.text)
            XCTAssertTrue(complete.text.contains(#"id="complete-total">\#(Won.format(total))<"#))

            let receipt = try await browser.get(location + "/receipt")
            XCTAssertEqual(receipt.status, .ok)
            XCTAssertTrue(receipt.text.contains(#"id="receipt-number">\#(number)<"#), receipt.text)
            XCTAssertTrue(receipt.text.contains(#"id="receipt-total">\#(Won.format(total))<"#))
            XCTAssertTrue(receipt.text.contains(#"id="receipt-delivery-fee">\#(Won.format(fee))<"#))
            XCTAssertTrue(receipt.text.contains(#"id="receipt-discount">−\#(Won.format(28_900 - 23_900))<"#), "불고기 was on sale")
            XCTAssertTrue(receipt.text.contains(#"id="receipt-method">신용·체크카드<"#))
            let paidPage = try await browser.get(location)
            XCTAssertTrue(paidPage.text.contains(#"id="receipt-link""#))
            let strangerMember = try await app.member("다른사람")
            var stranger = try await CookieBrowser.signedIn(app, as: strangerMember.email)
            let theirs = try await stranger.get(location + "/receipt")
            XCTAssertEqual(theirs.status, .notFound)

            // Next time checkout starts from the kept address; choosing it needs no typing.
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.dakgalbi, "quantity": "1"])
            let next = try await browser.get("/shop/checkout")
            XCTAssertTrue(try openingTag(next, "address-\(savedID.uuidString)").contains("checked"), "the default is chosen")
            XCTAssertFalse(try openingTag(next, "address-new").contains("checked"))
            let again = try await browser.post("/shop/orders", form: [
                "idempotencyKey": "checkout-page-2", "addressChoice": savedID.uuidString, "slot": "parcel", "paymentMethod": "tosspay",
            ])
            XCTAssertEqual(again.status, .seeOther, again.text)
            let secondLocation = try XCTUnwrap(again.headers.first(name: .location))
            let second = try await app.send(.GET, "/api/v1/banchan/orders/\(secondLocation.split(separator: "/").last ?? "")", token: buyer.token).object()
            XCTAssertEqual((second["delivery"] as? [String: Any])?["recipient"] as? String, "김반찬")
            XCTAssertEqual(second["paymentMethod"] as? String, "tosspay")
            let stillOne = try await CheckoutSupport.addresses(app, buyer)
            XCTAssertEqual(stillOne.count, 1, "a saved address chosen is not saved again")
            _ = try await browser.post(secondLocation + "/pay", form: [:])
            let plainReceipt = try await browser.get(secondLocation + "/receipt")
            XCTAssertEqual(plainReceipt.status, .ok)
            XCTAssertFalse(plainReceipt.text.contains(#"id="receipt-discount""#), "닭갈비 has no sale")
            XCTAssertTrue(plainReceipt.text.contains(#"id="receipt-method">토스페이<"#))
        }
    }

    func testACheckoutWithABadPhoneShowsWhyKeepsWhatWasTypedAndPlacesNothing() async throws {
        try await withTestApp { app in
            let buyer = try await app.member("구매자")
            var browser = try await CookieBrowser.signedIn(app, as: buyer.email)
            _ = try await browser.get("/shop/dishes/\(Fixtures.bulgogi)")
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "2"])
            _ = try await browser.get("/shop/checkout")
            var form = Fixtures.checkoutForm(key: "bad-phone-1")
            form["phone"] = "12345"
            form["saveAddress"] = "on"
            let refused = try await browser.post("/shop/orders", form: form)
            XCTAssertEqual(refused.status, .unprocessableEntity, refused.text)
            XCTAssertTrue(refused.text.contains("연락처를 010-1234-5678처럼 적어 주세요."), refused.text)
            XCTAssertTrue(try openingTag(refused, "checkout-recipient").contains(#"value="김반찬""#))
            XCTAssertTrue(try openingTag(refused, "checkout-phone").contains(#"value="12345""#))
            XCTAssertTrue(try openingTag(refused, "checkout-address").contains(#"value="서울시 마포구 월드컵로 1""#))
            let orders = try await CheckoutSupport.orderCount(app, buyer)
            XCTAssertEqual(orders, 0)
            let saved = try await CheckoutSupport.addresses(app, buyer)
            XCTAssertTrue(saved.isEmpty, "nothing kept from a refused checkout")
            let cart = try await app.send(.GET, "/api/v1/banchan/cart", token: buyer.token).object()
            XCTAssertEqual((cart["items"] as? [[String: Any]])?.first?["quantity"] as? Int, 2, "the cart is as it was")

            // Fixed and sent again: placed.
            form["phone"] = "010-1234-5678"
            let placed = try await browser.post("/shop/orders", form: form)
            XCTAssertEqual(placed.status, .seeOther, placed.text)
        }
    }

    func testTheAddressBookPages() async throws {
        try await withTestApp { app in
            // Without an account: asked to sign in; nothing listed, nothing kept.
            var anonymous = CookieBrowser(app: app)
            _ = try await anonymous.get("/shop/dishes/\(Fixtures.bulgogi)")
            let prompt = try await anonymous.get("/shop/addresses")
            XCTAssertEqual(prompt.status, .ok)
            XCTAssertTrue(prompt.text.contains("로그인하면 배송지를 저장해 두고"), prompt.text)
            XCTAssertFalse(prompt.text.contains(#"id="addresses""#))
            _ = try await anonymous.post("/shop/addresses", form: CheckoutSupport.address("익명"))
            let none = try await app.rowCount("banchan_addresses")
            XCTAssertEqual(none, 0)

            let buyer = try await app.member("구매자")
            var browser = try await CookieBrowser.signedIn(app, as: buyer.email)
            let empty = try await browser.get("/shop/addresses")
            XCTAssertTrue(empty.text.contains(#"id="addresses-empty""#), empty.text)
            let newForm = try await browser.get("/shop/addresses/new")
            XCTAssertTrue(newForm.text.contains(#"id="address-form""#))
            let added = try await browser.post("/shop/addresses", form: CheckoutSupport.address("이웃집", phone: "01055556666"))
            XCTAssertEqual(added.status, .seeOther, added.text)
            XCTAssertEqual(added.headers.first(name: .location), "/shop/addresses")
            let list = try await browser.get("/shop/addresses")
            XCTAssertEqual(list.text.components(separatedBy: #"class="card stack address-card""#).count - 1, 1)
            XCTAssertTrue(list.text.contains("010-5555-6666"))
            XCTAssertTrue(list.text.contains("(04524) 서울시 중구 세종대로 110 2층"))
            XCTAssertTrue(list.text.contains(#"<span class="badge">기본 배송지</span>"#), "the first is the default")

            let bad = try await browser.post("/shop/addresses", form: CheckoutSupport.address("삼촌", phone: "12345"))
            XCTAssertEqual(bad.status, .unprocessableEntity)
            XCTAssertTrue(bad.text.contains("연락처를 010-1234-5678처럼 적어 주세요."))
            XCTAssertTrue(try openingTag(bad, "address-recipient").contains(#"value="삼촌""#))

            var office = CheckoutSupport.address("회사")
            office["isDefault"] = "on"
            _ = try await browser.post("/shop/addresses", form: office)
            var saved = try await CheckoutSupport.addresses(app, buyer)
            XCTAssertEqual(saved.compactMap { $0["recipient"] as? String }, ["회사", "이웃집"])
            XCTAssertEqual(saved.compactMap { $0["isDefault"] as? Bool }, [true, false])
            let officeID = try XCTUnwrap(saved[0]["id"] as? String), homeID = try XCTUnwrap(saved[1]["id"] as? String)

            let edit = try await browser.get("/shop/addresses/\(homeID)/edit")
            XCTAssertEqual(edit.status, .ok)
            XCTAssertTrue(try openingTag(edit, "address-recipient").contains(#"value="이웃집""#))
            var changed = CheckoutSupport.address("옆집", phone: "010-5555-6666")
            changed["addressDetail"] = "3층"
            let edited = try await browser.post("/shop/addresses/\(homeID)/edit", form: changed)
            XCTAssertEqual(edited.headers.first(name: .location), "/shop/addresses", edited.text)
            let made = try await browser.post("/shop/addresses/\(homeID)/default", form: [:])
            XCTAssertEqual(made.headers.first(name: .location), "/shop/addresses")
            saved = try await CheckoutSupport.addresses(app, buyer)
            XCTAssertEqual(saved.first?["id"] as? String, homeID)
            XCTAssertEqual(saved.first?["recipient"] as? String, "옆집")
            XCTAssertEqual(saved.first?["addressDetail"] as? String, "3층")
            XCTAssertEqual(saved.compactMap { $0["isDefault"] as? Bool }, [true, false])

            // Another account can neither see nor remove them.
            let strangerMember = try await app.member("다른사람")
            var stranger = try await CookieBrowser.signedIn(app, as: strangerMember.email)
            let theirEdit = try await stranger.get("/shop/addresses/\(homeID)/edit")
            XCTAssertEqual(theirEdit.status, .notFound)
            _ = try await stranger.get("/shop/addresses/new")   // a form: its CSRF token
            let theirRemove = try await stranger.post("/shop/addresses/\(homeID)/remove", form: [:])
            XCTAssertEqual(theirRemove.headers.first(name: .location), "/shop/addresses", "passed the CSRF check; refused as not found")
            let afterStranger = try await CheckoutSupport.addresses(app, buyer)
            XCTAssertEqual(afterStranger.count, 2)

            let removed = try await browser.post("/shop/addresses/\(officeID)/remove", form: [:])
            XCTAssertEqual(removed.headers.first(name: .location), "/shop/addresses")
            saved = try await CheckoutSupport.addresses(app, buyer)
            XCTAssertEqual(saved.compactMap { $0["id"] as? String }, [homeID])
        }
    }
}
