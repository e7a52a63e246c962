@testable import Accounts
import Fluent
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Issue 61: the console's audit log is kept until an entry written here committed
/// (`AuditLog.changes`, moved after the commit by `Database.afterCommit`), never by an entry a
/// transaction rolled back, and shows an entry written behind its back only once told.
final class AuditLogPageTests: XCTestCase {
    static func entry(_ action: String) -> AuditEntry {
        AuditEntry(actorID: nil, action: action, subjectType: "user", subjectID: UUID().uuidString, before: nil, after: nil, at: Date())
    }

    struct RolledBack: Error {}

    func testAnEntryMovesTheLogsVersionOnlyOnceItsTransactionCommitted() async throws {
        try await withTestApp { app in
            let before = AuditLog.changes.current
            let seenInside = try await app.db.writeTransaction { transaction -> Int in
                try await AuditLog(database: transaction).record(Self.entry("accounts.test.committed"))
                return AuditLog.changes.current
            }
            XCTAssertEqual(seenInside, before, "not while the entry cannot be read yet")
            XCTAssertGreaterThan(AuditLog.changes.current, before, "once it committed")

            let afterCommit = AuditLog.changes.current
            do {
                try await app.db.writeTransaction { transaction in
                    try await AuditLog(database: transaction).record(Self.entry("accounts.test.rolled_back"))
                    throw RolledBack()
                }
                XCTFail("the transaction was to roll back")
            } catch is RolledBack {}
            XCTAssertEqual(AuditLog.changes.current, afterCommit, "an entry that was never kept moves nothing")
            try await AuditLog(database: app.db).record(Self.entry("accounts.test.alone"))
            XCTAssertGreaterThan(AuditLog.changes.current, afterCommit, "outside a transaction, at once")
        }
    }

    func testThePageShowsANewEntryAtOnceAndOneWrittenBehindItsBackOnceTold() async throws {
        try await withTestApp { app in
            let boss = try await app.member("사장님", admin: true)
            var browser = try await CookieBrowser.signedIn(app, as: boss.email)
            _ = try await browser.get("/me")
            _ = try await browser.get("/admin/audit")
            try await AuditLog(database: app.db).record(Self.entry("accounts.test.first"))
            let shown = try await browser.get("/admin/audit")
            XCTAssertTrue(shown.text.contains("accounts.test.first"), "a new entry shows on the next view")

            let behind = Self.entry("accounts.test.behind")
            try await app.db.sql.insert(into: AuditLog.table).columns("id", "actor_id", "action", "subject_type", "subject_id", "before", "after", "created_at")
                .values(SQLBind(behind.id), SQLBind(behind.actorID), SQLBind(behind.action), SQLBind(behind.subjectType), SQLBind(behind.subjectID),
                        SQLBind(String?.none), SQLBind(String?.none), SQLBind(behind.createdAt))
                .run()
            let kept = try await browser.get("/admin/audit")
            XCTAssertFalse(kept.text.contains("accounts.test.behind"), "kept until told")
            AuditLog.changes.moveOn()
            let told = try await browser.get("/admin/audit")
            XCTAssertTrue(told.text.contains("accounts.test.behind"))
        }
    }
}
