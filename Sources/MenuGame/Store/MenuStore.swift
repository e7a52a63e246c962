package import Fluent
package import Platform
import SQLKit
package import Vapor

/// The one owner of `menus`, the catalog games draw from: the only code that reads or writes
/// it, names its columns (`Column`; the model's keys are these too) and announces each change.
///
/// The catalog in memory (`MenuCatalog`, what every game and page reads) follows the store's
/// announcements on every instance: an administrator's change on one instance reaches games on
/// all of them. Reads that need no model (the catalog, the seeder's comparison, one menu) decode
/// plain rows (`Row`); the writes keep `MenuRecord`, inside the store.
package struct MenuStore {
    package let database: any Database
    /// The catalog it keeps right, the bus and the log (`MenuGameEnvironment`).
    let environment: MenuGameEnvironment

    package init(database: any Database, environment: MenuGameEnvironment) {
        self.database = database
        self.environment = environment
    }

    /// The store with the environment `MenuGameFeature.configure` made.
    package init(database: any Database, application: Application) {
        self.init(database: database, environment: application.menuGameEnvironment)
    }

    /// Where changes are announced: the catalog in memory follows it.
    package static let topic = "menu_game.menus"

    /// The columns of `menus`, each named once — in `Row`'s coding keys, or here for a column no row
    /// reads — and used by the model's keys and every statement.
    package enum Column {
        package static let id = Row.CodingKeys.id.rawValue
        static let slug = Row.CodingKeys.slug.rawValue
        static let nameKo = Row.CodingKeys.nameKo.rawValue
        static let nameEn = Row.CodingKeys.nameEn.rawValue
        static let nameJa = Row.CodingKeys.nameJa.rawValue
        package static let emoji = Row.CodingKeys.emoji.rawValue
        static let nations = Row.CodingKeys.nations.rawValue
        static let flavors = Row.CodingKeys.flavors.rawValue
        static let rice = Row.CodingKeys.rice.rawValue
        static let noodle = Row.CodingKeys.noodle.rawValue
        package static let soup = Row.CodingKeys.soup.rawValue
        package static let healthy = Row.CodingKeys.healthy.rawValue
        static let instant = Row.CodingKeys.instant.rawValue
        static let alcohol = Row.CodingKeys.alcohol.rawValue
        static let expense = Row.CodingKeys.expense.rawValue
        package static let imageURL = Row.CodingKeys.imageURL.rawValue
        package static let editedByAdmin = Row.CodingKeys.editedByAdmin.rawValue
        package static let retiredAt = Row.CodingKeys.retiredAt.rawValue
        package static let createdAt = Row.CodingKeys.createdAt.rawValue
        package static let updatedAt = "updated_at"
    }

    /// A row of `menus` as the reads decode it (`MenuStoreTests` checks it against `MenuRecord`).
    package struct Row: Codable, Sendable, Equatable {
        package let id: UUID
        let slug: String
        let nameKo: String
        let nameEn: String
        let nameJa: String
        let emoji: String
        let nations: [String]
        let flavors: [String]
        let rice: Bool
        let noodle: Bool
        let soup: Bool
        let healthy: Bool
        let instant: Bool
        let alcohol: Bool
        let expense: String?
        package let imageURL: String?
        package let editedByAdmin: Bool
        package let retiredAt: Date?
        package let createdAt: Date?

        enum CodingKeys: String, TableColumn {
            case id, slug, emoji, nations, flavors, rice, noodle, soup, healthy, instant, alcohol, expense
            case nameKo = "name_ko", nameEn = "name_en", nameJa = "name_ja", imageURL = "image_url"
            case editedByAdmin = "edited_by_admin", retiredAt = "retired_at", createdAt = "created_at"
        }

        /// The row that stores `menu` (the sets sorted, so a row written twice reads the same).
        init(id: UUID, _ menu: Menu, imageURL: String?, editedByAdmin: Bool, retiredAt: Date?, createdAt: Date?) {
            self.id = id
            slug = menu.id
            nameKo = menu.name.ko
            nameEn = menu.name.en
            nameJa = menu.name.ja
            emoji = menu.emoji
            nations = menu.nations.map(\.rawValue).sorted()
            flavors = menu.flavors.map(\.rawValue).sorted()
            rice = menu.rice
            noodle = menu.noodle
            soup = menu.soup
            healthy = menu.healthy
            instant = menu.instant
            alcohol = menu.alcohol
            expense = menu.expense?.rawValue
            self.imageURL = imageURL
            self.editedByAdmin = editedByAdmin
            self.retiredAt = retiredAt
            self.createdAt = createdAt
        }

        /// This row holding `menu` instead, the rest kept.
        func holding(_ menu: Menu, imageURL: String?? = .none, editedByAdmin: Bool? = nil, retiredAt: Date?? = .none) -> Row {
            Row(id: id, menu, imageURL: imageURL ?? self.imageURL, editedByAdmin: editedByAdmin ?? self.editedByAdmin,
                retiredAt: retiredAt ?? self.retiredAt, createdAt: createdAt)
        }

        /// The domain value; unknown stored enum strings (never written by us) are dropped.
        package var menu: Menu {
            Menu(
                id: slug, name: .init(ko: nameKo, en: nameEn, ja: nameJa), emoji: emoji,
                nations: Set(nations.compactMap(Nation.init(rawValue:))), flavors: Set(flavors.compactMap(Flavor.init(rawValue:))),
                rice: rice, noodle: noodle, soup: soup, healthy: healthy, instant: instant, alcohol: alcohol,
                expense: expense.flatMap(Expense.init(rawValue:))
            )
        }
    }

    // MARK: Reads

    private var sql: any SQLDatabase { database.sql }

    private var rowColumns: [any SQLExpression] {
        [Column.id, Column.slug, Column.nameKo, Column.nameEn, Column.nameJa, Column.emoji, Column.nations, Column.flavors,
         Column.rice, Column.noodle, Column.soup, Column.healthy, Column.instant, Column.alcohol, Column.expense,
         Column.imageURL, Column.editedByAdmin, Column.retiredAt, Column.createdAt].map { SQLIdentifier($0) }
    }

    /// Every menu, retired ones too, in catalog order (the order the file seeded them in, then slug).
    func allRows() async throws -> [Row] {
        try await sql.select().columns(rowColumns).from(MenuRecord.schema)
            .orderBy(Column.createdAt).orderBy(Column.slug)
            .all(decoding: Row.self)
    }

    /// The menus on offer, in catalog order: what the catalog in memory holds.
    func activeRows() async throws -> [Row] {
        try await sql.select().columns(rowColumns).from(MenuRecord.schema)
            .where(SQLIdentifier(Column.retiredAt), .is, SQLLiteral.null)
            .orderBy(Column.createdAt).orderBy(Column.slug)
            .all(decoding: Row.self)
    }

    /// A menu on offer by its slug, or nil (unknown or retired).
    func activeRow(slug: String) async throws -> Row? {
        try await sql.select().columns(rowColumns).from(MenuRecord.schema)
            .where(SQLIdentifier(Column.slug), .equal, SQLBind(slug))
            .where(SQLIdentifier(Column.retiredAt), .is, SQLLiteral.null)
            .first(decoding: Row.self)
    }

    /// The menus on offer, newest first, a page at a time (`GET /api/v1/menu-game/menus`).
    func activePage(_ page: CursorPageRequest) async throws -> (rows: [Row], nextCursor: String?) {
        let rows = try await sql.select().columns(rowColumns).from(MenuRecord.schema)
            .where(SQLIdentifier(Column.retiredAt), .is, SQLLiteral.null)
            .newestFirst(createdAt: SQLColumn(Column.createdAt), id: SQLColumn(Column.id), page)
            .all(decoding: Row.self)
        let paged = page.page(of: rows.map(ListedRow.init))
        return (paged.items.map(\.row), paged.nextCursor)
    }

    /// A row in a newest-first page (every stored menu has its `created_at`).
    private struct ListedRow: NewestFirstRow {
        let row: Row
        var id: UUID { row.id }
        var createdAt: Date { row.createdAt ?? Date(timeIntervalSince1970: 0) }
    }

    // MARK: Writes (each announced)

    /// Writes every column of `row` over the stored menu with its id.
    private static func write(_ row: Row, on database: any Database, at now: Date) async throws {
        try await database.sql.update(row, in: MenuRecord.schema, id: row.id, stamping: [Column.updatedAt: now.wholeMicroseconds])
    }

    /// Writes a new menu, created at `now`.
    private static func insert(_ row: Row, on database: any Database, at now: Date) async throws {
        try await database.sql.insert(row, into: MenuRecord.schema, stamping: [Column.updatedAt: now.wholeMicroseconds])
    }

    /// Brings the table in line with the shipped catalog file: new menus are added, menus an
    /// administrator never touched follow the file, an administrator's edits and retirements are
    /// kept. Announced when anything changed. Returns the rows after the seed (read again only
    /// when it wrote), which the catalog of the starting instance is made from.
    package func seed(_ menus: [Menu]) async throws -> [Row] {
        let rows = try await allRows()
        let existing = Dictionary(rows.map { ($0.slug, $0) }, uniquingKeysWith: { first, _ in first })
        let now = environment.now().wholeMicroseconds
        let written = try await database.writeTransaction { transaction in
            var written = 0
            for menu in menus {
                if let row = existing[menu.id] {
                    guard !row.editedByAdmin, row.menu != menu else { continue }
                    try await Self.write(row.holding(menu), on: transaction, at: now)
                } else {
                    // A microsecond apart, in the file's order: catalog order is creation order.
                    let createdAt = now.addingTimeInterval(Double(written) / 1_000_000).wholeMicroseconds
                    try await Self.insert(Row(id: UUID(), menu, imageURL: nil, editedByAdmin: false, retiredAt: nil, createdAt: createdAt),
                                          on: transaction, at: createdAt)
                }
                written += 1
            }
            return written
        }
        guard written > 0 else { return rows }
        await announce()
        return try await allRows()
    }

    /// What a menu write leaves in the audit log, made from the menu it wrote: recorded in the
    /// write's transaction, so a change is never kept without its entry nor an entry without it.
    package typealias MenuAudit = @Sendable (Menu) -> AuditEntry

    /// Adds a menu, or brings a retired one back with these fields (its id stays with past
    /// results). 409 `menu_exists` for a menu on offer.
    package func add(_ menu: Menu, imageURL: String?, audit: MenuAudit? = nil) async throws {
        let now = environment.now().wholeMicroseconds
        let image = imageURL.flatMap { $0.isEmpty ? nil : $0 }
        try await database.writeTransaction { transaction in
            let existing = try await transaction.sql.select().columns(rowColumns).from(MenuRecord.schema)
                .where(SQLIdentifier(Column.slug), .equal, SQLBind(menu.id)).first(decoding: Row.self)
            do {
                if let existing {
                    guard existing.retiredAt != nil else { throw AppError.conflict("menu_exists") }
                    try await Self.write(existing.holding(menu, imageURL: .some(image), editedByAdmin: true, retiredAt: .some(nil)),
                                         on: transaction, at: now)
                } else {
                    try await Self.insert(Row(id: UUID(), menu, imageURL: image, editedByAdmin: true, retiredAt: nil, createdAt: now),
                                          on: transaction, at: now)
                }
            } catch let error as any DatabaseError where error.isConstraintFailure {
                throw AppError.conflict("menu_exists")
            }
            if let audit { try await AuditLog(database: transaction).record(audit(menu)) }
        }
        await announce()
    }

    /// Changes a menu on offer (404 `menu_not_found` for an unknown or retired one); an empty
    /// `imageURL` goes back to the generated card, nil keeps the one it has. `change` may throw
    /// (the caller's validation): nothing is written then.
    package func change(slug: String, imageURL: String?, audit: MenuAudit? = nil, _ change: (inout Menu) throws -> Void) async throws -> Menu {
        let row = try await activeMenu(slug: slug)
        var menu = row.menu
        try change(&menu)
        let changed = menu
        let written = row.holding(changed, imageURL: imageURL.map { $0.isEmpty ? nil : $0 }, editedByAdmin: true)
        let now = environment.now()
        try await database.writeTransaction { transaction in
            try await Self.write(written, on: transaction, at: now)
            if let audit { try await AuditLog(database: transaction).record(audit(changed)) }
        }
        await announce()
        return menu
    }

    /// Retires a menu on offer (404 `menu_not_found` otherwise): it leaves games and lists, past
    /// results that named it stay intact.
    func retire(slug: String, at now: Date, audit: MenuAudit? = nil) async throws {
        let row = try await activeMenu(slug: slug)
        let menu = row.menu
        try await database.writeTransaction { transaction in
            try await Self.write(row.holding(menu, editedByAdmin: true, retiredAt: .some(now)), on: transaction, at: now)
            if let audit { try await AuditLog(database: transaction).record(audit(menu)) }
        }
        await announce()
    }

    private func activeMenu(slug: String) async throws -> Row {
        guard let row = try await activeRow(slug: slug) else { throw AppError.notFound("menu_not_found") }
        return row
    }

    /// This instance's catalog reads the table again at once (the writer's next request sees its
    /// change), then every instance is told; their followers reload too. The write has
    /// committed: a failed re-read is logged, and the follower's reload tries again.
    private func announce() async {
        do {
            try await environment.catalog.reload(from: self)
        } catch {
            environment.logger.warning("the menu catalog could not re-read the menus after a write: \(error)")
        }
        await environment.events.publish("changed", to: Self.topic)
    }

    /// The catalog follows the other instances' announcements (and this one's, read again).
    package static func follow(_ app: Application) {
        app.follow(topic) { app, _ in
            do {
                try await app.menuCatalog.reload(from: MenuStore(database: app.db, application: app))
            } catch {
                app.logger.warning("the menu catalog could not follow a change of the menus: \(error)")
            }
        }
    }
}

extension Application {
    /// The store of `menus` on the application's database.
    var menuStore: MenuStore { MenuStore(database: db, application: self) }
}
