import Fluent
@testable import MenuGame
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Every statement of `MenuStore` (SQLite here, PostgreSQL in CI's second pass): rows read
/// against the model, the seeder's rules, each write announced and followed by the catalog.
final class MenuStoreTests: XCTestCase {
    private static func menu(_ id: String, ko: String = "테스트", flavors: Set<Flavor> = [.hot]) -> Menu {
        Menu(id: id, name: .init(ko: ko, en: "Test", ja: "テスト"), emoji: "🍲", nations: [.korean], flavors: flavors,
             rice: true, noodle: false, soup: true, healthy: false, instant: false, alcohol: false, expense: .cheap)
    }

    /// The row the migration's model reads, field by field.
    private static func row(_ record: MenuRecord) throws -> MenuStore.Row {
        let menu = Menu(id: record.slug, name: .init(ko: record.nameKo, en: record.nameEn, ja: record.nameJa), emoji: record.emoji,
                        nations: Set(record.nations.compactMap(Nation.init(rawValue:))), flavors: Set(record.flavors.compactMap(Flavor.init(rawValue:))),
                        rice: record.rice, noodle: record.noodle, soup: record.soup, healthy: record.healthy, instant: record.instant,
                        alcohol: record.alcohol, expense: record.expense.flatMap(Expense.init(rawValue:)))
        return MenuStore.Row(id: try record.requireID(), menu, imageURL: record.imageURL, editedByAdmin: record.editedByAdmin,
                             retiredAt: record.retiredAt, createdAt: record.createdAt)
    }

    func testTheRowsSayWhatTheModelSays() async throws {
        try await withTestApp { app in
            let store = app.menuStore
            let records = try await MenuRecord.query(on: app.db).all()
            let rows = try await store.allRows()
            XCTAssertGreaterThanOrEqual(rows.count, 150, "the shipped catalog")
            XCTAssertEqual(rows.count, records.count)
            let models = Dictionary(uniqueKeysWithValues: try records.map { ($0.slug, try Self.row($0)) })
            for row in rows { XCTAssertEqual(row, models[row.slug], row.slug) }

            // Every optional column filled, on a menu an administrator brought in with a picture.
            try await store.add(Self.menu("test-bowl"), imageURL: "https://example.com/bowl.png")
            try await store.retire(slug: "test-bowl", at: Date(timeIntervalSince1970: 1_800_000_000.25))
            let stored = try await MenuRecord.query(on: app.db).filter(\.$slug == "test-bowl").first()
            let record = try XCTUnwrap(stored)
            let read = try await store.allRows()
            let row = try XCTUnwrap(read.first { $0.slug == "test-bowl" })
            XCTAssertEqual(row, try Self.row(record), "the migration's model reads back what the whole row wrote")
            XCTAssertEqual(row.imageURL, "https://example.com/bowl.png")
            XCTAssertEqual(row.retiredAt, Date(timeIntervalSince1970: 1_800_000_000.25))
            XCTAssertEqual(row.menu, Self.menu("test-bowl"))
        }
    }

    func testReadsOfTheMenusOnOffer() async throws {
        try await withTestApp { app in
            let store = app.menuStore
            let all = try await store.allRows()
            try await store.retire(slug: "kimchi-jjigae", at: Date())
            let active = try await store.activeRows()
            XCTAssertEqual(active.map(\.slug), all.map(\.slug).filter { $0 != "kimchi-jjigae" }, "catalog order, retired ones left out")
            let retiredRow = try await store.activeRow(slug: "kimchi-jjigae")
            XCTAssertNil(retiredRow)
            let unknownRow = try await store.activeRow(slug: "no-such-menu")
            XCTAssertNil(unknownRow)
            let bibimbap = try await store.activeRow(slug: "bibimbap")
            XCTAssertEqual(bibimbap?.slug, "bibimbap")

            // Pages newest first, no row twice, none missing, the retired one absent.
            var seen: [String] = []
            var page = CursorPageRequest(limit: 40)
            while true {
                let (rows, next) = try await store.activePage(page)
                seen += rows.map(\.slug)
                guard let next else { break }
                page = CursorPageRequest(cursor: PageCursor(encoded: next), limit: 40)
            }
            XCTAssertEqual(Set(seen), Set(active.map(\.slug)))
            XCTAssertEqual(seen.count, active.count)
        }
    }

    func testTheSeedAddsFollowsTheFileAndKeepsAnAdministratorsWork() async throws {
        try await withTestApp { app in
            let store = app.menuStore
            let before = try await store.allRows()
            let shipped = before.map(\.menu)
            let again = try await store.seed(shipped)
            XCTAssertEqual(again, before, "a catalog already in the table writes nothing")
            let untouched = try await store.allRows()
            XCTAssertEqual(untouched, before)

            // The file changes one menu, adds one; an administrator changed another and retired a third.
            _ = try await store.change(slug: "bibimbap", imageURL: nil) { $0.name.ko = "관리자 비빔밥" }
            try await store.retire(slug: "ramen", at: Date())
            var file = shipped
            let kimchi = try XCTUnwrap(file.firstIndex { $0.id == "kimchi-jjigae" })
            file[kimchi].name.ko = "새 김치찌개"
            let bibimbap = try XCTUnwrap(file.firstIndex { $0.id == "bibimbap" })
            file[bibimbap].name.ko = "파일 비빔밥"
            file.append(Self.menu("new-from-file"))
            let seeded = try await store.seed(file)
            let stored = try await store.allRows()
            XCTAssertEqual(seeded, stored, "the rows after the seed")
            XCTAssertEqual(stored.count, before.count + 1, "the new menu added")
            let rows = Dictionary(uniqueKeysWithValues: stored.map { ($0.slug, $0) })
            XCTAssertEqual(rows["kimchi-jjigae"]?.menu.name.ko, "새 김치찌개")
            XCTAssertEqual(rows["bibimbap"]?.menu.name.ko, "관리자 비빔밥", "an administrator's edit is kept")
            XCTAssertNotNil(rows["ramen"]?.retiredAt, "a retirement is kept")
            XCTAssertEqual(rows["new-from-file"]?.editedByAdmin, false)
            XCTAssertEqual(app.menuCatalog.snapshot.menus.first { $0.id == "kimchi-jjigae" }?.name.ko, "새 김치찌개", "announced: the catalog read it")
            XCTAssertTrue(app.menuCatalog.snapshot.menus.contains { $0.id == "new-from-file" })
        }
    }

    /// Two reloads that overlap (a write's own and a follower's of an earlier announcement, as
    /// PostgreSQL's echo makes them): the one that started last is kept, however late the other
    /// finishes, so a write is never undone in memory by an older read.
    func testAnOlderReadFinishingLastIsDropped() async throws {
        try await withTestApp { app in
            let catalog = app.menuCatalog
            let older = catalog.takeRead()
            let olderRows = try await app.menuStore.activeRows()
            try await app.menuStore.add(Self.menu("late-bowl"), imageURL: "")
            let newer = catalog.takeRead()
            catalog.replace(with: try await app.menuStore.activeRows(), read: newer)
            XCTAssertTrue(catalog.snapshot.menus.contains { $0.id == "late-bowl" })
            catalog.replace(with: olderRows, read: older)
            XCTAssertTrue(catalog.snapshot.menus.contains { $0.id == "late-bowl" }, "the older read, finishing last, is dropped")
            catalog.replace(with: olderRows)
            XCTAssertFalse(catalog.snapshot.menus.contains { $0.id == "late-bowl" }, "rows given without a read number are the newest")
        }
    }

    func testEveryWriteIsAnnouncedAndTheCatalogFollows() async throws {
        try await withTestApp { app in
            let store = app.menuStore
            let announcements = app.events.subscribe(to: MenuStore.topic)
            var heard = announcements.makeAsyncIterator()

            try await store.add(Self.menu("test-bowl"), imageURL: "")
            _ = await heard.next()
            XCTAssertTrue(app.menuCatalog.snapshot.menus.contains { $0.id == "test-bowl" })
            XCTAssertNil(app.menuCatalog.snapshot.imageURLs["test-bowl"], "an empty picture is the generated card")

            let changed = try await store.change(slug: "test-bowl", imageURL: "/images/bowl.png") { $0.emoji = "🥣" }
            _ = await heard.next()
            XCTAssertEqual(changed.emoji, "🥣")
            XCTAssertEqual(app.menuCatalog.snapshot.menus.first { $0.id == "test-bowl" }?.emoji, "🥣")
            XCTAssertEqual(app.menuCatalog.snapshot.imageURLs["test-bowl"], "/images/bowl.png")

            try await store.retire(slug: "test-bowl", at: Date())
            _ = await heard.next()
            XCTAssertFalse(app.menuCatalog.snapshot.menus.contains { $0.id == "test-bowl" })

            // Back with new fields: the same row (its id stays with past results).
            let before = try await store.allRows().first { $0.slug == "test-bowl" }
            try await store.add(Self.menu("test-bowl", ko: "돌아온 그릇"), imageURL: nil)
            _ = await heard.next()
            let after = try await store.allRows().first { $0.slug == "test-bowl" }
            XCTAssertEqual(after?.id, before?.id)
            XCTAssertNil(after?.retiredAt)
            XCTAssertNil(after?.imageURL)
            XCTAssertEqual(app.menuCatalog.snapshot.menus.first { $0.id == "test-bowl" }?.name.ko, "돌아온 그릇")
        }
    }

    func testRefusedWritesChangeNothingAndAnnounceNothing() async throws {
        try await withTestApp { app in
            let store = app.menuStore
            let before = try await store.allRows()
            let announcements = app.events.subscribe(to: MenuStore.topic)

            await assertRefused("menu_exists") { try await store.add(Self.menu("bibimbap"), imageURL: nil) }
            await assertRefused("menu_not_found") { _ = try await store.change(slug: "no-such-menu", imageURL: nil) { _ in } }
            await assertRefused("menu_not_found") { try await store.retire(slug: "no-such-menu", at: Date()) }
            struct Refused: Error {}
            await assertRefused(nil, "the caller's rule") {
                _ = try await store.change(slug: "bibimbap", imageURL: "/x.png") { menu in
                    menu.emoji = "❌"
                    throw Refused()
                }
            }
            // A write whose audit entry cannot be written is not kept either: both are one transaction.
            try await app.db.sql.raw("ALTER TABLE \(ident: AuditLog.table) RENAME TO audit_log_away").run()
            let entry: MenuStore.MenuAudit = { menu in AuditEntry(actorID: nil, action: "test", subjectType: "menu", subjectID: menu.id, before: nil, after: nil, at: Date()) }
            await assertRefused(nil, "no audit log") { try await store.add(Self.menu("new-menu"), imageURL: nil, audit: entry) }
            await assertRefused(nil, "no audit log") { _ = try await store.change(slug: "bibimbap", imageURL: nil, audit: entry) { $0.emoji = "❌" } }
            await assertRefused(nil, "no audit log") { try await store.retire(slug: "bibimbap", at: Date(), audit: entry) }
            try await app.db.sql.raw("ALTER TABLE audit_log_away RENAME TO \(ident: AuditLog.table)").run()

            let after = try await store.allRows()
            XCTAssertEqual(after, before)

            // The next message on the topic is the one published now: nothing was announced before it.
            await app.events.publish("marker", to: MenuStore.topic)
            var heard = announcements.makeAsyncIterator()
            let first = await heard.next()
            XCTAssertEqual(first, "marker")
        }
    }

    func testAnotherInstancesChangeReachesThisCatalog() async throws {
        try await withTestApp { app in
            // Another instance wrote the row and announced it: this one's catalog follows.
            try await app.db.transaction { transaction in
                let stored = try await MenuRecord.query(on: transaction).filter(\.$slug == "bibimbap").first()
                let record = try XCTUnwrap(stored)
                record.nameKo = "다른 인스턴스의 비빔밥"
                try await record.save(on: transaction)
            }
            XCTAssertNotEqual(app.menuCatalog.snapshot.menus.first { $0.id == "bibimbap" }?.name.ko, "다른 인스턴스의 비빔밥")
            await app.events.publish("changed", to: MenuStore.topic)
            try await waitUntil { app.menuCatalog.snapshot.menus.first { $0.id == "bibimbap" }?.name.ko == "다른 인스턴스의 비빔밥" }
        }
    }
}
