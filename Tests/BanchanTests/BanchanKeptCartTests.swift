@testable import Banchan
import Fluent
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// The shop header's cart count is kept per owner (`CartCounts`); every change of the cart — a
/// dish added, its quantity changed, removed, an order emptying the cart, a device's cart merged at
/// sign-in, another instance's change announced — shows on the next page.
final class BanchanCartCountTests: XCTestCase {
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
            await app.events.publish(owner, to: CartCounts.topic)
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
}
