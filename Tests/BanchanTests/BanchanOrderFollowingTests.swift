@testable import Banchan
import Fluent
import Platform
import WhatWeEatTesting
import XCTVapor

/// Issue 61, pages that follow: an order's open page hears every move (`/shop/orders/{id}/live`,
/// only its owner), shipping records the courier and 송장번호 (console and API), and the buyer's
/// page links the courier's tracking page.
final class BanchanOrderFollowingTests: XCTestCase {
    // MARK: Rules

    func testAShipmentIsACourierAndItsNumberInDigits() throws {
        let cj = try XCTUnwrap(Shipment.make(courier: "cj", trackingNumber: " 6789-1234-5678 "))
        XCTAssertEqual(cj, Shipment(courier: .cj, trackingNumber: "678912345678"), "labels print hyphens; the number is its digits")
        XCTAssertEqual(cj.trackingURL, "https://trace.cjlogistics.com/next/tracking.html?wblNo=678912345678")
        XCTAssertEqual(try Shipment.make(courier: "shop", trackingNumber: "12345678"), Shipment(courier: .shop, trackingNumber: nil),
                       "the shop's own van has no number")
        XCTAssertNil(try Shipment.make(courier: "shop", trackingNumber: nil)?.trackingURL)
        XCTAssertNil(try Shipment.make(courier: nil, trackingNumber: nil), "shipped without saying how")
        XCTAssertNil(try Shipment.make(courier: " ", trackingNumber: ""))
        let wrong: [(String?, String?, ShipmentProblem)] = [
            ("dhl", "123456789012", .courier), (nil, "123456789012", .courier), ("cj", nil, .trackingNumber), ("cj", "1234567", .trackingNumber),
            ("cj", String(repeating: "1", count: 21), .trackingNumber), ("cj", "12345678abc", .trackingNumber), ("epost", "１２３４５６７８９", .trackingNumber),
            ("lotte", "1234567890&x=<", .trackingNumber),
        ]
        for (courier, number, problem) in wrong {
            XCTAssertThrowsError(try Shipment.make(courier: courier, trackingNumber: number), "\(String(describing: courier)) \(String(describing: number))") {
                XCTAssertEqual($0 as? ShipmentProblem, problem)
            }
        }
        for courier in Courier.allCases where courier.hasTrackingNumber {
            let url = try XCTUnwrap(courier.trackingURL("123456789012"))
            XCTAssertTrue(url.hasPrefix("https://") && url.hasSuffix("123456789012"), url)
        }
    }

    // MARK: Shipping

