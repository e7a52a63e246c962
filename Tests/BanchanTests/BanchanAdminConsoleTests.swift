@testable import Banchan
import Fluent
import Payments
import Platform
import WhatWeEatTesting
import XCTVapor

/// Issue 41, the operator's orders: `GET /api/v1/admin/orders` (every buyer's, by status and day)
/// and the console's `/admin/orders` pages, which only administrators reach (404 for everyone
/// else, signed in or not); a move made there is the API's, audit entry included.
final class BanchanAdminConsoleTests: XCTestCase {
    func placePaid(_ app: Application, _ buyer: Member) async throws -> [String: Any] {
        try await placePaidOrder(app, buyer).order
    }

    func testTheAPIListsEveryBuyersOrdersByStatusAndDay() async throws {
        try await withTestApp { app in
            let admin = try await app.signUpAdmin().accessToken
            let mina = try await app.member("미나"), joon = try await app.member("준호")
            _ = try await placePaid(app, mina)
            let unpaid = try await app.send(.POST, "/api/v1/banchan/orders", raw: #"{"items": [{"hash": "\#(Fixtures.bulgogi)", "quantity": 1}]}"#, token: joon.token)
            XCTAssertEqual(unpaid.status, .created)

            let all = try await app.send(.GET, "/api/v1/admin/orders", token: admin).object()
            XCTAssertEqual((all["items"] as? [[String: Any]])?.count, 2, "every buyer's")
            let paid = try await app.send(.GET, "/api/v1/admin/orders?status=paid", token: admin).object()
            XCTAssertEqual((paid["items"] as? [[String: Any]])?.map { $0["status"] as? String }, ["paid"])
            let today = BanchanStore.orderDay(Date())
            let dayText = "\(today.prefix(4))-\(today.dropFirst(4).prefix(2))-\(today.suffix(2))"
            let onDay = try await app.send(.GET, "/api/v1/admin/orders?day=\(dayText)", token: admin).object()
            XCTAssertEqual((onDay["items"] as? [[String: Any]])?.count, 2)
            let otherDay = try await app.send(.GET, "/api/v1/admin/orders?day=2001-01-01", token: admin).object()
            XCTAssertEqual((otherDay["items"] as? [[String: Any]])?.count, 0)

            for bad in ["status=lost", "day=2026-02-30", "day=yesterday", "limit=0"] {
                let refused = try await app.send(.GET, "/api/v1/admin/orders?\(bad)", token: admin)
                XCTAssertEqual(refused.status, .badRequest, bad)
            }
            let asBuyer = try await app.send(.GET, "/api/v1/admin/orders", token: mina.token)
            XCTAssertEqual(asBuyer.status, .forbidden)
            let buyerMoves = try await app.send(.POST, "/api/v1/admin/orders/\(try XCTUnwrap(paid["items"] as? [[String: Any]])[0]["id"] as? String ?? "")/status",
                                                json: ["status": "preparing"], token: mina.token)
            XCTAssertEqual(buyerMoves.status, .forbidden)
        }
    }

    func testOnlyAdministratorsReachTheConsoleAndTheirMovesAreAudited() async throws {
        try await withTestApp { app in
            _ = try await app.signUpAdmin("boss@example.com", nickname: "사장님")
            let buyer = try await app.member("구매자")
            let order = try await placePaid(app, buyer)
            let id = try XCTUnwrap(order["id"] as? String)

            for path in ["/admin", "/admin/orders", "/admin/orders/\(id)"] {
                let anonymous = try await app.send(.GET, path)
                XCTAssertEqual(anonymous.status, .notFound, path)
                var someone = try await CookieBrowser.signedIn(app, as: buyer.email)
                let signedIn = try await someone.get(path)
                XCTAssertEqual(signedIn.status, .notFound, "\(path): not a hint that it exists")
                XCTAssertFalse(signedIn.text.contains("login?next"), path)
            }

            var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
            let list = try await boss.get("/admin/orders?status=paid")
            XCTAssertEqual(list.status, .ok)
            XCTAssertTrue(list.text.contains(try XCTUnwrap(order["number"] as? String)))
            XCTAssertTrue(list.text.contains(#"<option value="paid" selected>"#), "the filter shows what it filters")
            let badDay = try await boss.get("/admin/orders?day=2026-13-01")
            XCTAssertEqual(badDay.status, .badRequest)

            let detail = try await boss.get("/admin/orders/\(id)")
            XCTAssertTrue(detail.text.contains("주문자: 구매자"))
            XCTAssertTrue(detail.text.contains(#"id="move-preparing""#) && detail.text.contains(#"id="move-shipped""#) && detail.text.contains(#"id="move-cancelled""#))
            XCTAssertFalse(detail.text.contains(#"id="move-delivered""#), "only the moves this state allows")
            let moved = try await boss.post("/admin/orders/\(id)/status", form: ["status": "preparing"])
            XCTAssertEqual(moved.status, .seeOther)
            XCTAssertEqual(moved.headers.first(name: .location), "/admin/orders/\(id.lowercased())")
            let refused = try await boss.post("/admin/orders/\(id)/status", form: ["status": "delivered"])
            XCTAssertEqual(refused.status, .conflict, "a refused move says why on the page")
            XCTAssertTrue(refused.text.contains("form-error") || refused.text.contains("role=\"alert\""), refused.text)
            let forged = try await boss.post("/admin/orders/\(id)/status", form: ["status": "shipped"], includeCSRF: false)
            XCTAssertEqual(forged.status, .forbidden)

            let now = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", token: buyer.token).object()
            XCTAssertEqual(now["status"] as? String, "preparing")
            let cancelled = try await boss.post("/admin/orders/\(id)/status", form: ["status": "cancelled"])
            XCTAssertEqual(cancelled.status, .seeOther)
            let told = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", token: buyer.token).object()
            XCTAssertEqual(told["cancelReason"] as? String, "가게 사정으로 취소", "the buyer reads why in words, not the API's default")
            let entries = try await AuditLog(database: app.db).page(CursorPageRequest())
            XCTAssertEqual(entries.items.map(\.action), ["banchan.order.status", "banchan.order.status"])
            XCTAssertEqual(entries.items.last?.after, ["status": "preparing"])
            XCTAssertEqual(entries.items.first?.after, ["status": "cancelled"])
        }
    }
}
