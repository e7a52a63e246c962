import Fluent
@testable import Media
import Platform
import WhatWeEatTesting
import XCTVapor

/// `StorageQuotaStore` is the one owner of the upload counters: every statement it has runs here
/// (on SQLite, and on PostgreSQL in CI's second pass). A take past its limit adds nothing; a give
/// back never goes below zero; accounts and networks' days count apart.
final class StorageQuotaStoreTests: XCTestCase {
    func testAnAccountsCount() async throws {
        try await withTestApp { app in
            let store = StorageQuotaStore(database: app.db)
            let mina = UUID(), joon = UUID()
            let none = try await store.used(by: mina)
            XCTAssertEqual(none, 0, "an account that never uploaded uses nothing")
            let first = try await store.take(600, account: mina, limit: 1_000)
            XCTAssertTrue(first)
            let exact = try await store.take(400, account: mina, limit: 1_000)
            XCTAssertTrue(exact, "up to the limit itself")
            let past = try await store.take(1, account: mina, limit: 1_000)
            XCTAssertFalse(past)
            let used = try await store.used(by: mina)
            XCTAssertEqual(used, 1_000, "the refused take added nothing")
            let other = try await store.take(10, account: joon, limit: 1_000)
            XCTAssertTrue(other, "each account has its own count")

            try await store.giveBack(300, account: mina)
            let afterGiveBack = try await store.used(by: mina)
            XCTAssertEqual(afterGiveBack, 700)
            try await store.giveBack(5_000, account: mina)
            let floored = try await store.used(by: mina)
            XCTAssertEqual(floored, 0, "never below zero")

            try await store.forget(joon)
            let forgotten = try await store.used(by: joon)
            XCTAssertEqual(forgotten, 0)
            let afterForget = try await store.take(1_000, account: joon, limit: 1_000)
            XCTAssertTrue(afterForget, "a forgotten account starts again from zero")
        }
    }

    func testANetworksDays() async throws {
        try await withTestApp { app in
            let store = StorageQuotaStore(database: app.db)
            let school = "203.0.113.0/24"
            let took = try await store.takeNetworkDay(700, network: school, day: "2026-11-27", limit: 1_000)
            XCTAssertTrue(took)
            let past = try await store.takeNetworkDay(301, network: school, day: "2026-11-27", limit: 1_000)
            XCTAssertFalse(past)
            let nextDay = try await store.takeNetworkDay(900, network: school, day: "2026-11-28", limit: 1_000)
            XCTAssertTrue(nextDay, "each day has its own budget")
            let elsewhere = try await store.takeNetworkDay(900, network: "198.51.100.0/24", day: "2026-11-27", limit: 1_000)
            XCTAssertTrue(elsewhere, "each network too")
            let counted = try await store.usedOnDay(network: school, day: "2026-11-27")
            XCTAssertEqual(counted, 700, "the refused take added nothing")

            try await store.giveBackNetworkDay(200, network: school, day: "2026-11-27")
            let given = try await store.usedOnDay(network: school, day: "2026-11-27")
            XCTAssertEqual(given, 500)
            try await store.giveBackNetworkDay(9_999, network: school, day: "2026-11-27")
            let floored = try await store.usedOnDay(network: school, day: "2026-11-27")
            XCTAssertEqual(floored, 0, "never below zero")

            let pruned = try await store.pruneNetworkDays(before: "2026-11-28")
            XCTAssertEqual(pruned, 2, "both networks' 27th went")
            let kept = try await store.usedOnDay(network: school, day: "2026-11-28")
            XCTAssertEqual(kept, 900, "the 28th stays")
            let gone = try await store.usedOnDay(network: school, day: "2026-11-27")
            XCTAssertEqual(gone, 0)
        }
    }
}