    func testTheConsoleShipsWithACourierAndTheBuyerFollowsTheParcel() async throws {
        try await withTestApp { app in
            _ = try await app.signUpAdmin("boss@example.com", nickname: "사장님")
            let buyer = try await app.member("구매자")
            let id = try await placePaidOrder(app, buyer).id
            var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
            let detail = try await boss.get("/admin/orders/\(id)")
            XCTAssertTrue(detail.text.contains(#"id="ship-courier""#) && detail.text.contains(#"<option value="cj" selected="selected">CJ대한통운</option>"#),
                          "the ship form names CJ대한통운 first")

            // A wrong number comes back with what was typed, and nothing moves.
            let wrong = try await boss.post("/admin/orders/\(id)/status", form: ["status": "shipped", "courier": "hanjin", "trackingNumber": "12-34"])
            XCTAssertEqual(wrong.status, .unprocessableEntity)
            XCTAssertTrue(wrong.text.contains("송장번호는 숫자 8~20자리예요."), wrong.text)
            XCTAssertTrue(wrong.text.contains(#"<option value="hanjin" selected="selected">"#) && wrong.text.contains(#"value="12-34""#), "kept as typed")
            let unmoved = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", token: buyer.token).object()
            XCTAssertEqual(unmoved["status"] as? String, "paid")
            XCTAssertTrue(unmoved["shipment"] is NSNull)
            let unknown = try await boss.post("/admin/orders/\(id)/status", form: ["status": "shipped", "courier": "<b>", "trackingNumber": "123456789012"])
            XCTAssertEqual(unknown.status, .unprocessableEntity)
            XCTAssertFalse(unknown.text.contains("<b>"), "what was typed is escaped")

            let shipped = try await boss.post("/admin/orders/\(id)/status", form: ["status": "shipped", "courier": "cj", "trackingNumber": "6789-1234-5678"])
            XCTAssertEqual(shipped.status, .seeOther)
            let order = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", token: buyer.token).object()
            XCTAssertEqual(order["status"] as? String, "shipped")
            let shipment = try XCTUnwrap(order["shipment"] as? [String: Any])
            XCTAssertEqual(shipment["courier"] as? String, "cj")
            XCTAssertEqual(shipment["trackingNumber"] as? String, "678912345678")
            XCTAssertEqual(shipment["trackingURL"] as? String, "https://trace.cjlogistics.com/next/tracking.html?wblNo=678912345678")
            let entries = try await AuditLog(database: app.db).page(CursorPageRequest())
            XCTAssertEqual(entries.items.first?.after, ["status": "shipped", "courier": "cj", "trackingNumber": "678912345678"])

            var buyerBrowser = try await CookieBrowser.signedIn(app, as: buyer.email)
            let page = try await buyerBrowser.get("/shop/orders/\(id)")
            XCTAssertTrue(page.text.contains("CJ대한통운 · 송장번호 678912345678"), page.text)
            XCTAssertTrue(page.text.contains(#"href="https://trace.cjlogistics.com/next/tracking.html?wblNo=678912345678""#))
            XCTAssertTrue(page.text.contains(#"rel="noopener noreferrer""#))
            XCTAssertTrue(page.text.contains(#"data-live="/shop/orders/\#(id.lowercased())/live""#) && page.text.contains("/js/banchan/order.js"),
                          "a shipped order is still followed (delivered is next)")
            let console = try await boss.get("/admin/orders/\(id)")
            XCTAssertTrue(console.text.contains("CJ대한통운 · 송장번호 678912345678"), "the console shows how it went")

            _ = try await boss.post("/admin/orders/\(id)/status", form: ["status": "delivered"])
            let delivered = try await buyerBrowser.get("/shop/orders/\(id)")
            XCTAssertFalse(delivered.text.contains("/js/banchan/order.js"), "nothing more to follow")
            XCTAssertTrue(delivered.text.contains("678912345678"), "the parcel stays on the order")
        }
    }

    func testTheAPIShipsWithACourierOrWithout() async throws {
        try await withTestApp { app in
            let admin = try await app.signUpAdmin().accessToken
            let buyer = try await app.member("구매자")
            let first = try await placePaidOrder(app, buyer).id, second = try await placePaidOrder(app, buyer).id
            for (body, field) in [(#"{"status": "shipped", "courier": "ups", "trackingNumber": "123456789012"}"#, "courier"),
                                  (#"{"status": "shipped", "courier": "epost", "trackingNumber": "abc"}"#, "trackingNumber"),
                                  (#"{"status": "shipped", "trackingNumber": "123456789012"}"#, "courier")] {
                let refused = try await app.send(.POST, "/api/v1/admin/orders/\(first)/status", raw: body, token: admin)
                XCTAssertEqual(refused.status, .unprocessableEntity, body)
                XCTAssertEqual(refused.errorCode, field == "courier" ? "invalid_courier" : "invalid_tracking_number", refused.text)
            }
            let still = try await app.send(.GET, "/api/v1/banchan/orders/\(first)", token: buyer.token).object()
            XCTAssertEqual(still["status"] as? String, "paid", "a refused shipment moves nothing")
            // An unknown order is 404 whatever the shipment says; a shipment on another move is not read.
            let unknown = try await app.send(.POST, "/api/v1/admin/orders/\(UUID())/status", raw: #"{"status": "shipped", "trackingNumber": "x"}"#, token: admin)
            XCTAssertEqual(unknown.status, .notFound)
            let refusedMove = try await app.send(.POST, "/api/v1/admin/orders/\(first)/status", raw: #"{"status": "delivered", "trackingNumber": "x"}"#, token: admin)
            XCTAssertEqual(refusedMove.status, .conflict, "the move is refused before the number is read")

            let own = try await app.send(.POST, "/api/v1/admin/orders/\(first)/status", raw: #"{"status": "shipped", "courier": "shop"}"#, token: admin).object()
            XCTAssertEqual((own["shipment"] as? [String: Any])?["courier"] as? String, "shop")
            XCTAssertTrue((own["shipment"] as? [String: Any])?["trackingURL"] is NSNull)
            // The older route and a move without a courier still work as before.
            let plain = try await app.send(.POST, "/api/v1/banchan/orders/\(second)/status", json: ["status": "shipped"], token: admin).object()
            XCTAssertEqual(plain["status"] as? String, "shipped")
            XCTAssertTrue(plain["shipment"] is NSNull)
        }
    }

    // MARK: Following

    func testAnOpenOrderPageHearsEveryMoveAndOnlyItsOwnerMayListen() async throws {
        try await withListeningApp { app, port in
            _ = try await app.signUpAdmin("boss@example.com", nickname: "사장님")
            let buyer = try await app.member("구매자")
            let id = try await placePaidOrder(app, buyer).id
            let buyerBrowser = try await CookieBrowser.signedIn(app, as: buyer.email)
            let page = try await SocketListener.open(app, port: port, path: "/shop/orders/\(id)/live", as: buyerBrowser)
            let first = try await page.texts(atLeast: 1)
            XCTAssertEqual(first, [#"{"status":"paid"}"#], "the state at once")

            var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
            _ = try await boss.get("/admin/orders/\(id)")  // its form's CSRF token
            for (status, extra) in [("preparing", [:]), ("cancel", [:]), ("preparing", [:]), ("shipped", ["courier": "cj", "trackingNumber": "123456789012"])] {
                // The buyer asks to cancel; the shop declines (back to preparing), then ships.
                let moved = status == "cancel" ? try await app.send(.POST, "/api/v1/banchan/orders/\(id)/cancel", token: buyer.token)
                    : try await boss.post("/admin/orders/\(id)/status", form: ["status": status].merging(extra) { $1 })
                XCTAssertLessThan(moved.status.code, 400, "\(status): \(moved.text)")
            }
            let heard = try await page.texts(atLeast: 5)
            XCTAssertEqual(heard, [#"{"status":"paid"}"#, #"{"status":"preparing"}"#, #"{"status":"cancel_requested"}"#,
                                   #"{"status":"preparing"}"#, #"{"status":"shipped"}"#])
            try await page.socket.close()

            // Another site's page cannot open it in the buyer's name (the handshake carries the cookie).
            let cookies = buyerBrowser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
            var foreign = CookieBrowser(app: app)
            let crossSite = try await foreign.get("/shop/orders/\(id)/live", extraHeaders: ["Cookie": cookies, "Origin": "https://evil.example"])
            XCTAssertEqual(crossSite.status, .forbidden)
            // Someone else's order is not found, signed in or as a browser without an account.
            let sameSite: HTTPHeaders = ["Origin": "http://localhost:8080", "Host": "localhost:8080"]
            let stranger = try await app.member("남")
            var strangerBrowser = try await CookieBrowser.signedIn(app, as: stranger.email)
            let strangers = try await strangerBrowser.get("/shop/orders/\(id)/live", extraHeaders: sameSite)
            XCTAssertEqual(strangers.status, .notFound)
            var visitor = CookieBrowser(app: app)
            let visitors = try await visitor.get("/shop/orders/\(id)/live", extraHeaders: sameSite)
            XCTAssertEqual(visitors.status, .notFound)
            let unknown = try await visitor.get("/shop/orders/not-an-order/live", extraHeaders: sameSite)
            XCTAssertEqual(unknown.status, .notFound)
        }
    }

    func testAGuestsOrderPageHearsItsPaymentAndCancellation() async throws {
        try await withListeningApp { app, port in
            // A browser without an account orders through the pages: its device owns the order.
            var guest = CookieBrowser(app: app)
            _ = try await guest.get("/shop")
            let added = try await guest.post("/shop/cart", form: ["hash": Fixtures.bulgogi, "quantity": "1"])
            XCTAssertEqual(added.status, .seeOther, added.text)
            let checkout = try await guest.get("/shop/checkout")
            XCTAssertEqual(checkout.status, .ok)
            let key = try XCTUnwrap(checkout.text.firstMatch(of: /name="idempotencyKey" value="([^"]+)"/)?.1)
            let placed = try await guest.post("/shop/orders", form: [
                "idempotencyKey": String(key), "recipient": "손님", "phone": "010-1234-5678", "address": "서울특별시 중구 세종대로 110",
                "addressDetail": "1층", "slot": "parcel", "paymentMethod": "card",
            ])
            XCTAssertEqual(placed.status, .seeOther, placed.text)
            let path = try XCTUnwrap(placed.headers.first(name: .location))
            let page = try await SocketListener.open(app, port: port, path: path + "/live", as: guest)
            let first = try await page.texts(atLeast: 1)
            XCTAssertEqual(first, [#"{"status":"awaiting_payment"}"#])
            _ = try await guest.post(path + "/cancel", form: [:])
            let heard = try await page.texts(atLeast: 2)
            XCTAssertEqual(heard.last, #"{"status":"cancelled"}"#)
            try await page.socket.close()
        }
    }
}
