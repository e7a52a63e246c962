@testable import Banchan
import Fluent
import Payments
import Platform
import WhatWeEatTesting
import XCTVapor

/// Issue 41: every operator's action is written to the audit log — who, what, when, before and
/// after — which administrators read at `GET /api/v1/admin/audit` and nobody edits.
final class BanchanAuditTests: XCTestCase {
    func testTheShopsOperatorActionsAreLoggedWithBeforeAndAfter() async throws {
        try await withTestApp { app in
            let admin = try await app.signUpAdmin("boss@example.com", nickname: "사장님").accessToken
            let changed = try await app.send(.PATCH, "/api/v1/banchan/dishes/\(Fixtures.bulgogi)", json: ["salePrice": 21_900, "stock": 30], token: admin)
            XCTAssertEqual(changed.status, .ok, changed.text)
            let retired = try await app.send(.DELETE, "/api/v1/banchan/dishes/\(Fixtures.dakgalbi)", token: admin)
            XCTAssertEqual(retired.status, .noContent)

            let buyer = try await app.member("구매자")
            let placed = try await app.send(.POST, "/api/v1/banchan/orders", raw: #"{"items": [{"hash": "\#(Fixtures.bulgogi)", "quantity": 1}]}"#, token: buyer.token).object()
            let id = try XCTUnwrap(placed["id"] as? String)
            let payment = TestPaymentGateway.paymentID(merchantUID: try XCTUnwrap(placed["merchantUID"] as? String), amount: try XCTUnwrap(placed["total"] as? Int))
            _ = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": payment], token: buyer.token)
            let refusedMove = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/status", json: ["status": "delivered"], token: admin)
            XCTAssertEqual(refusedMove.status, .conflict)
            _ = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/status", json: ["status": "preparing"], token: admin)

            let log = try await app.send(.GET, "/api/v1/admin/audit", token: admin)
            XCTAssertEqual(log.status, .ok, log.text)
            let items = try XCTUnwrap(try log.object()["items"] as? [[String: Any]])
            XCTAssertEqual(items.map { $0["action"] as? String }, ["banchan.order.status", "banchan.dish.retire", "banchan.dish.change"],
                           "newest first; a refused change is not an action")
            let move = items[0]
            XCTAssertEqual((move["actor"] as? [String: Any])?["nickname"] as? String, "사장님")
            XCTAssertEqual(move["subjectType"] as? String, "banchan_order")
            XCTAssertEqual(move["subjectId"] as? String, placed["number"] as? String, "an order is named by the number people read")
            XCTAssertEqual(move["before"] as? [String: String], ["status": "paid"])
            XCTAssertEqual(move["after"] as? [String: String], ["status": "preparing"])
            XCTAssertNotNil(move["at"] as? String)
            let price = items[2]
            XCTAssertEqual((price["before"] as? [String: String])?["salePrice"], "23900")
            XCTAssertEqual((price["after"] as? [String: String])?["salePrice"], "21900")
            XCTAssertEqual((price["after"] as? [String: String])?["stock"], "30")
            XCTAssertTrue(items[1]["after"] is NSNull, "retired: nothing after")

            // Paged like every list, and filtered by what it is about.
            let first = try await app.send(.GET, "/api/v1/admin/audit?limit=1", token: admin).object()
            let cursor = try XCTUnwrap(first["nextCursor"] as? String)
            let second = try await app.send(.GET, "/api/v1/admin/audit?limit=1&cursor=\(cursor)", token: admin).object()
            XCTAssertEqual((second["items"] as? [[String: Any]])?.first?["action"] as? String, "banchan.dish.retire")
            let dishes = try await app.send(.GET, "/api/v1/admin/audit?subjectType=banchan_dish", token: admin).object()
            XCTAssertEqual((dishes["items"] as? [[String: Any]])?.count, 2)
            let bad = try await app.send(.GET, "/api/v1/admin/audit?subjectType=Robert'); DROP TABLE", token: admin)
            XCTAssertEqual(bad.status, .badRequest)

            // Only administrators read it; nobody writes it through the API.
            let asBuyer = try await app.send(.GET, "/api/v1/admin/audit", token: buyer.token)
            XCTAssertEqual(asBuyer.status, .forbidden)
            let anonymous = try await app.send(.GET, "/api/v1/admin/audit")
            XCTAssertEqual(anonymous.status, .unauthorized)
            for method in [HTTPMethod.POST, .PUT, .PATCH, .DELETE] {
                let write = try await app.send(method, "/api/v1/admin/audit", token: admin)
                XCTAssertTrue([.notFound, .methodNotAllowed].contains(write.status), "\(method): \(write.status)")
            }
            let stored = try await app.rowCount(AuditLog.table)
            XCTAssertEqual(stored, 3)
        }
    }
}
