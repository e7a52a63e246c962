@testable import Banchan
import Fluent
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// The dish statements of `BanchanStore` (SQLite here, PostgreSQL in CI's second pass): rows read
/// against the model, the seed's rules, and a seed's changes announced to the listings.
final class BanchanStoreTests: XCTestCase {
    private static func shippedEntries(_ app: Application) throws -> [BanchanCatalogFile.Entry] {
        try BanchanCatalogFile.load(from: app.directory.resourcesDirectory)
    }

    func testTheRowsSayWhatTheModelSays() async throws {
        try await withTestApp { app in
            let store = app.banchanStore
            // Every optional column filled on one dish: a struck-through price and a retirement.
            let stored = try await DishRecord.query(on: app.db).filter(\.$hash == Fixtures.dakgalbi).first()
            let dakgalbi = try XCTUnwrap(stored)
            dakgalbi.originalPrice = dakgalbi.salePrice + 1000
            dakgalbi.retiredAt = Date(timeIntervalSince1970: 1_800_000_000.5)
            try await dakgalbi.save(on: app.db)

            let records = try await DishRecord.query(on: app.db).all()
            let rows = try await store.allDishRows()
            XCTAssertGreaterThanOrEqual(rows.count, 36, "the shipped catalog")
            XCTAssertEqual(rows.count, records.count)
            let models = Dictionary(uniqueKeysWithValues: try records.map { ($0.hash, try BanchanStore.DishRow($0)) })
            for row in rows {
                XCTAssertEqual(row, models[row.hash], row.hash)
                XCTAssertEqual(row.dish, models[row.hash]?.dish)
            }
            let read = try await store.dishRow(hash: Fixtures.dakgalbi)
            let row = try XCTUnwrap(read)
            XCTAssertEqual(row.retiredAt, Date(timeIntervalSince1970: 1_800_000_000.5))
            XCTAssertEqual(row.dish.originalPrice, dakgalbi.salePrice + 1000)
            XCTAssertEqual(row.dish, dakgalbi.dish)
            let unknown = try await store.dishRow(hash: "NOPE1")
            XCTAssertNil(unknown)

            // On sale: the retired dish left out, list order kept.
            let onSale = try await store.dishRowsOnSale()
            XCTAssertEqual(onSale.map(\.hash), rows.map(\.hash).filter { $0 != Fixtures.dakgalbi })
            XCTAssertEqual(onSale.map(\.position), onSale.map(\.position).sorted())
        }
    }

    func testTheSeedAddsFollowsTheFileKeepsStockAndAnAdministratorsWork() async throws {
        try await withTestApp { app in
            let store = app.banchanStore
            let shipped = try Self.shippedEntries(app)
            let before = try await store.allDishRows()
            let unchanged = try await store.seed(shipped)
            XCTAssertEqual(unchanged, before, "a catalog already in the table writes nothing")

            // Orders moved the bulgogi's stock; an administrator edited the dakgalbi.
            let bulgogiStored = try await DishRecord.query(on: app.db).filter(\.$hash == Fixtures.bulgogi).first()
            let bulgogi = try XCTUnwrap(bulgogiStored)
            bulgogi.stock = 3
            try await bulgogi.save(on: app.db)
            let dakgalbiStored = try await DishRecord.query(on: app.db).filter(\.$hash == Fixtures.dakgalbi).first()
            let dakgalbi = try XCTUnwrap(dakgalbiStored)
            dakgalbi.title = "관리자 닭갈비"
            dakgalbi.editedByAdmin = true
            try await dakgalbi.save(on: app.db)

            let announcements = app.events.subscribe(to: BanchanListings.topic)
            var heard = announcements.makeAsyncIterator()
            // The file renames both; the administrator's edit must win on the dakgalbi.
            let file = shipped.map { entry in
                guard entry.dish.hash == Fixtures.bulgogi || entry.dish.hash == Fixtures.dakgalbi else { return entry }
                var dish = entry.dish
                dish.title = "파일의 새 이름"
                return BanchanCatalogFile.Entry(dish: dish, stock: entry.stock)
            }
            let after = try await store.seed(file)
            let rows = Dictionary(uniqueKeysWithValues: after.map { ($0.hash, $0) })
            XCTAssertEqual(rows[Fixtures.bulgogi]?.dish.title, "파일의 새 이름", "the file's description followed")
            XCTAssertEqual(rows[Fixtures.bulgogi]?.stock, 3, "the stock orders moved is kept")
            XCTAssertEqual(rows[Fixtures.dakgalbi]?.dish.title, "관리자 닭갈비", "an administrator's edit is kept")
            let message = await heard.next()
            XCTAssertEqual(message.flatMap { try? JSONDecoder().decode(BanchanListings.Event.self, from: Data($0.utf8)) }?.changed, Fixtures.bulgogi,
                           "the dish it wrote is announced")
            try await waitUntil { app.banchanListings.listing(hash: Fixtures.bulgogi)?.dish.title == "파일의 새 이름" }
        }
    }

