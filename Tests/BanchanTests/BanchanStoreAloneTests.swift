import Accounts
@testable import Banchan
import Fluent
import Platform
import SQLKit
import WhatWeEatTesting
import XCTest

/// The shop's store on its own tables and nothing of the site (issue 59): a database migrated with
/// the accounts' and the shop's migrations, and an environment holding only what the test gives —
/// a clock it moves, a bus it reads — with every other dependency failing the test when touched.
final class BanchanStoreAloneTests: XCTestCase {
    private static let migrations: [any Migration] = AccountsFeature.migrations + BanchanFeature.migrations

    private static func environment(now: @escaping Now, events: any EventBus) -> BanchanEnvironment {
        BanchanEnvironment(now: now, events: events, logger: Logger(label: "banchan-store-alone"),
                           listings: BanchanListings(images: BanchanImages.URLs(publicURL: "http://shop.test")),
                           terms: ShopTermsInForce(environment: ShopSettings().terms), limits: BanchanLimits(shared: nil))
    }

    private static func dish(_ hash: String, title: String = "[테스트] 멸치볶음") -> Dish {
        Dish(hash: hash, section: .side, title: title, description: "바삭한 멸치", salePrice: 4_900, originalPrice: nil, badges: [],
             deliveryTypes: [.dawn, .parcel], pointRate: 1, deliveryInfo: "새벽배송", minQuantity: 1, maxQuantity: 10, emoji: "🐟",
             color: "#FDE68A", weight: "120g", ingredients: "멸치", storage: "냉장", detailSections: ["하나"], thumbCount: 1)
    }

    func testDishWritesAreStampedByTheShopsClockAndAnnouncedOnItsBus() async throws {
        try await withTestDatabase(migrations: Self.migrations) { database in
            let clock = TestClock(Date(timeIntervalSince1970: 1_800_000_000.5))
            let bus = RecordingEventBus()
            let store = BanchanStore(database: database, environment: Self.environment(now: { clock.now }, events: bus))

            let added = try await store.addDish(Self.dish("TEST1"), stock: 5, at: clock.now)
            XCTAssertEqual([added.stock, added.position], [5, 0])
            XCTAssertEqual(bus.topics, [BanchanListings.topic], "the write is announced once")
            XCTAssertEqual(store.environment.listings.listing(hash: "TEST1")?.stock, 5, "this instance's listing follows at once")

            clock.advance(by: 60)
            let changed = try await store.changeDish(hash: "TEST1", stock: nil, at: clock.now) { dish, stockNow in
                XCTAssertEqual(stockNow, 5)
                dish.title = "[테스트] 멸치견과볶음"
            }
            XCTAssertEqual(changed.dish.title, "[테스트] 멸치견과볶음")
            XCTAssertEqual(changed.stock, 5, "without a new stock, the table's stands")
            let stamps = try await database.sql.select().column(SQLIdentifier(BanchanStore.DishColumn.createdAt))
                .column(SQLIdentifier(BanchanStore.DishColumn.updatedAt)).from(DishRecord.schema)
                .where(SQLIdentifier(BanchanStore.DishColumn.hash), .equal, SQLBind("TEST1")).first()
            let row = try XCTUnwrap(stamps)
            XCTAssertEqual(try row.decode(column: BanchanStore.DishColumn.createdAt, as: Date.self), Date(timeIntervalSince1970: 1_800_000_000.5))
            XCTAssertEqual(try row.decode(column: BanchanStore.DishColumn.updatedAt, as: Date.self), Date(timeIntervalSince1970: 1_800_000_060.5),
                           "each write's time is the clock the test moved")

            try await store.retireDish(hash: "TEST1", at: clock.now)
            XCTAssertEqual(bus.topics.count, 3)
            let onSale = try await store.dishRowOnSale(hash: "TEST1")
            XCTAssertNil(onSale)
        }
    }

    func testReadsNeedNeitherClockNorBus() async throws {
        try await withTestDatabase(migrations: Self.migrations) { database in
            // Written with a clock and a bus; read back by a store that was given neither.
            let writer = BanchanStore(database: database, environment: Self.environment(now: { Date(timeIntervalSince1970: 1_800_000_000) },
                                                                                         events: RecordingEventBus()))
            _ = try await writer.addDish(Self.dish("TEST2"), stock: 3, at: Date(timeIntervalSince1970: 1_800_000_000))
            let reader = BanchanStore(database: database, environment: Self.environment(now: Unexpected.clock, events: Unexpected.events))
            let row = try await reader.dishRow(hash: "TEST2")
            XCTAssertEqual(row?.stock, 3)
            let all = try await reader.allDishRows()
            XCTAssertEqual(all.map(\.hash), ["TEST2"])
        }
    }
}
