@testable import Banchan
import Fluent
import Payments
import Platform
import WhatWeEatTesting
import XCTVapor

/// A buyer hears of every change to their order they did not make themselves — paid (when
/// confirmed), shipped, delivered, cancelled because its payment window ran out — in their inbox
/// (and so by push); opening the order reads those entries. An app's device has no inbox.
final class BanchanOrderNoticesTests: XCTestCase {
    func inbox(_ app: Application, _ member: Member) async throws -> (items: [[String: Any]], unread: Int) {
        let page = try await app.send(.GET, "/api/v1/notifications", token: member.token).object()
        return (page["items"] as? [[String: Any]] ?? [], page["unreadCount"] as? Int ?? -1)
    }

    func order(_ app: Application, _ member: Member) async throws -> [String: Any] {
        let placed = try await app.send(.POST, "/api/v1/banchan/orders", raw: #"{"items": [{"hash": "\#(Fixtures.bulgogi)", "quantity": 1}]}"#, token: member.token)
        XCTAssertEqual(placed.status, .created, placed.text)
        return try placed.object()
    }

    func testShippingAndDeliveryReachTheBuyersInboxAndTheOrderPageReadsThem() async throws {
        try await withTestApp { app in
            let admin = try await app.signUpAdmin().accessToken
            let buyer = try await app.member("구매자")
            let placed = try await order(app, buyer)
            let id = try XCTUnwrap(placed["id"] as? String)
            let payment = TestPaymentGateway.paymentID(merchantUID: try XCTUnwrap(placed["merchantUID"] as? String), amount: try XCTUnwrap(placed["total"] as? Int))
            let paid = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": payment], token: buyer.token)
            XCTAssertEqual(paid.status, .ok, paid.text)
            let afterPaying = try await inbox(app, buyer)
            XCTAssertTrue(afterPaying.items.isEmpty, "the buyer paid on the page: nothing to tell")

            for status in ["shipped", "delivered"] {
                let moved = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/status", json: ["status": status], token: admin)
                XCTAssertEqual(moved.status, .ok, moved.text)
            }
            let told = try await inbox(app, buyer)
            XCTAssertEqual(told.items.map { $0["kind"] as? String }, ["order_delivered", "order_shipped"], "newest first")
            XCTAssertEqual(told.unread, 2)
            let delivered = try XCTUnwrap(told.items.first)
            XCTAssertEqual(delivered["message"] as? String, "주문하신 반찬이 도착했어요.")
            XCTAssertEqual(delivered["link"] as? String, "/shop/orders/\(id.lowercased())")
            XCTAssertEqual(delivered["service"] as? String, "banchan")
            XCTAssertEqual((delivered["excerpt"] as? String)?.contains("불고기"), true, "the dish ordered, under the message: \(delivered)")

            let refused = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/status", json: ["status": "paid"], token: admin)
            XCTAssertEqual(refused.status, .conflict)
            let afterRefusal = try await inbox(app, buyer)
            XCTAssertEqual(afterRefusal.items.count, 2, "a refused change tells nobody")

            var browser = try await CookieBrowser.signedIn(app, as: buyer.email)
            let page = try await browser.get("/shop/orders/\(id)")
            XCTAssertEqual(page.status, .ok, page.text)
            let afterReading = try await inbox(app, buyer)
            XCTAssertEqual(afterReading.unread, 0, "opening the order reads what was said about it")
        }
    }

    /// An order page marks read only what is about its order, with what the unread entries are
    /// about remembered (`UnreadCounts.UnreadAbout`): a notice arriving about an order already seen
    /// is read by the next view of it.
    func testAnOrderPageReadsOnlyItsOwnNoticesAndOnesArrivingLater() async throws {
        try await withTestApp { app in
            let admin = try await app.signUpAdmin().accessToken
            let buyer = try await app.member("구매자")
            var ids: [String] = []
            for _ in 0..<2 {
                let placed = try await order(app, buyer)
                let id = try XCTUnwrap(placed["id"] as? String)
                let payment = TestPaymentGateway.paymentID(merchantUID: try XCTUnwrap(placed["merchantUID"] as? String), amount: try XCTUnwrap(placed["total"] as? Int))
                let paid = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": payment], token: buyer.token)
                XCTAssertEqual(paid.status, .ok, paid.text)
                ids.append(id)
            }
            func ship(_ id: String) async throws {
                let moved = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/status", json: ["status": "shipped"], token: admin)
                XCTAssertEqual(moved.status, .ok, moved.text)
            }
            var browser = try await CookieBrowser.signedIn(app, as: buyer.email)
            try await ship(ids[0])
            _ = try await browser.get("/shop/orders/\(ids[1])")
            _ = try await browser.get("/shop/orders/\(ids[1])")
            var unread = try await inbox(app, buyer).unread
            XCTAssertEqual(unread, 1, "the other order's notice stays unread")
            try await ship(ids[1])
            _ = try await browser.get("/shop/orders/\(ids[1])")
            unread = try await inbox(app, buyer).unread
            XCTAssertEqual(unread, 1, "the notice that arrived about this order is read by its next view")
            _ = try await browser.get("/shop/orders/\(ids[0])")
            unread = try await inbox(app, buyer).unread
            XCTAssertEqual(unread, 0)
        }
    }

    func testAnOrderCancelledForWantOfPaymentIsToldAndADevicesOrderIsNot() async throws {
        try await withTestApp { app in
            let buyer = try await app.member("구매자")
            _ = try await order(app, buyer)
            let fromApp = try await app.send(.POST, "/api/v1/banchan/orders", raw: #"{"items": [{"hash": "\#(Fixtures.bulgogi)", "quantity": 1}]}"#,
                                             headers: ["X-Device-Token": "app-device-token-00001"])
            XCTAssertEqual(fromApp.status, .created)
            let expired = try await app.withClock(\.banchanEnvironment, ahead: 1801) { try await BanchanService(application: app).expireUnpaidOrders(window: 1800) }
            XCTAssertEqual(expired, 2, "both expire; only the account's buyer has an inbox to tell")
            let told = try await inbox(app, buyer)
            XCTAssertEqual(told.items.map { $0["kind"] as? String }, ["order_expired"])
            XCTAssertEqual(told.items.first?["message"] as? String, "결제 시간이 지나 주문이 취소됐어요.")
        }
    }
}
