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

    /// Issue 61: the operator finds an order by its number, the recipient's phone or name, and takes
    /// a day's orders away as a CSV a spreadsheet opens in Korean, with no cell run as a formula.
    func testTheConsoleFindsOrdersAndExportsADay() async throws {
        try await withTestApp { app in
            _ = try await app.signUpAdmin("boss@example.com", nickname: "사장님")
            let buyer = try await app.member("구매자")
            func place(recipient: String, phone: String) async throws -> [String: Any] {
                let delivery: [String: Any] = ["recipient": recipient, "phone": phone, "address": "서울시 마포구 월드컵로 1", "addressDetail": "101동", "slot": "parcel"]
                let body = String(decoding: try JSONSerialization.data(withJSONObject: [
                    "items": [["hash": Fixtures.bulgogi, "quantity": 1]], "delivery": delivery] as [String: Any]), as: UTF8.self)
                let placed = try await app.send(.POST, "/api/v1/banchan/orders", raw: body, token: buyer.token)
                XCTAssertEqual(placed.status, .created, placed.text)
                return try placed.object()
            }
            let kim = try await place(recipient: "김반찬", phone: "010-1234-5678")
            let lee = try await place(recipient: "=HYPERLINK(\"http://x.y\")", phone: "010-9876-5432")
            let kimNumber = try XCTUnwrap(kim["number"] as? String), leeNumber = try XCTUnwrap(lee["number"] as? String)

            var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
            for (typed, found, missed) in [("김반", kimNumber, leeNumber), ("5432", leeNumber, kimNumber), ("9876-5432", leeNumber, kimNumber),
                                           (kimNumber, kimNumber, leeNumber), (String(kimNumber.dropLast(4)) + "1", kimNumber, leeNumber)] {
                let page = try await boss.get("/admin/orders?q=" + (typed.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
                XCTAssertEqual(page.status, .ok, typed)
                XCTAssertTrue(page.text.contains(found) && !page.text.contains(">\(missed)<"), "\(typed) finds \(found) only")
            }
            let nothing = try await boss.get("/admin/orders?q=%25")
            XCTAssertTrue(nothing.text.contains(kimNumber) && nothing.text.contains(leeNumber), "a wildcard alone is nothing typed")
            let tooLong = try await boss.get("/admin/orders?q=" + String(repeating: "a", count: 51))
            XCTAssertEqual(tooLong.status, .badRequest)
            let admin = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "boss@example.com", "password": "password1"]).object()
            let api = try await app.send(.GET, "/api/v1/admin/orders?q=9876", token: try XCTUnwrap(admin["accessToken"] as? String)).object()
            XCTAssertEqual((api["items"] as? [[String: Any]])?.compactMap { $0["number"] as? String }, [leeNumber])

            let today = BanchanStore.orderDay(Date())
            let day = "\(today.prefix(4))-\(today.dropFirst(4).prefix(2))-\(today.suffix(2))"
            let csv = try await boss.get("/admin/orders/export?day=\(day)")
            XCTAssertEqual(csv.status, .ok)
            XCTAssertEqual(csv.headers.contentType?.subType, "csv")
            XCTAssertEqual(csv.headers.first(name: .contentDisposition), "attachment; filename=\"orders-\(day).csv\"")
            XCTAssertTrue(csv.text.hasPrefix("\u{FEFF}주문번호,주문 일시,상태,받는 분,연락처"), String(csv.text.prefix(80)))
            let lines = csv.text.split(separator: "\r\n")
            XCTAssertEqual(lines.count, 3, "a heading and the day's two orders")
            XCTAssertTrue(lines[1].hasPrefix(kimNumber + ",") && lines[1].contains(",결제 대기,김반찬,010-1234-5678,"), String(lines[1]))
            XCTAssertTrue(lines[2].contains(#","'=HYPERLINK(""http://x.y"")","#), "never a formula: \(lines[2])")
            XCTAssertTrue(lines[1].contains("[소중한식사] 한우 소불고기 500g × 1"))
            let otherDay = try await boss.get("/admin/orders/export?day=2001-01-01")
            XCTAssertEqual(otherDay.text.split(separator: "\r\n").count, 1, "the heading alone")
            let badDay = try await boss.get("/admin/orders/export?day=yesterday")
            XCTAssertEqual(badDay.status, .badRequest)
            var someone = try await CookieBrowser.signedIn(app, as: buyer.email)
            let notAdmin = try await someone.get("/admin/orders/export")
            XCTAssertEqual(notAdmin.status, .notFound)
        }
    }

    /// Issue 61: a person's console page lists their orders, and every look at someone's data in
    /// the console is recorded — who, whose, when, what, from where — readable by administrators
    /// at /admin/audit/access, kept two years.
    func testEveryConsoleLookAtSomeonesDataIsRecorded() async throws {
        try await withTestApp { app in
            let admin = try await app.signUpAdmin("boss@example.com", nickname: "사장님")
            let me = try await app.send(.GET, "/api/v1/me", token: admin.accessToken).object()
            let adminID = try XCTUnwrap(me["id"] as? String).lowercased()
            let buyer = try await app.member("구매자")
            let order = try await placePaidOrder(app, buyer)
            let number = try XCTUnwrap(order.order["number"] as? String)
            var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")

            let person = try await boss.get("/admin/people/\(buyer.id)")
            XCTAssertTrue(person.text.contains(#"id="person-orders""#) && person.text.contains(number), "their orders on their page")
            XCTAssertTrue(person.text.contains(#"href="/admin/orders/\#(order.id.lowercased())""#))
            _ = try await boss.get("/admin/orders/\(order.id)")
            _ = try await boss.get("/admin/orders?q=구매")
            _ = try await boss.get("/admin/orders")  // a list without a search shows no one's data: not recorded
            _ = try await boss.get("/admin/orders/export")
            _ = try await boss.get("/admin/orders/packing")

            let records = try await AccessRecords(database: app.db).page(CursorPageRequest()).items
            XCTAssertEqual(records.map(\.what), ["banchan.orders.packing", "banchan.orders.export", "banchan.orders.search", "banchan.order.view",
                                                 "accounts.person.view"])
            XCTAssertTrue(records.allSatisfy { $0.actorID.uuidString.lowercased() == adminID })
            XCTAssertEqual(records.first { $0.what == "banchan.order.view" }?.personID, buyer.id)
            XCTAssertEqual(records.first { $0.what == "banchan.order.view" }?.subject, number)
            XCTAssertEqual(records.first { $0.what == "banchan.orders.search" }?.subject, "구매")
            XCTAssertFalse(records.contains { $0.network.isEmpty })

            let page = try await boss.get("/admin/audit/access")
            XCTAssertEqual(page.status, .ok)
            XCTAssertTrue(page.text.contains("<strong>주문과 배송지를 봤어요</strong> · \(number)"), page.text)
            XCTAssertTrue(page.text.contains("정보 주체: 구매자") && page.text.contains("사장님 · "))
            let theirs = try await boss.get("/admin/audit/access?person=\(buyer.id)")
            XCTAssertEqual(theirs.text.components(separatedBy: #"class="card audit-entry access-record""#).count - 1, 2, "the order's page and the person's page")
            var someone = try await CookieBrowser.signedIn(app, as: buyer.email)
            let refused = try await someone.get("/admin/audit/access")
            XCTAssertEqual(refused.status, .notFound)
            let edit = try await boss.post("/admin/audit/access", form: [:])
            XCTAssertTrue([.notFound, .methodNotAllowed].contains(edit.status), "nothing changes the record")

            // Two years, then the daily chore removes them.
            let store = AccessRecords(database: app.db)
            let early = try await store.prune(now: Date().addingTimeInterval(700 * 86_400))
            XCTAssertEqual(early, 0)
            let late = try await store.prune(now: Date().addingTimeInterval(731 * 86_400))
            XCTAssertEqual(late, records.count)
        }
    }
}
