import AsyncHTTPClient
@testable import Banchan
import Fluent
import NIOCore
import Payments
import Platform
import Site
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// The shop refunds some units of one line (issue 61: "partial refunds through the refund
/// queue"): `POST /api/v1/admin/orders/{id}/refunds` and the console's 부분 환불. The amount goes
/// to PortOne as a partial cancel (`amount` + `checksum`), recorded as a part of the payment in
/// the refund queue; an attempt whose answer was lost is recognised by the tag its reason carries.
final class LineRefundTests: XCTestCase {
    private let owner = "line-refund-device-1"
    private var device: HTTPHeaders { ["X-Device-Token": owner] }
    /// 닭갈비 14,900 × 2 + 불고기 23,900 × 1 = 53,700, free delivery.
    private let orderTotal = 53_700

    private func withPortOneApp(timeout: TimeAmount = .seconds(10), _ body: (Application, FakePortOne) async throws -> Void) async throws {
        let portOne = try await FakePortOne.start()
        do {
            try await withTestApp(adjust: { $0.shop.gateway = .portOne(url: portOne.url, apiKey: "key-1", apiSecret: "secret-1") }) { app in
                app.paymentGateway = PortOneGateway(baseURL: portOne.url, apiKey: "key-1", apiSecret: "secret-1", client: HTTPClient.shared, timeout: timeout)
                try await body(app, portOne)
            }
        } catch {
            await portOne.stop()
            throw error
        }
        await portOne.stop()
    }

    /// A placed and paid order of two lines: its id.
    private func paidOrder(_ app: Application, _ portOne: FakePortOne, payment: String) async throws -> String {
        let order = try await BanchanAPITests.placeOrder(app, [(Fixtures.dakgalbi, 2), (Fixtures.bulgogi, 1)], owner: owner).object()
        let id = try XCTUnwrap(order["id"] as? String)
        XCTAssertEqual(order["total"] as? Int, orderTotal)
        portOne.record(impUID: payment, merchantUID: try XCTUnwrap(order["merchantUID"] as? String), amount: orderTotal, status: "paid")
        let paid = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": payment], headers: device)
        XCTAssertEqual(try paid.object()["status"] as? String, "paid", paid.text)
        return id
    }

    private func stock(_ app: Application, _ hash: String) async throws -> Int {
        let record = try await DishRecord.query(on: app.db).filter(\.$hash == hash).first()
        return try XCTUnwrap(record).stock
    }

    private func items(_ response: TestingHTTPResponse) throws -> [[String: Any]] {
        try XCTUnwrap(try response.object()["items"] as? [[String: Any]])
    }

