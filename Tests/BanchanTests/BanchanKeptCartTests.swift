@testable import Banchan
import Fluent
import Payments
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Each owner's cart is kept (`KeptCarts`): every change of the cart — a dish added, its quantity
/// changed, removed, an order emptying the cart, a device's cart merged at sign-in, a dish's stock,
/// another instance's change announced — shows on the next page, in the header and on the cart.
/// The same for orders (`KeptOrders`), the shop's other memory of a reader's own.
final class BanchanKeptCartTests: XCTestCase {
    /// Asserts the count `path`'s header shows (0 when it shows none).
    private func expectCount(_ browser: inout CookieBrowser, _ path: String, _ expected: Int, _ message: String = "",
                             line: UInt = #line) async throws {
        let page = try await browser.get(path)
        var shown = 0
        if let start = page.text.range(of: #"<span class="cart-count">"#)?.upperBound {
            shown = try XCTUnwrap(Int(page.text[start...].prefix { $0.isNumber }), line: line)
        }
        XCTAssertEqual(shown, expected, message, line: line)
    }

    func testTheHeadersCountFollowsEveryChangeOfTheCart() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/shop")
            try await expectCount(&browser, "/shop/orders", 0)
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.dakgalbi, "quantity": "2"])
            try await expectCount(&browser, "/shop/orders", 2)
            try await expectCount(&browser, "/shop/orders", 2, "kept, and still right")
            _ = try await browser.get("/shop/cart")
            _ = try await browser.post("/shop/cart/\(Fixtures.dakgalbi)", form: ["quantity": "3"])
            try await expectCount(&browser, "/shop", 3)
            _ = try await browser.post("/shop/cart/\(Fixtures.dakgalbi)/remove", form: [:])
            try await expectCount(&browser, "/shop/orders", 0)

            // An order from the cart empties it.
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.dakgalbi, "quantity": "1"])
            try await expectCount(&browser, "/shop/orders", 1)
            _ = try await browser.get("/shop/checkout")
            let placed = try await browser.post("/shop/orders", form: Fixtures.checkoutForm(key: "count-key-1"))
            XCTAssertEqual(placed.status, .seeOther, placed.text)
            try await expectCount(&browser, "/shop/orders", 0)

            // Another instance changed this cart: its announcement is what this one follows.
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.dakgalbi, "quantity": "2"])
            try await expectCount(&browser, "/shop/orders", 2)
            let owner = Principal.device(try XCTUnwrap(browser.cookies["wwe_device"])).key
            try await (app.db as! any SQLDatabase).update(CartItem.schema).set("quantity", to: SQLBind(5))
                .where("owner_key", .equal, SQLBind(owner)).run()
            try await expectCount(&browser, "/shop/orders", 2, "kept until told")
            await app.events.publish(owner, to: KeptCarts.topic)
            try await Task.sleep(for: .milliseconds(50))
            try await expectCount(&browser, "/shop/orders", 5)
        }
    }

    func testSigningInMergesTheDevicesCountIntoTheAccounts() async throws {
        try await withTestApp { app in
            _ = try await app.signUp()
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/shop")
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.dakgalbi, "quantity": "2"])
            try await expectCount(&browser, "/shop/orders", 2)
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", form: ["email": "mina@example.com", "password": "password1"])
            try await expectCount(&browser, "/shop/orders", 2, "the device's cart is the account's now")
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.dakgalbi, "quantity": "1"])
            try await expectCount(&browser, "/shop/orders", 3)
        }
    }

    /// The cart's lines carry each dish's stock: a stock change (which moves the listings' version)
    /// shows on the next read of a kept cart, and an order from the cart reads the cart itself.
    func testAKeptCartFollowsStockAndAnOrderReadsTheCartItself() async throws {
        try await withTestApp { app in
            func cartItems(_ device: HTTPHeaders) async throws -> [[String: Any]] {
                let cart = try await app.send(.GET, "/api/v1/banchan/cart", headers: device)
                return try XCTUnwrap(cart.object()["items"] as? [[String: Any]])
            }
            // Changed behind the memory's back: pages still show the kept cart, an order does not.
            let device: HTTPHeaders = ["X-Device-Token": "kept-cart-device-1"]
            let put = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.bulgogi)", json: ["quantity": 2], headers: device)
            XCTAssertEqual(put.status, .ok, put.text)
            // Announcements of the writes above come back from the bus too: let them land first.
            try await Task.sleep(for: .milliseconds(100))
            let before = try await cartItems(device)
            XCTAssertEqual(before.first?["quantity"] as? Int, 2)
            try await (app.db as! any SQLDatabase).update(CartItem.schema).set("quantity", to: SQLBind(3))
                .where("owner_key", .equal, SQLBind(Principal.device("kept-cart-device-1").key)).run()
            let kept = try await cartItems(device)
            XCTAssertEqual(kept.first?["quantity"] as? Int, 2, "kept until told")
            let order = try await app.send(.POST, "/api/v1/banchan/orders", raw: "{}", headers: device)
            XCTAssertEqual(order.status, .created, order.text)
            let items = try XCTUnwrap(order.object()["items"] as? [[String: Any]])
            XCTAssertEqual(items.first?["quantity"] as? Int, 3, "the order took the cart as stored")

            // A dish's stock moving (the listings' version) shows on the next read of a kept cart.
            let other: HTTPHeaders = ["X-Device-Token": "kept-cart-device-2"]
            let putOther = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.bulgogi)", json: ["quantity": 1], headers: other)
            XCTAssertEqual(putOther.status, .ok, putOther.text)
            _ = try await cartItems(other)
            let admin = try await app.signUpAdmin().accessToken
            let patched = try await app.send(.PATCH, "/api/v1/banchan/dishes/\(Fixtures.bulgogi)", json: ["stock": 7], token: admin)
            XCTAssertEqual(patched.status, .ok, patched.text)
            let after = try await cartItems(other)
            XCTAssertEqual(after.first?["stock"] as? Int, 7, "the kept cart was read again at the new listings' version")
        }
    }

    /// Orders are kept at the orders' version (`KeptOrders`): a new order shows in its owner's list,
    /// a payment on its page; a change behind the memory's back does not until an instance says an
    /// order changed.
    func testKeptOrdersFollowEveryAnnouncedChange() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/shop")
            let token = try XCTUnwrap(browser.cookies["wwe_device"])
            let empty = try await browser.get("/shop/orders")
            XCTAssertFalse(empty.text.contains("order-card"), "no orders yet (and that is kept)")
            let placed = try await app.send(.POST, "/api/v1/banchan/orders", raw: #"{"items": [{"hash": "\#(Fixtures.bulgogi)", "quantity": 1}]}"#,
                                            headers: ["X-Device-Token": token])
            XCTAssertEqual(placed.status, .created, placed.text)
            let order = try placed.object()
            let id = try XCTUnwrap(order["id"] as? String).lowercased()
            let listed = try await browser.get("/shop/orders")
            XCTAssertTrue(listed.text.contains("/shop/orders/\(id)"), "the new order is listed")
            var page = try await browser.get("/shop/orders/\(id)")
            XCTAssertTrue(page.text.contains(#"data-status="awaiting_payment""#))
            // The console's list of paid orders, read (and kept) before the payment.
            let admin = try await app.signUpAdmin().accessToken
            func paidInConsole() async throws -> [String] {
                let list = try await app.send(.GET, "/api/v1/admin/orders?status=paid", token: admin)
                XCTAssertEqual(list.status, .ok, list.text)
                return try XCTUnwrap(list.object()["items"] as? [[String: Any]]).compactMap { ($0["id"] as? String)?.lowercased() }
            }
            let before = try await paidInConsole()
            XCTAssertEqual(before, [])
            let payment = TestPaymentGateway.paymentID(merchantUID: try XCTUnwrap(order["merchantUID"] as? String), amount: try XCTUnwrap(order["total"] as? Int))
            let paid = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": payment], headers: ["X-Device-Token": token])
            XCTAssertEqual(paid.status, .ok, paid.text)
            page = try await browser.get("/shop/orders/\(id)")
            XCTAssertTrue(page.text.contains(#"data-status="paid""#), "the payment shows")
            let after = try await paidInConsole()
            XCTAssertEqual(after, [id], "and in the console's kept list")
            // Announcements of the writes above come back from the bus too: let them land first.
            try await Task.sleep(for: .milliseconds(100))
            _ = try await browser.get("/shop/orders/\(id)")

            try await (app.db as! any SQLDatabase).update(BanchanOrder.schema).set("status", to: SQLBind("preparing"))
                .where("id", .equal, SQLBind(try XCTUnwrap(UUID(uuidString: id)))).run()
            page = try await browser.get("/shop/orders/\(id)")
            XCTAssertTrue(page.text.contains(#"data-status="paid""#), "kept until told")
            await app.events.publish("changed", to: KeptOrders.topic)
            try await Task.sleep(for: .milliseconds(50))
            page = try await browser.get("/shop/orders/\(id)")
            XCTAssertTrue(page.text.contains(#"data-status="preparing""#), "another instance's change shows")
        }
    }
}
