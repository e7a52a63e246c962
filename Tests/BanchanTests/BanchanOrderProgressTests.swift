@testable import Banchan
import Fluent
import Payments
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Issue 41, an order's progress: a number people read aloud, 결제완료 → 상품준비중 → 배송중 →
/// 배송완료 with the time of each step, every transition allowed and refused, a paid order cancelled
/// and refunded at once, a late one becoming a request the operator answers, and the buyer told.
final class BanchanOrderProgressTests: XCTestCase {
    func placePaid(_ app: Application, _ buyer: Member) async throws -> String {
        try await placePaidOrder(app, buyer).id
    }

    func move(_ app: Application, _ id: String, to status: String, admin: String) async throws -> TestingHTTPResponse {
        try await app.send(.POST, "/api/v1/banchan/orders/\(id)/status", json: ["status": status], token: admin)
    }

    func kinds(_ app: Application, _ member: Member) async throws -> [String] {
        let page = try await app.send(.GET, "/api/v1/notifications", token: member.token).object()
        return (page["items"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
    }

    func testNumbersAreTheDayAndItsSequenceAndEveryStepIsTimed() async throws {
        try await withTestApp { app in
            let admin = try await app.signUpAdmin().accessToken
            let buyer = try await app.member("구매자")
            let first = try await placePaid(app, buyer), second = try await placePaid(app, buyer)
            let day = BanchanStore.orderDay(Date())
            let firstOrder = try await app.send(.GET, "/api/v1/banchan/orders/\(first)", token: buyer.token).object()
            let secondOrder = try await app.send(.GET, "/api/v1/banchan/orders/\(second)", token: buyer.token).object()
            XCTAssertEqual(firstOrder["number"] as? String, "\(day)-0001")
            XCTAssertEqual(secondOrder["number"] as? String, "\(day)-0002", "the day's sequence")
            XCTAssertNotNil(firstOrder["placedAt"] as? String)
            XCTAssertNotNil(firstOrder["paidAt"] as? String)
            XCTAssertTrue(firstOrder["preparingAt"] is NSNull)

            for (status, field) in [("preparing", "preparingAt"), ("shipped", "shippedAt"), ("delivered", "deliveredAt")] {
                let moved = try await move(app, first, to: status, admin: admin)
                XCTAssertEqual(moved.status, .ok, moved.text)
                XCTAssertEqual(try moved.object()["status"] as? String, status)
                XCTAssertNotNil(try moved.object()[field] as? String, field)
            }
            let told = try await kinds(app, buyer)
            XCTAssertEqual(told, ["order_delivered", "order_shipped", "order_preparing"])

            // The page shows the number and the four steps, each with its time.
            var browser = try await CookieBrowser.signedIn(app, as: buyer.email)
            let page = try await browser.get("/shop/orders/\(first)")
            XCTAssertTrue(page.text.contains("주문번호 \(day)-0001"))
            XCTAssertEqual(page.text.components(separatedBy: #"<li class="done step-"#).count - 1, 4, "paid, preparing, shipped, delivered reached")

            // A paid order may skip preparing; nothing goes backwards or skips ahead.
            let shipped = try await move(app, second, to: "shipped", admin: admin)
            XCTAssertEqual(shipped.status, .ok)
            for refused in ["paid", "preparing", "awaiting_payment", "cancel_requested", "cancelled"] {
                let answer = try await move(app, second, to: refused, admin: admin)
                XCTAssertEqual(answer.status, .conflict, refused)
                XCTAssertEqual(answer.errorCode, "order_status_change_refused")
            }
            let buyerMoves = try await move(app, second, to: "delivered", admin: buyer.token)
            XCTAssertEqual(buyerMoves.status, .forbidden, "only administrators move orders")
        }
    }

    func testACancelWhilePreparingIsARequestTheOperatorAnswers() async throws {
        try await withTestApp { app in
            let admin = try await app.signUpAdmin().accessToken
            let buyer = try await app.member("구매자")
            let stockBefore = try await DishRecord.query(on: app.db).filter(\.$hash == Fixtures.bulgogi).first()?.stock
            let id = try await placePaid(app, buyer)
            _ = try await move(app, id, to: "preparing", admin: admin)

            let asked = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/cancel", json: ["reason": "잘못 주문했어요"], token: buyer.token)
            XCTAssertEqual(asked.status, .ok, asked.text)
            XCTAssertEqual(try asked.object()["status"] as? String, "cancel_requested")
            XCTAssertNotNil(try asked.object()["cancelRequestedAt"] as? String)
            XCTAssertTrue(try asked.object()["refundStatus"] is NSNull, "nothing refunded by a request")
            let twice = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/cancel", token: buyer.token)
            XCTAssertEqual(twice.status, .conflict)
            XCTAssertEqual(twice.errorCode, "order_not_cancellable")
            let shipWhileAsked = try await move(app, id, to: "shipped", admin: admin)
            XCTAssertEqual(shipWhileAsked.status, .conflict, "a request is answered before anything else")

            // Declined: back to preparing, the buyer told; asked again and accepted: cancelled and refunded.
            let declined = try await move(app, id, to: "preparing", admin: admin)
            XCTAssertEqual(try declined.object()["status"] as? String, "preparing")
            var told = try await kinds(app, buyer)
            XCTAssertEqual(told.first, "order_cancel_declined")
            _ = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/cancel", json: ["reason": "다른 걸로 다시 주문할게요"], token: buyer.token)
            let accepted = try await move(app, id, to: "cancelled", admin: admin)
            XCTAssertEqual(accepted.status, .ok, accepted.text)
            let cancelled = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", token: buyer.token).object()
            XCTAssertEqual(cancelled["status"] as? String, "cancelled")
            XCTAssertEqual(cancelled["cancelReason"] as? String, "다른 걸로 다시 주문할게요", "the buyer's (latest) reason is kept")
            XCTAssertNotNil(cancelled["refundStatus"] as? String, "a refund is owed and recorded")
            let stockAfter = try await DishRecord.query(on: app.db).filter(\.$hash == Fixtures.bulgogi).first()?.stock
            XCTAssertEqual(stockAfter, stockBefore, "the unit is back")
            told = try await kinds(app, buyer)
            XCTAssertEqual(told.first, "order_cancelled")

            // The confirmation page asks before a paid order is cancelled, and says the money comes back.
            let other = try await placePaid(app, buyer)
            var browser = try await CookieBrowser.signedIn(app, as: buyer.email)
            let confirm = try await browser.get("/shop/orders/\(other)/cancel")
            XCTAssertEqual(confirm.status, .ok)
            XCTAssertTrue(confirm.text.contains("바로 환불돼요"), confirm.text)
            let stillPaid = try await app.send(.GET, "/api/v1/banchan/orders/\(other)", token: buyer.token).object()
            XCTAssertEqual(stillPaid["status"] as? String, "paid", "asking changes nothing")
            _ = try await move(app, other, to: "preparing", admin: admin)
            let asksForRequest = try await browser.get("/shop/orders/\(other)/cancel")
            XCTAssertTrue(asksForRequest.text.contains("취소 요청하기"))
            let done = try await browser.get("/shop/orders/\(id)/cancel")
            XCTAssertEqual(done.status, .seeOther, "a cancelled order has nothing to ask")
        }
    }

    /// Orders placed before numbers existed get theirs from the migration, day by day in order.
    func testTheMigrationNumbersEarlierOrdersAndTheCounterGoesOnFromThem() async throws {
        try await withTestApp { app in
            let buyer = try await app.member("구매자")
            let first = try await placePaid(app, buyer), second = try await placePaid(app, buyer)
            // As before the migration: no numbers, no counters.
            try await app.db.sql.update(BanchanOrder.schema).set(SQLIdentifier(BanchanStore.OrderColumn.number), to: SQLLiteral.null).run()
            try await app.db.sql.delete(from: BanchanStore.orderDays).run()
            try await AddOrderProgress.numberEarlierOrders(on: app.db)
            var numbers: [String?] = []
            for id in [first, second] {
                numbers.append(try await app.send(.GET, "/api/v1/banchan/orders/\(id)", token: buyer.token).object()["number"] as? String)
            }
            let day = BanchanStore.orderDay(Date())
            XCTAssertEqual(numbers, ["\(day)-0001", "\(day)-0002"])
            let third = try await placePaid(app, buyer)
            let next = try await app.send(.GET, "/api/v1/banchan/orders/\(third)", token: buyer.token).object()["number"] as? String
            XCTAssertEqual(next, "\(day)-0003")
        }
    }
}