    func testALineRefundGoesToThePaymentProviderAsAPartOfThePaymentAndTheRestStands() async throws {
        try await withPortOneApp { app, portOne in
            let admin = try await app.signUpAdmin().accessToken
            let id = try await paidOrder(app, portOne, payment: "imp_lines")
            let stockBefore = try await stock(app, Fixtures.dakgalbi)

            let refunded = try await app.send(.POST, "/api/v1/admin/orders/\(id)/refunds",
                                              raw: #"{"line": 0, "quantity": 1, "reason": "닭갈비 하나가 품절이었어요"}"#, token: admin)
            XCTAssertEqual(refunded.status, .created, refunded.text)
            let order = try refunded.object()
            XCTAssertEqual(order["status"] as? String, "paid", "the rest of the order stands")
            XCTAssertEqual(order["refundedTotal"] as? Int, 14_900)
            XCTAssertEqual(try items(refunded).map { $0["refundedQuantity"] as? Int }, [1, 0])
            XCTAssertEqual(try items(refunded).map { $0["line"] as? Int }, [0, 1])
            let lineRefunds = try XCTUnwrap(order["lineRefunds"] as? [[String: Any]])
            XCTAssertEqual(lineRefunds.count, 1)
            XCTAssertEqual(lineRefunds.first?["amount"] as? Int, 14_900)
            XCTAssertEqual(lineRefunds.first?["quantity"] as? Int, 1)
            XCTAssertEqual(lineRefunds.first?["reason"] as? String, "닭갈비 하나가 품절이었어요")
            XCTAssertEqual(lineRefunds.first?["status"] as? String, "done", "tried at once, and the provider took it")
            XCTAssertEqual(portOne.partialCancels.map(\.amount), [14_900])
            XCTAssertEqual(portOne.cancelled, [], "never the whole payment")
            let unit = try await stock(app, Fixtures.dakgalbi)
            XCTAssertEqual(unit, stockBefore + 1, "not shipped yet: the unit goes back on the shelf")

            // The buyer's own read shows it too; the audit log has it in words.
            let mine = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", headers: device).object()
            XCTAssertEqual(mine["refundedTotal"] as? Int, 14_900)
            XCTAssertEqual(mine["refundStatus"] as? String, "done")
            let audit = try await AuditLog(database: app.db).page(CursorPageRequest()).items.first { $0.action == "banchan.order.line_refund" }
            XCTAssertEqual(audit?.after?["amount"], "14900")
            XCTAssertEqual(audit?.after?["quantity"], "1")

            // More than the line has left: refused, nothing changed.
            let tooMany = try await app.send(.POST, "/api/v1/admin/orders/\(id)/refunds", json: ["line": 0, "quantity": 2], token: admin)
            XCTAssertEqual(tooMany.status, .unprocessableEntity, tooMany.text)
            XCTAssertEqual(tooMany.errorCode, "invalid_quantity")
            // The rest of the line (no quantity: all it has left), then every unit left of an
            // order not shipped: that is cancelling it, not a line.
            let rest = try await app.send(.POST, "/api/v1/admin/orders/\(id)/refunds", json: ["line": 0], token: admin)
            XCTAssertEqual(rest.status, .created, rest.text)
            XCTAssertEqual(portOne.partialCancels.map(\.amount), [14_900, 14_900], "the second partial refund carries the provider's count, so it goes through")
            let again = try await app.send(.POST, "/api/v1/admin/orders/\(id)/refunds", json: ["line": 0], token: admin)
            XCTAssertEqual(again.status, .conflict)
            XCTAssertEqual(again.errorCode, "line_already_refunded")
            let whole = try await app.send(.POST, "/api/v1/admin/orders/\(id)/refunds", json: ["line": 1], token: admin)
            XCTAssertEqual(whole.status, .conflict, whole.text)
            XCTAssertEqual(whole.errorCode, "refund_whole_order")
            let afterRefusal = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", headers: device)
            XCTAssertEqual(try items(afterRefusal).map { $0["refundedQuantity"] as? Int }, [2, 0], "a refused refund rolls back whole")
            XCTAssertEqual(try afterRefusal.object()["refundedTotal"] as? Int, 29_800)

            // Cancelling the order now refunds what the payment has left and puts back only the units not refunded.
            let bulgogiBefore = try await stock(app, Fixtures.bulgogi)
            let dakgalbiBefore = try await stock(app, Fixtures.dakgalbi)
            let cancelled = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/cancel", json: ["reason": "이제 필요 없어요"], headers: device)
            XCTAssertEqual(try cancelled.object()["status"] as? String, "cancelled", cancelled.text)
            XCTAssertEqual(portOne.cancelled, ["imp_lines"])
            let payment = try await app.paymentGateway?.payment(id: "imp_lines")
            XCTAssertEqual(payment?.status, .cancelled)
            XCTAssertEqual(payment?.cancelledAmount, orderTotal, "every won back, none twice")
            let dakgalbiAfter = try await stock(app, Fixtures.dakgalbi)
            let bulgogiAfter = try await stock(app, Fixtures.bulgogi)
            XCTAssertEqual(dakgalbiAfter, dakgalbiBefore, "the refunded units went back already")
            XCTAssertEqual(bulgogiAfter, bulgogiBefore + 1)
            let cancelledAgain = try await app.send(.POST, "/api/v1/admin/orders/\(id)/refunds", json: ["line": 1], token: admin)
            XCTAssertEqual(cancelledAgain.status, .conflict)
            XCTAssertEqual(cancelledAgain.errorCode, "line_refund_refused")
        }
    }

    func testAShippedOrdersLineIsRefundedWithoutRestockingAndTheBuyerIsTold() async throws {
        try await withPortOneApp { app, portOne in
            let admin = try await app.signUpAdmin().accessToken
            let buyer = try await app.signUp("buyer@example.com", nickname: "구매자")
            // The buyer's own order, signed in, so their inbox hears of it.
            let placed = try await app.send(.POST, "/api/v1/banchan/orders", raw: #"{"items": [{"hash": "\#(Fixtures.dakgalbi)", "quantity": 2}, {"hash": "\#(Fixtures.bulgogi)", "quantity": 1}]}"#,
                                            token: buyer.accessToken).object()
            let id = try XCTUnwrap(placed["id"] as? String)
            portOne.record(impUID: "imp_shipped", merchantUID: try XCTUnwrap(placed["merchantUID"] as? String), amount: orderTotal, status: "paid")
            let paid = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": "imp_shipped"], token: buyer.accessToken)
            XCTAssertEqual(paid.status, .ok, paid.text)
            let shipped = try await app.send(.POST, "/api/v1/admin/orders/\(id)/status", json: ["status": "shipped", "courier": "cj", "trackingNumber": "123456789012"],
                                             token: admin)
            XCTAssertEqual(shipped.status, .ok, shipped.text)
            let stockBefore = try await stock(app, Fixtures.bulgogi)
            // After it left, every unit of a line may be refunded (a spoiled dish); stock stays.
            let refunded = try await app.send(.POST, "/api/v1/admin/orders/\(id)/refunds", raw: #"{"line": 1, "reason": "상해서 도착했어요"}"#, token: admin)
            XCTAssertEqual(refunded.status, .created, refunded.text)
            XCTAssertEqual(try refunded.object()["status"] as? String, "shipped")
            XCTAssertEqual(try refunded.object()["refundedTotal"] as? Int, 23_900)
            let stockAfter = try await stock(app, Fixtures.bulgogi)
            XCTAssertEqual(stockAfter, stockBefore, "a unit that left the shop does not come back to the shelf")
            let inbox = try await app.send(.GET, "/api/v1/notifications", token: buyer.accessToken).object()
            let kinds = try XCTUnwrap(inbox["items"] as? [[String: Any]]).compactMap { $0["kind"] as? String }
            XCTAssertTrue(kinds.contains("order_line_refunded"), "\(kinds)")

            // The buyer's page and receipt say what came back.
            var browser = try await CookieBrowser.signedIn(app, as: "buyer@example.com")
            let page = try await browser.get("/shop/orders/\(id)")
            XCTAssertTrue(page.text.contains(#"data-refunded-units="1""#), "the live region carries the refunds it shows")
            XCTAssertTrue(page.text.contains(#"id="order-refunded-total""#), page.text)
            let receipt = try await browser.get("/shop/orders/\(id)/receipt")
            XCTAssertTrue(receipt.text.contains(#"id="receipt-line-refunds""#))
        }
    }

    func testAPartialRefundWhoseAnswerWasLostIsRecognisedNotRepeated() async throws {
        try await withPortOneApp(timeout: .milliseconds(300)) { app, portOne in
            let admin = try await app.signUpAdmin().accessToken
            let id = try await paidOrder(app, portOne, payment: "imp_slow")
            // PortOne makes the refund at once but answers after our call gave up.
            portOne.answerCancels(after: .seconds(1))
            let refunded = try await app.send(.POST, "/api/v1/admin/orders/\(id)/refunds", json: ["line": 1], token: admin)
            XCTAssertEqual(refunded.status, .created, refunded.text)
            let lineRefunds = try XCTUnwrap(try refunded.object()["lineRefunds"] as? [[String: Any]])
            XCTAssertEqual(lineRefunds.first?["status"] as? String, "pending", "no answer: not claimed done")
            XCTAssertEqual(portOne.partialCancels.map(\.amount), [23_900])
            portOne.answerCancels(after: .zero)

            // The retry asks first, finds its tag in the payment's refunds, and settles without a second refund.
            let settled = try await Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: app.logger, now: Date().addingTimeInterval(3600))
            XCTAssertEqual(settled, 1)
            XCTAssertEqual(portOne.partialCancels.map(\.amount), [23_900], "refunded once")
            let parts = try await RefundStore(database: app.db).refunds(subject: BanchanOrder.refundSubject(UUID(uuidString: id)))
            let part = try XCTUnwrap(parts.first)
            XCTAssertEqual(part.outcome, "already_cancelled")
            XCTAssertEqual(part.amount, 23_900)
            let payment = try await app.paymentGateway?.payment(id: "imp_slow")
            XCTAssertEqual(payment?.cancelledAmount, 23_900)
            XCTAssertEqual(payment?.status, .paid)
        }
    }

    func testBadInputAndOthersAreRefusedAndChangeNothing() async throws {
        try await withPortOneApp { app, portOne in
            let admin = try await app.signUpAdmin().accessToken
            let buyer = try await app.signUp("someone@example.com", nickname: "손님")
            let id = try await paidOrder(app, portOne, payment: "imp_bad")
            let path = "/api/v1/admin/orders/\(id)/refunds"

            let anonymous = try await app.send(.POST, path, json: ["line": 0])
            XCTAssertEqual(anonymous.status, .unauthorized)
            let notAdmin = try await app.send(.POST, path, json: ["line": 0], token: buyer.accessToken)
            XCTAssertEqual(notAdmin.status, .forbidden)
            let unknown = try await app.send(.POST, "/api/v1/admin/orders/\(UUID())/refunds", json: ["line": 0], token: admin)
            XCTAssertEqual(unknown.status, .notFound)
            let noLine = try await app.send(.POST, path, json: ["line": 7], token: admin)
            XCTAssertEqual(noLine.status, .notFound)
            XCTAssertEqual(noLine.errorCode, "order_line_not_found")
            for quantity in [0, -1, 3] {
                let bad = try await app.send(.POST, path, json: ["line": 0, "quantity": quantity], token: admin)
                XCTAssertEqual(bad.status, .unprocessableEntity, "\(quantity): \(bad.text)")
                XCTAssertEqual(bad.errorCode, "invalid_quantity")
            }
            let notJSON = try await app.send(.POST, path, raw: "line=0", token: admin)
            XCTAssertEqual(notJSON.status.code / 100, 4)
            let wrongType = try await app.send(.POST, path, json: ["line": "first"], token: admin)
            XCTAssertEqual(wrongType.status.code / 100, 4)
            XCTAssertEqual(portOne.partialCancels.count, 0)
            let after = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", headers: device)
            XCTAssertEqual(try after.object()["refundedTotal"] as? Int, 0)

            // An order not paid yet has nothing to refund.
            let unpaid = try await BanchanAPITests.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: owner).object()
            let unpaidRefund = try await app.send(.POST, "/api/v1/admin/orders/\(try XCTUnwrap(unpaid["id"] as? String))/refunds", json: ["line": 0], token: admin)
            XCTAssertEqual(unpaidRefund.status, .conflict)
            XCTAssertEqual(unpaidRefund.errorCode, "line_refund_refused")
        }
    }

    func testTheConsoleRefundsALineAndTheBuyersOpenPageFollows() async throws {
        try await withPortOneApp { app, portOne in
            try await app.signUpAdmin()
            var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
            let id = try await paidOrder(app, portOne, payment: "imp_console")
            let orderID = try XCTUnwrap(UUID(uuidString: id))
            let page = try await boss.get("/admin/orders/\(id)")
            XCTAssertTrue(page.text.contains(#"id="refund-line-0-form""#), "each line that can be refunded has its form")
            XCTAssertTrue(page.text.contains(#"max="2""#), "the quantity is at most what the line has left")

            // The order's followers hear the refund (as the open page's socket would).
            let heard = app.events.subscribe(to: BanchanStore.topic(ofOrder: orderID))
            let form = try await boss.post("/admin/orders/\(id)/refunds", form: ["line": "0", "quantity": "1", "reason": ""])
            XCTAssertEqual(form.status, .seeOther, form.text)
            let after = try await boss.get("/admin/orders/\(id)")
            XCTAssertTrue(after.text.contains(#"id="admin-line-refunds""#))
            XCTAssertTrue(after.text.contains("가게 사정으로 일부를 환불해 드렸어요."), "an empty reason is the shop's default words")
            var iterator = heard.makeAsyncIterator()
            let next = await iterator.next()
            let message = try XCTUnwrap(next)
            let moved = try JSONDecoder().decode(BanchanStore.Moved.self, from: Data(message.utf8))
            XCTAssertEqual(moved, BanchanStore.Moved(status: .paid, refundedUnits: 1))

            // A refusal comes back on the page with the form as typed, in words.
            let refused = try await boss.post("/admin/orders/\(id)/refunds", form: ["line": "0", "quantity": "5", "reason": "너무 많이"])
            XCTAssertEqual(refused.status, .unprocessableEntity)
            XCTAssertTrue(refused.text.contains("너무 많이"))
        }
    }

    /// Two operators (and more) refunding the same line at once: the line's count holds — never
    /// more units refunded than it has, never a 500, every refused one with its reason.
    func testRefundsOfOneLineAtOnceNeverRefundMoreThanItHas() async throws {
        try await withPortOneApp { app, portOne in
            let admin = try await app.signUpAdmin().accessToken
            let id = try await paidOrder(app, portOne, payment: "imp_race")
            let statuses = try await withThrowingTaskGroup(of: (HTTPResponseStatus, String?).self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        let answer = try await app.send(.POST, "/api/v1/admin/orders/\(id)/refunds", json: ["line": 0, "quantity": 1], token: admin)
                        return (answer.status, answer.errorCode)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            XCTAssertEqual(statuses.filter { $0.0 == .created }.count, 2, "\(statuses)")
            XCTAssertTrue(statuses.allSatisfy { [.created, .conflict, .unprocessableEntity, .serviceUnavailable].contains($0.0) }, "\(statuses)")
            let order = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", headers: device)
            XCTAssertEqual(try items(order).map { $0["refundedQuantity"] as? Int }, [2, 0])
            XCTAssertEqual(try order.object()["refundedTotal"] as? Int, 29_800)
            // Two partial refunds tried at the same moment carry the same checksum: the provider may refuse
            // the second, which the queue tries again; once it has, exactly the two units are refunded.
            _ = try await Refunds.attemptDue(on: app.db, gateway: app.paymentGateway, logger: app.logger, now: Date().addingTimeInterval(3600))
            XCTAssertEqual(portOne.partialCancels.map(\.amount).reduce(0, +), 29_800, "the provider refunded exactly the two units")
        }
    }
}
