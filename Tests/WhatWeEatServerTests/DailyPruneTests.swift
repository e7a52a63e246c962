import Accounts
import Fluent
import Mates
import Notifications
import Platform
import SQLKit
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// Nothing piles up (issue 57): once a day one instance prunes ended sessions and their refresh
/// tokens and old login failures (30 days), used or expired codes and reset links (a day), and
/// read notifications (180 days); live and unread rows stay. The clock is moved, not waited for.
final class DailyPruneTests: XCTestCase {
    private let day: TimeInterval = 86_400

    func testRowsPastTheirTimeGoAndLiveOnesStay() async throws {
        try await withTestApp { app in
            app.workQueue.runsInBackground = false
            let inbox = app.mailInbox
            // A member with a verified phone (a used code), a signed-out session, a used reset link,
            // a live session and two wrong passwords.
            let mina = try await app.mate("정리미나")
            let email = try XCTUnwrap(mina.email)
            let other = try await app.logIn(email)
            _ = try await app.send(.POST, "/api/v1/auth/logout", token: other.accessToken)
            _ = try await app.send(.POST, "/api/v1/auth/password-reset", json: ["email": email])
            while await app.workQueue.runDue(app) > 0 {}
            let token = try XCTUnwrap(inbox.lastLink(to: email)?.token)
            let reset = try await app.send(.POST, "/api/v1/auth/password-reset/confirm", json: ["token": token, "password": "password1"])
            XCTAssertEqual(reset.status, .ok)
            let live = try reset.json(Application.Credentials.self)
            // (after the reset, which forgets the address's failures)
            for _ in 0..<2 { _ = try await app.send(.POST, "/api/v1/auth/login", json: ["email": email, "password": "wrong-one-1"]) }
            // Two inbox entries: one read, one not.
            let store = NotificationStore(database: app.db, application: app)
            for kind in ["test.read", "test.unread"] {
                try await store.post(NotificationDraft(recipient: mina.id, actor: nil, service: "mates", kind: kind, subjectID: UUID()))
            }
            let readOne = try await app.db.sql.select().column("id").from("notifications").where("kind", .equal, "test.read")
                .first(decodingColumn: "id", as: UUID.self)
            try await store.markRead(for: mina.id, ids: [try XCTUnwrap(readOne)])

            let counts = { () async throws -> [String: Int] in
                var counts: [String: Int] = [:]
                for table in ["auth_sessions", "refresh_tokens", "login_failures", "account_links", "mates_verification_codes", "notifications"] {
                    counts[table] = try await app.rowCount(table)
                }
                return counts
            }
            let before = try await counts()
            XCTAssertGreaterThan(before["login_failures"] ?? 0, 0)
            XCTAssertGreaterThan(before["mates_verification_codes"] ?? 0, 0)

            // Tomorrow: nothing is a day past its use yet... but the reset link and the code are.
            let now = Date()
            var removed = await app.dailyPrune.run(app, now: now.addingTimeInterval(0.5 * day))
            XCTAssertEqual(removed["sessions"], 0)
            XCTAssertEqual(removed["reset_links"], 0, "kept a day")
            removed = await app.dailyPrune.run(app, now: now.addingTimeInterval(1.5 * day))
            XCTAssertEqual(removed["reset_links"], 1)
            XCTAssertEqual(removed["verification_codes"], before["mates_verification_codes"])
            XCTAssertEqual(removed["sessions"], 0, "ended sessions are kept 30 days")
            XCTAssertEqual(removed["login_failures"], 0)

            removed = await app.dailyPrune.run(app, now: now.addingTimeInterval(31 * day))
            XCTAssertEqual(removed["login_failures"], before["login_failures"])
            let sessions = try XCTUnwrap(removed["sessions"])
            XCTAssertGreaterThanOrEqual(sessions, 2, "the signed-out one and those the reset ended")
            let after = try await counts()
            XCTAssertEqual(after["auth_sessions"], (before["auth_sessions"] ?? 0) - sessions)
            XCTAssertLessThan(after["refresh_tokens"] ?? 0, before["refresh_tokens"] ?? 0, "their refresh tokens went with them")
            let me = try await app.send(.GET, "/api/v1/me", token: live.accessToken)
            XCTAssertEqual(me.status, .ok, "the live session stays")
            XCTAssertEqual(after["notifications"], before["notifications"], "a month-old read entry stays")

            removed = await app.dailyPrune.run(app, now: now.addingTimeInterval(181 * day))
            XCTAssertEqual(removed["read_notifications"], 1)
            let left = try await app.db.sql.select().column("kind").from("notifications").where("recipient_id", .equal, mina.id)
                .all(decodingColumn: "kind", as: String.self)
            XCTAssertTrue(left.contains("test.unread") && !left.contains("test.read"), "\(left)")
            XCTAssertTrue(AppMetrics.prometheusText().contains(#"whatweeat_pruned_rows_total{what="reset_links"}"#))
        }
    }

    func testOneInstanceClaimsTheDaysRun() async throws {
        try await withTestApp { app in
            let runs = MaintenanceRuns(database: app.db)
            let now = Date()
            async let first = runs.claim("test_chore", every: 23 * 3600, now: now)
            async let second = runs.claim("test_chore", every: 23 * 3600, now: now)
            let claims = try await [first, second]
            XCTAssertEqual(claims.filter { $0 }.count, 1, "of two instances at once, one runs it")
            let soon = try await runs.claim("test_chore", every: 23 * 3600, now: now.addingTimeInterval(3600))
            XCTAssertFalse(soon, "not again within the day")
            let tomorrow = try await runs.claim("test_chore", every: 23 * 3600, now: now.addingTimeInterval(23 * 3600))
            XCTAssertTrue(tomorrow)
            let other = try await runs.claim("other_chore", every: 23 * 3600, now: now.addingTimeInterval(3600))
            XCTAssertTrue(other, "each chore its own")
        }
    }
}