    func testAnAdministratorsWritesAreAnnouncedAndTheListingsFollow() async throws {
        try await withTestApp { app in
            let store = app.banchanStore
            let announcements = app.events.subscribe(to: BanchanListings.topic)
            var heard = announcements.makeAsyncIterator()
            func nextChanged() async -> String? {
                guard let message = await heard.next() else { return nil }
                return try? JSONDecoder().decode(BanchanListings.Event.self, from: Data(message.utf8)).changed
            }
            let dakgalbi = try XCTUnwrap(app.banchanListings.listing(hash: Fixtures.dakgalbi)).dish
            let lastBefore = try await store.dishRowsOnSale().filter { $0.dish.section == dakgalbi.section }.map(\.position).max()

            // A new dish goes at the end of its section, on sale at once here.
            var newDish = dakgalbi
            newDish.hash = "NEW01"
            newDish.title = "새 반찬"
            let added = try await store.addDish(newDish, stock: 7, at: Date())
            let firstHeard = await nextChanged()
            XCTAssertEqual(firstHeard, "NEW01")
            XCTAssertEqual(added.position, (lastBefore ?? -1) + 1)
            XCTAssertTrue(added.editedByAdmin)
            XCTAssertEqual(app.banchanListings.listing(hash: "NEW01")?.stock, 7)

            // A change with its stock, and one that keeps the stock it has.
            let changed = try await store.changeDish(hash: "NEW01", stock: 3, at: Date()) { dish, stockNow in
                XCTAssertEqual(stockNow, 7)
                dish.title = "바뀐 반찬"
            }
            _ = await nextChanged()
            XCTAssertEqual(changed.dish.title, "바뀐 반찬")
            XCTAssertEqual(app.banchanListings.listing(hash: "NEW01")?.stock, 3)
            let kept = try await store.changeDish(hash: "NEW01", stock: nil, at: Date()) { dish, _ in dish.emoji = "🥬" }
            _ = await nextChanged()
            XCTAssertEqual(kept.stock, 3)
            let read = try await store.dishRow(hash: "NEW01")
            XCTAssertEqual(read, kept, "what the write returned is what a read finds")

            // Retired: off the listings, not found on sale, still read by hash (its orders keep it).
            try await store.retireDish(hash: "NEW01", at: Date(timeIntervalSince1970: 1_800_000_000))
            _ = await nextChanged()
            XCTAssertNil(app.banchanListings.listing(hash: "NEW01"))
            let onSale = try await store.dishRowOnSale(hash: "NEW01")
            XCTAssertNil(onSale)
            let retired = try await store.dishRow(hash: "NEW01")
            XCTAssertEqual(retired?.retiredAt, Date(timeIntervalSince1970: 1_800_000_000))

            // Back again: the same row, with the new stock.
            let back = try await store.addDish(newDish, stock: 2, at: Date())
            _ = await nextChanged()
            XCTAssertEqual(back.id, added.id)
            XCTAssertNil(back.retiredAt)
            XCTAssertEqual(app.banchanListings.listing(hash: "NEW01")?.stock, 2)
        }
    }

    func testRefusedWritesChangeNothingAndAnnounceNothing() async throws {
        try await withTestApp { app in
            let store = app.banchanStore
            let before = try await store.allDishRows()
            let announcements = app.events.subscribe(to: BanchanListings.topic)
            let dakgalbi = try XCTUnwrap(app.banchanListings.listing(hash: Fixtures.dakgalbi)).dish

            await assertRefused("dish_exists") { _ = try await store.addDish(dakgalbi, stock: 1, at: Date()) }
            await assertRefused("dish_not_found") { _ = try await store.changeDish(hash: "NOPE1", stock: 1, at: Date()) { _, _ in } }
            await assertRefused("dish_not_found") { try await store.retireDish(hash: "NOPE1", at: Date()) }
            struct Refused: Error {}
            await assertRefused(nil, "the caller's rule") {
                _ = try await store.changeDish(hash: Fixtures.dakgalbi, stock: 0, at: Date()) { dish, _ in
                    dish.title = "거절될 이름"
                    throw Refused()
                }
            }
            // An operator's change whose audit entry cannot be written is not kept either: both
            // are one transaction.
            try await app.db.sql.raw("ALTER TABLE \(ident: AuditLog.table) RENAME TO audit_log_away").run()
            let service = BanchanService(application: app)
            var newDish = dakgalbi
            newDish.hash = "NEW02"
            await assertRefused(nil, "no audit log to write to") { _ = try await service.addDish(newDish, stock: 1, by: nil) }
            await assertRefused(nil, "no audit log to write to") {
                _ = try await service.changeDish(hash: Fixtures.dakgalbi, stock: 3, by: nil) { $0.title = "기록 없는 이름" }
            }
            await assertRefused(nil, "no audit log to write to") { try await service.retireDish(hash: Fixtures.dakgalbi, by: nil) }
            try await app.db.sql.raw("ALTER TABLE audit_log_away RENAME TO \(ident: AuditLog.table)").run()
            XCTAssertEqual(app.banchanListings.listing(hash: Fixtures.dakgalbi)?.dish.title, dakgalbi.title, "the listing did not follow")

            let after = try await store.allDishRows()
            XCTAssertEqual(after, before)

            await app.events.publish("marker", to: BanchanListings.topic)
            var heard = announcements.makeAsyncIterator()
            let first = await heard.next()
            XCTAssertEqual(first, "marker", "nothing was announced before it")
        }
    }
}
