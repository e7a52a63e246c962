import Fluent
@testable import Platform
import WhatWeEatTesting
import XCTVapor

/// The console's "today" failures: counted in the database (so every instance adds to one
/// figure), by Korea's day, and forgotten after `keptDays` (on SQLite, and on PostgreSQL in CI's
/// second pass).
final class DailyTalliesTests: XCTestCase {
    func testTalliesAddUpPerKoreanDayAndOldDaysAreForgotten() async throws {
        try await withTestApp { app in
            let tallies = DailyTallies(database: app.db)
            // 23:30 in Seoul on 1 December is 14:30 UTC; half an hour later it is the 2nd in Korea.
            let lateEvening = try XCTUnwrap(ISO8601DateFormatter().date(from: "2026-12-01T14:30:00Z"))
            let afterMidnight = lateEvening.addingTimeInterval(3600)
            XCTAssertEqual(DailyTallies.day(of: lateEvening), "2026-12-01")
            XCTAssertEqual(DailyTallies.day(of: afterMidnight), "2026-12-02")

            var empty = try await tallies.today(at: lateEvening)
            XCTAssertEqual(empty, [.pushFailed: 0, .smsFailed: 0])
            // Two instances counting at once each add theirs.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<5 { group.addTask { try await tallies.add(.pushFailed, at: lateEvening) } }
                try await group.waitForAll()
            }
            try await tallies.add(.smsFailed, at: lateEvening)
            try await tallies.add(.pushFailed, at: afterMidnight)
            let first = try await tallies.today(at: lateEvening)
            XCTAssertEqual(first, [.pushFailed: 5, .smsFailed: 1])
            let second = try await tallies.today(at: afterMidnight)
            XCTAssertEqual(second, [.pushFailed: 1, .smsFailed: 0], "a new day in Korea starts at 0")

            let muchLater = afterMidnight.addingTimeInterval(Double(DailyTallies.keptDays) * 24 * 3600)
            let pruned = try await tallies.prune(at: muchLater)
            XCTAssertEqual(pruned, 2, "the 1st's two tallies go; the 2nd is kept for now")
            empty = try await tallies.today(at: lateEvening)
            XCTAssertEqual(empty, [.pushFailed: 0, .smsFailed: 0])
            let kept = try await tallies.today(at: afterMidnight)
            XCTAssertEqual(kept[.pushFailed], 1)
        }
    }
}
