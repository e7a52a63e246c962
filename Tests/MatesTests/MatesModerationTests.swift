import Fluent
@testable import Mates
import MatesTesting
import Platform
import WhatWeEatTesting
import XCTVapor

/// Mates' part of the console's Moderation tab (`/admin/moderation`, administrators only): who
/// three reports suspended, and the operator's decision, lift or keep, with a reason the person
/// is told; each decision audited.
final class MatesModerationTests: XCTestCase {
    let mates = Application.mates
    static let reasonRequired = "당사자에게 보낼 이유를 200자 안으로 적어 주세요."

    struct ReportBody: Encodable { let userId: UUID; let categories: [String]; let comment: String }

    /// The figure whose label is `label` on the Today page: its value.
    func figure(_ page: String, _ label: String) -> String? {
        guard let labelRange = page.range(of: #"<span class="figure-label">\#(label)</span>"#) else { return nil }
        let before = page[..<labelRange.lowerBound]
        guard let open = before.range(of: #"<span class="figure-value">"#, options: .backwards) else { return nil }
        return before[open.upperBound...].components(separatedBy: "</span>").first
    }

    /// The person's entry on the Moderation page (up to its `</li>`); nil when they are not listed.
    func entry(_ page: TestingHTTPResponse, _ user: UUID) -> String? {
        guard let start = page.text.range(of: #"data-user="\#(user.uuidString.lowercased())""#) else { return nil }
        return page.text[start.upperBound...].components(separatedBy: "</li>").first
    }

    func matesAudit(_ app: Application) async throws -> [AuditEntry] {
        try await AuditLog(database: app.db).page(CursorPageRequest()).items.filter { $0.action.hasPrefix("mates.") }
    }

    /// The member's newest inbox entry of this kind, nil when there is none.
    func notice(_ app: Application, _ member: Member, kind: String) async throws -> [String: Any]? {
        let inbox = try await app.send(.GET, "/api/v1/notifications", token: member.token)
        XCTAssertEqual(inbox.status, .ok, inbox.text)
        return try XCTUnwrap(try inbox.object()["items"] as? [[String: Any]]).first { $0["kind"] as? String == kind }
    }

    /// What the person's own profile says (`GET /api/v1/mates/profile`).
    func isSuspended(_ app: Application, _ member: Member) async throws -> Bool {
        let profile = try await app.send(.GET, "\(mates)/profile", token: member.token)
        XCTAssertEqual(profile.status, .ok, profile.text)
        return try profile.json(MatesJSON.Profile.self).suspended
    }

    /// Each reporter is matched with `troll`, finishes and reports them; the third report suspends.
    func suspend(_ app: Application, _ troll: Member, by reporters: [Member]) async throws {
        for (number, reporter) in reporters.enumerated() {
            _ = try await app.matchPair(reporter, troll)
            _ = try await app.send(.POST, "\(mates)/match/finish", token: reporter.token)
            let reported = try await app.send(.POST, "\(mates)/reports", json: ReportBody(userId: troll.id, categories: ["rude", "no_show"], comment: "약속에 안 나왔어요"),
                                              token: reporter.token)
            XCTAssertEqual(reported.status, .created, reported.text)
            if number < reporters.count - 1 {
                let queue = try await app.send(.POST, "\(mates)/queue", json: Application.QueueBody(lat: 37.5, lon: 127, topics: []), token: troll.token)
                XCTAssertEqual(queue.status, .ok, "report \(number + 1): \(queue.text)")
                _ = try await app.send(.DELETE, "\(mates)/queue", token: troll.token)
            }
        }
        let suspended = try await isSuspended(app, troll)
        XCTAssertTrue(suspended, "three reports suspend")
    }

    /// The operator's browser, signed in, with a CSRF token for its forms.
    func console(_ app: Application, _ admin: Member) async throws -> CookieBrowser {
        var browser = try await CookieBrowser.signedIn(app, as: admin.email)
        _ = try await browser.get("/me")
        return browser
    }

    func testOnlyAdministratorsSeeOrDecideASuspension() async throws {
        try await withTestApp { app in
            _ = try await app.member("관리자", admin: true)
            let troll = try await app.mate("트롤")
            let reporters = [try await app.mate("첫신고"), try await app.mate("둘신고"), try await app.mate("셋신고")]
            try await suspend(app, troll, by: reporters)
            let decide = "/admin/moderation/mates/\(troll.id)"

            let anonymousPage = try await app.send(.GET, "/admin/moderation")
            XCTAssertEqual(anonymousPage.status, .notFound)
            var anonymous = CookieBrowser(app: app)
            _ = try await anonymous.get("/login")
            let anonymousLift = try await anonymous.post(decide, form: ["decision": "lift", "reason": "풀어 줘요"])
            XCTAssertEqual(anonymousLift.status, .notFound)

            var someone = try await CookieBrowser.signedIn(app, as: reporters[0].email)
            let page = try await someone.get("/admin/moderation")
            XCTAssertEqual(page.status, .notFound)
            XCTAssertNil(entry(page, troll.id))
            _ = try await someone.get("/me")
            for decision in ["lift", "keep"] {
                let forced = try await someone.post(decide, form: ["decision": decision, "reason": "풀어 줘요"])
                XCTAssertEqual(forced.status, .notFound, decision)
            }

            let stillSuspended = try await isSuspended(app, troll)
            XCTAssertTrue(stillSuspended, "nothing lifted")
            let audited = try await matesAudit(app)
            XCTAssertEqual(audited.count, 0)
            let lifted = try await notice(app, troll, kind: "moderation_mates_lifted")
            XCTAssertNil(lifted)
            let kept = try await notice(app, troll, kind: "moderation_mates_kept")
            XCTAssertNil(kept)
        }
    }

    func testKeepingAndLiftingASuspensionTellThePersonWhyAndAreAudited() async throws {
        try await withTestApp { app in
            let admin = try await app.member("관리자", admin: true)
            let troll = try await app.mate("트롤")
            let reporters = [try await app.mate("첫신고"), try await app.mate("둘신고"), try await app.mate("셋신고")]
            var boss = try await console(app, admin)
            let todayBefore = try await boss.get("/admin")
            let suspendedBefore = try XCTUnwrap(Int(figure(todayBefore.text, "정지된 메이트") ?? ""), todayBefore.text)

            try await suspend(app, troll, by: reporters)
            let decide = "/admin/moderation/mates/\(troll.id)"
            let today = try await boss.get("/admin")
            XCTAssertEqual(figure(today.text, "정지된 메이트"), String(suspendedBefore + 1))
            let listed = try await boss.get("/admin/moderation")
            XCTAssertEqual(listed.status, .ok)
            let listing = try XCTUnwrap(entry(listed, troll.id), "the suspended person is on the page")
            XCTAssertTrue(listing.contains("트롤"), listing)
            XCTAssertTrue(listing.contains("신고 3건"), listing)
            XCTAssertTrue(listing.contains("약속에 안 나왔어요"), "the newest report's comment")

            // Refused decisions change nothing.
            for reason in ["", "  ", String(repeating: "가", count: 201)] {
                let refused = try await boss.post(decide, form: ["decision": "lift", "reason": reason])
                XCTAssertEqual(refused.status, .unprocessableEntity, "reason of \(reason.count) characters")
                XCTAssertTrue(refused.text.contains(Self.reasonRequired), "the page says why")
                XCTAssertNotNil(entry(refused, troll.id), "the tab again, the person still on it")
            }
            let unknown = try await boss.post(decide, form: ["decision": "ban", "reason": "이유는 있어요"])
            XCTAssertEqual(unknown.status, .badRequest)
            var suspended = try await isSuspended(app, troll)
            XCTAssertTrue(suspended, "a refused decision lifts nothing")
            var audited = try await matesAudit(app)
            XCTAssertEqual(audited.count, 0)

            // Kept: still suspended, and told why.
            let keep = try await boss.post(decide, form: ["decision": "keep", "reason": "신고 내용이 확인됐어요"])
            XCTAssertEqual(keep.status, .seeOther, keep.text)
            XCTAssertEqual(keep.headers.first(name: .location), "/admin/moderation#moderation-mates")
            suspended = try await isSuspended(app, troll)
            XCTAssertTrue(suspended)
            let queue = try await app.send(.POST, "\(mates)/queue", json: Application.QueueBody(lat: 37.5, lon: 127, topics: []), token: troll.token)
            XCTAssertEqual(queue.errorCode, "suspended")
            audited = try await matesAudit(app)
            XCTAssertEqual(audited.map(\.action), ["mates.suspension.keep"])
            XCTAssertEqual(audited.first?.subjectType, "mates_profile")
            XCTAssertEqual(audited.first?.subjectID, troll.id.uuidString)
            XCTAssertEqual(audited.first?.actorID, admin.id)
            XCTAssertEqual(audited.first?.after?["reason"], "신고 내용이 확인됐어요")
            XCTAssertEqual(audited.first?.after?["suspended"], "true")
            let keptNotice = try await notice(app, troll, kind: "moderation_mates_kept")
            let toldKept = try XCTUnwrap(keptNotice, "the person is told")
            XCTAssertEqual(toldKept["excerpt"] as? String, "신고 내용이 확인됐어요")
            XCTAssertEqual(toldKept["message"] as? String, "메이트 이용 정지를 유지해요.")
            let keptPage = try await boss.get("/admin/moderation")
            XCTAssertNotNil(entry(keptPage, troll.id), "kept: still on the page")

            // Lifted: searching again, off the page, and told why.
            let lift = try await boss.post(decide, form: ["decision": "lift", "reason": "한 번 더 기회를 드려요"])
            XCTAssertEqual(lift.status, .seeOther, lift.text)
            suspended = try await isSuspended(app, troll)
            XCTAssertFalse(suspended)
            try await app.search(troll)
            _ = try await app.send(.DELETE, "\(mates)/queue", token: troll.token)
            audited = try await matesAudit(app)
            XCTAssertEqual(audited.map(\.action).sorted(), ["mates.suspension.keep", "mates.suspension.lift"])
            let liftEntry = try XCTUnwrap(audited.first { $0.action == "mates.suspension.lift" })
            XCTAssertEqual(liftEntry.subjectID, troll.id.uuidString)
            XCTAssertEqual(liftEntry.after?["reason"], "한 번 더 기회를 드려요")
            XCTAssertEqual(liftEntry.after?["suspended"], "false")
            let liftedNotice = try await notice(app, troll, kind: "moderation_mates_lifted")
            let toldLifted = try XCTUnwrap(liftedNotice, "the person is told")
            XCTAssertEqual(toldLifted["excerpt"] as? String, "한 번 더 기회를 드려요")
            XCTAssertEqual(toldLifted["message"] as? String, "메이트 이용 정지가 풀렸어요.")
            let liftedPage = try await boss.get("/admin/moderation")
            XCTAssertNil(entry(liftedPage, troll.id), "no longer suspended: off the page")
            let todayAfter = try await boss.get("/admin")
            XCTAssertEqual(figure(todayAfter.text, "정지된 메이트"), String(suspendedBefore))

            // Someone not suspended: nothing to decide.
            _ = try await boss.get("/me")
            for person in [troll.id, reporters[0].id, UUID()] {
                for decision in ["lift", "keep"] {
                    let none = try await boss.post("/admin/moderation/mates/\(person)", form: ["decision": decision, "reason": "이유는 있어요"])
                    XCTAssertEqual(none.status, .notFound, "\(decision) \(person)")
                }
            }
            audited = try await matesAudit(app)
            XCTAssertEqual(audited.count, 2, "nothing more audited")
        }
    }
}
