import Accounts
@testable import MenuGame
import MenuGameApp
import Platform
import WhatWeEatTesting
import XCTest

final class MenuGroupStateCacheTests: XCTestCase {
    private func state(pin: String = "482913", id: UUID = UUID(), count: Int, closed: Bool = false) -> MenuGroupStateCache.Snapshot {
        MenuGroupStateCache.Snapshot(id: id, pin: pin, hostTokenHash: SecureRandom.sha256Hex("host-device-token-0001"),
                                     isClosed: closed, lastActivityAt: Date(timeIntervalSince1970: 1_000), submissionCount: count)
    }

    func testAnEntryIsFreshForMaxAgeThenReadAgain() {
        let cache = MenuGroupStateCache(maxAge: 1)
        let start = Date(timeIntervalSince1970: 2_000)
        cache.store(state(count: 3), observedAt: start)
        XCTAssertEqual(cache.fresh(pin: "482913", now: start.addingTimeInterval(0.9))?.submissionCount, 3)
        XCTAssertNil(cache.fresh(pin: "482913", now: start.addingTimeInterval(1.0)))
        XCTAssertNil(cache.fresh(pin: "111111", now: start))
    }

    func testAnOlderObservationNeverReplacesANewerOne() {
        let cache = MenuGroupStateCache(maxAge: 1)
        let id = UUID()
        let start = Date(timeIntervalSince1970: 2_000)
        cache.store(state(id: id, count: 2), observedAt: start.addingTimeInterval(0.2))   // the later count finished first
        cache.store(state(id: id, count: 1), observedAt: start.addingTimeInterval(0.1))
        XCTAssertEqual(cache.fresh(pin: "482913", now: start.addingTimeInterval(0.3))?.submissionCount, 2)
        // A different group that drew the same PIN replaces it whatever the times.
        cache.store(state(id: UUID(), count: 0), observedAt: start)
        XCTAssertEqual(cache.fresh(pin: "482913", now: start.addingTimeInterval(0.3))?.submissionCount, 0)
    }

    func testTheStatusKnowsTheHostByTheirToken() {
        let snapshot = state(count: 4, closed: true)
        XCTAssertTrue(snapshot.status(device: "host-device-token-0001").isHost)
        XCTAssertFalse(snapshot.status(device: "someone-else-token-01").isHost)
        XCTAssertFalse(snapshot.status(device: nil).isHost)
        XCTAssertTrue(snapshot.status(device: nil).isClosed)
        XCTAssertEqual(snapshot.status(device: nil).expiresAt, Date(timeIntervalSince1970: 1_000 + 24 * 3600))
    }

    /// Six digits not starting with 0, spaces around them forgiven (a PIN typed or pasted).
    func testAPINIsSixDigitsNotStartingWithZero() {
        XCTAssertEqual(MenuGameService.normalizedPIN("482913"), "482913")
        XCTAssertEqual(MenuGameService.normalizedPIN(" 482913 "), "482913")
        for bad in ["082913", "48291", "4829134", "48a913", "４８２９１３", "٤٨٢٩١٣", "", "      "] {
            XCTAssertNil(MenuGameService.normalizedPIN(bad), bad)
        }
    }

    func testMemoryIsBounded() {
        let cache = MenuGroupStateCache(maxAge: 1, capacity: 100)
        let start = Date(timeIntervalSince1970: 2_000)
        for index in 0..<100 { cache.store(state(pin: String(100_000 + index), count: 0), observedAt: start) }
        XCTAssertEqual(cache.count, 100)
        // Once full, stale entries are dropped to make room.
        cache.store(state(pin: "999999", count: 0), observedAt: start.addingTimeInterval(5))
        XCTAssertEqual(cache.count, 1)
        XCTAssertNotNil(cache.fresh(pin: "999999", now: start.addingTimeInterval(5)))
    }
}
