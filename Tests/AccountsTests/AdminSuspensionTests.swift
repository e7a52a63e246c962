@testable import Accounts
import Fluent
import Platform
import WhatWeEatTesting
import XCTVapor

/// The console's People tab suspends a whole account: it cannot sign in (told why, 403
/// `account_suspended` with the operator's reason), every session of it ends at once, and lifting
/// lets it back; never one's own account, never an administrator's; a reason always; audited;
/// nobody but an administrator reaches it.
final class AdminSuspensionTests: XCTestCase {
    func at(_ id: UUID, _ tail: String = "") -> String { "/admin/people/\(id.uuidString.lowercased())\(tail)" }

    func logIn(_ app: Application, _ member: Member) async throws -> TestingHTTPResponse {
        try await app.send(.POST, "/api/v1/auth/login", json: ["email": try XCTUnwrap(member.email), "password": "password1"])
    }

    func testASuspendedAccountIsSignedOutEverywhereAndToldWhyUntilItIsLifted() async throws {
        try await withTestApp { app in
            let boss = try await app.member("사장님", admin: true)
            let member = try await app.member("말썽손님")
            var theirBrowser = try await CookieBrowser.signedIn(app, as: try XCTUnwrap(member.email))
            let before = try await theirBrowser.get("/me")
            XCTAssertEqual(before.status, .ok)

            var someone = try await CookieBrowser.signedIn(app, as: try XCTUnwrap(member.email))
            _ = try await someone.get("/me")
            let forced = try await someone.post(at(member.id, "/suspension"), form: ["decision": "lift", "reason": "제가 풀게요"])
            XCTAssertEqual(forced.status, .notFound, "not for a member")

            var console = try await CookieBrowser.signedIn(app, as: boss.email)
            let page = try await console.get(at(member.id))
            XCTAssertTrue(page.text.contains(#"id="suspension-submit""#))
            let noReason = try await console.post(at(member.id, "/suspension"), form: ["decision": "suspend", "reason": " "])
            XCTAssertEqual(noReason.status, .unprocessableEntity)
            let stillIn = try await app.send(.GET, "/api/v1/me", token: member.token)
            XCTAssertEqual(stillIn.status, .ok, "a refused suspension changes nothing")

            let suspended = try await console.post(at(member.id, "/suspension"), form: ["decision": "suspend", "reason": "다른 사람 리뷰에 광고 도배"])
            XCTAssertEqual(suspended.status, .seeOther, suspended.text)
            let token = try await app.send(.GET, "/api/v1/me", token: member.token)
            XCTAssertEqual(token.status, .unauthorized, "every session of it ended: the API token")
            let cookie = try await theirBrowser.get("/me")
            XCTAssertNotEqual(cookie.status, .ok, "and the browser's")
            let refused = try await logIn(app, member)
            XCTAssertEqual(refused.status, .forbidden)
            XCTAssertEqual(refused.errorCode, "account_suspended")
            XCTAssertTrue(refused.text.contains("다른 사람 리뷰에 광고 도배"), "told why: \(refused.text)")
            let wrongPassword = try await app.send(.POST, "/api/v1/auth/login", json: ["email": try XCTUnwrap(member.email), "password": "not-theirs-1"])
            XCTAssertEqual(wrongPassword.errorCode, "invalid_credentials", "a stranger with a wrong password learns nothing")
            let shown = try await console.get(at(member.id))
            XCTAssertTrue(shown.text.contains(#"id="person-suspended""#) && shown.text.contains("다른 사람 리뷰에 광고 도배"))

            let lifted = try await console.post(at(member.id, "/suspension"), form: ["decision": "lift", "reason": "소명 확인"])
            XCTAssertEqual(lifted.status, .seeOther)
            let back = try await logIn(app, member)
            XCTAssertEqual(back.status, .ok, back.text)

            let own = try await console.post(at(boss.id, "/suspension"), form: ["decision": "suspend", "reason": "실수"])
            XCTAssertEqual(own.status, .conflict)
            let other = try await app.member("부사장", admin: true)
            let admin = try await console.post(at(other.id, "/suspension"), form: ["decision": "suspend", "reason": "실수"])
            XCTAssertEqual(admin.status, .conflict, "an administrator loses the role first")
            XCTAssertTrue(admin.text.contains("관리자 계정은 정지할 수 없어요"))
            let unknown = try await console.post(at(member.id, "/suspension"), form: ["decision": "ban", "reason": "실수"])
            XCTAssertEqual(unknown.status, .badRequest)

            let entries = try await AuditLog(database: app.db).page(CursorPageRequest()).items.filter { $0.action.hasPrefix("accounts.") }
            XCTAssertEqual(entries.map(\.action), ["accounts.account.unsuspend", "accounts.account.suspend"])
            XCTAssertEqual(entries.last?.after?["reason"], "다른 사람 리뷰에 광고 도배")
            XCTAssertEqual(entries.last?.actorID, boss.id)
        }
    }
}
