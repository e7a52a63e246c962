import Accounts
import Banchan
import BurgerMap
import Foundation
import LookForRealBurgerApp
import Mates
import MenuGame
import Notifications
import Platform
import SesacStudyApp
import SocketIO
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTest

/// A cursor made from a row PostgreSQL handed back binds to that row's own microsecond.
final class PageCursorTests: XCTestCase {
    /// PostgresNIO's own arithmetic: a date is bound as truncated microseconds since 2000, and read
    /// back as 2000 plus microseconds.
    static let postgresEpoch = Date(timeIntervalSince1970: 946_684_800)
    static func boundMicroseconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince(postgresEpoch) * 1_000_000) }
    static func readBack(_ microseconds: Int64) -> Date { Date(timeInterval: Double(microseconds) / 1_000_000, since: postgresEpoch) }

    func testAPostgreSQLTimeSurvivesTheCursorToTheMicrosecond() throws {
        var generator = SystemRandomNumberGenerator()
        var earlyWithoutTheBound = 0
        let now: Int64 = 817_000_000_000_000  // 2025-11 in microseconds since 2000
        for _ in 0..<100_000 {
            let stored = now + Int64.random(in: 0..<100_000_000_000_000, using: &generator)
            let cursor = try XCTUnwrap(PageCursor(encoded: PageCursor(createdAt: Self.readBack(stored), id: UUID()).encoded))
            XCTAssertEqual(Self.boundMicroseconds(PageCursor.createdAtBound(cursor.createdAt, dialect: "postgresql")), stored)
            if Self.boundMicroseconds(cursor.createdAt) != stored { earlyWithoutTheBound += 1 }
        }
        // The case the bound exists for does occur: without it, some cursors bind a microsecond early.
        XCTAssertGreaterThan(earlyWithoutTheBound, 0)
        // SQLite compares the stored double, which the cursor carries unchanged.
        let date = Date(timeIntervalSinceReferenceDate: 786_000_000.123456)
        XCTAssertEqual(PageCursor.createdAtBound(date, dialect: "sqlite"), date)
    }
}
