package import Fluent
import Platform
import SQLKit
import Vapor

/// The one owner of the shop's tables: `banchan_dishes` here, the carts (`BanchanStore+Cart.swift`)
/// and the orders with the stock they take and give back (`BanchanStore+Orders.swift`). Columns are
/// named once (`DishColumn`, `CartColumn`, `OrderColumn`, `ItemColumn`; the models' keys are these
/// too), dishes are read without models (`DishRow`), and every dish the seed or an administrator
/// writes and every change of stock is announced, so every instance's listings follow.
package struct BanchanStore {
    package let database: any Database
    let environment: BanchanEnvironment

    package init(database: any Database, environment: BanchanEnvironment) {
        self.database = database
        self.environment = environment
    }

    /// The columns of `banchan_dishes`, each named once — in `DishRow`'s coding keys, or here for a
    /// column no row reads — and used by the model's keys and every statement.
    package enum DishColumn {
        package static let id = DishRow.CodingKeys.id.rawValue
        package static let hash = DishRow.CodingKeys.hash.rawValue
        package static let section = DishRow.CodingKeys.section.rawValue
        package static let position = DishRow.CodingKeys.position.rawValue
        package static let title = DishRow.CodingKeys.title.rawValue
        package static let description = DishRow.CodingKeys.summary.rawValue
        package static let salePrice = DishRow.CodingKeys.salePrice.rawValue
        package static let originalPrice = DishRow.CodingKeys.originalPrice.rawValue
        package static let badges = DishRow.CodingKeys.badges.rawValue
        package static let deliveryTypes = DishRow.CodingKeys.deliveryTypes.rawValue
        package static let pointRate = DishRow.CodingKeys.pointRate.rawValue
        package static let deliveryInfo = DishRow.CodingKeys.deliveryInfo.rawValue
        package static let minQuantity = DishRow.CodingKeys.minQuantity.rawValue
        package static let maxQuantity = DishRow.CodingKeys.maxQuantity.rawValue
        package static let emoji = DishRow.CodingKeys.emoji.rawValue
        package static let color = DishRow.CodingKeys.color.rawValue
        package static let weight = DishRow.CodingKeys.weight.rawValue
        package static let ingredients = DishRow.CodingKeys.ingredients.rawValue
        package static let storage = DishRow.CodingKeys.storageInfo.rawValue
        package static let detailSections = DishRow.CodingKeys.detailSections.rawValue
        package static let thumbCount = DishRow.CodingKeys.thumbCount.rawValue
        package static let stock = DishRow.CodingKeys.stock.rawValue
        package static let editedByAdmin = DishRow.CodingKeys.editedByAdmin.rawValue
        package static let retiredAt = DishRow.CodingKeys.retiredAt.rawValue
        package static let createdAt = "created_at"
        package static let updatedAt = "updated_at"
    }

    /// A row of `banchan_dishes` as the reads decode it (`BanchanStoreTests` checks it against `DishRecord`).
    package struct DishRow: Decodable, StoredDish, Sendable, Equatable {
        package let id: UUID
        package let hash: String
        package let section: String
        package let position: Int
        package let title: String
        package let summary: String
        package let salePrice: Int
        package let originalPrice: Int?
        package let badges: [String]
        package let deliveryTypes: [String]
        package let pointRate: Int
        package let deliveryInfo: String
        package let minQuantity: Int
        package let maxQuantity: Int
        package let emoji: String
        package let color: String
        package let weight: String
        package let ingredients: String
        package let storageInfo: String
        package let detailSections: [String]
        package let thumbCount: Int
        package let stock: Int
        package let editedByAdmin: Bool
        package let retiredAt: Date?

        enum CodingKeys: String, CodingKey {
            case id, hash, section, position, title, badges, emoji, color, weight, ingredients, stock
            case summary = "description", storageInfo = "storage"
            case salePrice = "sale_price", originalPrice = "original_price", deliveryTypes = "delivery_types"
            case pointRate = "point_rate", deliveryInfo = "delivery_info", minQuantity = "min_quantity"
            case maxQuantity = "max_quantity", detailSections = "detail_sections", thumbCount = "thumb_count"
            case editedByAdmin = "edited_by_admin", retiredAt = "retired_at"
        }

        /// The row a saved model stands for.
        package init(_ record: DishRecord) throws {
            id = try record.requireID()
            hash = record.hash
            section = record.section
            position = record.position
            title = record.title
            summary = record.summary
            salePrice = record.salePrice
            originalPrice = record.originalPrice
            badges = record.badges
            deliveryTypes = record.deliveryTypes
            pointRate = record.pointRate
            deliveryInfo = record.deliveryInfo
            minQuantity = record.minQuantity
            maxQuantity = record.maxQuantity
            emoji = record.emoji
            color = record.color
            weight = record.weight
            ingredients = record.ingredients
            storageInfo = record.storageInfo
            detailSections = record.detailSections
            thumbCount = record.thumbCount
            stock = record.stock
            editedByAdmin = record.editedByAdmin
            retiredAt = record.retiredAt
        }
    }

    // MARK: Dish reads

    var sql: any SQLDatabase { database.sql }

    private var dishColumns: [any SQLExpression] {
        [DishColumn.id, DishColumn.hash, DishColumn.section, DishColumn.position, DishColumn.title, DishColumn.description,
         DishColumn.salePrice, DishColumn.originalPrice, DishColumn.badges, DishColumn.deliveryTypes, DishColumn.pointRate,
         DishColumn.deliveryInfo, DishColumn.minQuantity, DishColumn.maxQuantity, DishColumn.emoji, DishColumn.color,
         DishColumn.weight, DishColumn.ingredients, DishColumn.storage, DishColumn.detailSections, DishColumn.thumbCount,
         DishColumn.stock, DishColumn.editedByAdmin, DishColumn.retiredAt].map { SQLIdentifier($0) }
    }

    /// Every dish, retired ones too, in list order (section position, then id).
    func allDishRows() async throws -> [DishRow] {
        try await sql.select().columns(dishColumns).from(DishRecord.schema)
            .orderBy(DishColumn.position).orderBy(DishColumn.id)
            .all(decoding: DishRow.self)
    }

    /// The dishes on sale, in list order: what the listings in memory hold.
    func dishRowsOnSale() async throws -> [DishRow] {
        try await sql.select().columns(dishColumns).from(DishRecord.schema)
            .where(SQLIdentifier(DishColumn.retiredAt), .is, SQLLiteral.null)
            .orderBy(DishColumn.position).orderBy(DishColumn.id)
            .all(decoding: DishRow.self)
    }

    /// A dish by its hash, on sale or retired, or nil.
    func dishRow(hash: String) async throws -> DishRow? {
        try await sql.select().columns(dishColumns).from(DishRecord.schema)
            .where(SQLIdentifier(DishColumn.hash), .equal, SQLBind(hash))
            .first(decoding: DishRow.self)
    }

    /// A dish on sale by its hash, or nil (unknown or retired).
    func dishRowOnSale(hash: String) async throws -> DishRow? {
        try await sql.select().columns(dishColumns).from(DishRecord.schema)
            .where(SQLIdentifier(DishColumn.hash), .equal, SQLBind(hash))
            .where(SQLIdentifier(DishColumn.retiredAt), .is, SQLLiteral.null)
            .first(decoding: DishRow.self)
    }

    // MARK: An administrator's dish writes (each announced)

    /// What a dish write leaves in the audit log, made from the row it wrote: recorded in the
    /// write's transaction, so a change is never kept without its entry nor an entry without it.
    typealias DishAudit = @Sendable (DishRow) -> AuditEntry

    /// Adds a dish at the end of its section, or brings a retired one back with these fields and
    /// stock (its hash stays with its orders). 409 `dish_exists` for a dish on sale.
    func addDish(_ dish: Dish, stock: Int, audit: DishAudit? = nil) async throws -> DishRow {
        let row = try await database.writeTransaction { transaction in
            let record: DishRecord
            if let existing = try await DishRecord.query(on: transaction).filter(\.$hash == dish.hash).first() {
                guard existing.retiredAt != nil else { throw AppError.conflict("dish_exists") }
                record = existing
                record.apply(dish)
                record.stock = stock
                record.retiredAt = nil
            } else {
                let last = try await DishRecord.query(on: transaction).filter(\.$section == dish.section.rawValue).sort(\.$position, .descending).first()
                record = DishRecord(dish, position: (last?.position ?? -1) + 1, stock: stock)
            }
            record.editedByAdmin = true
            do {
                try await record.save(on: transaction)
            } catch let error as any DatabaseError where error.isConstraintFailure {
                throw AppError.conflict("dish_exists")
            }
            return try await Self.recorded(record, audit, on: transaction)
        }
        return await announce(row)
    }

    /// Changes a dish on sale (404 `dish_not_found` otherwise), and its stock when `stock` is
    /// given. `change` gets the dish and its stock now; when it throws (the caller's rules),
    /// nothing is written.
    func changeDish(hash: String, stock: Int?, audit: DishAudit? = nil, _ change: (inout Dish, _ stockNow: Int) throws -> Void) async throws -> DishRow {
        let record = try await Self.recordOnSale(hash: hash, on: database)
        var dish = record.dish
        try change(&dish, record.stock)
        record.apply(dish)
        if let stock { record.stock = stock }
        record.editedByAdmin = true
        let row = try await database.writeTransaction { transaction in
            try await record.save(on: transaction)
            return try await Self.recorded(record, audit, on: transaction)
        }
        return await announce(row)
    }

    /// Takes a dish on sale off sale (404 `dish_not_found` otherwise); its orders keep it.
    func retireDish(hash: String, at now: Date, audit: DishAudit? = nil) async throws {
        let row = try await database.writeTransaction { transaction in
            let record = try await Self.recordOnSale(hash: hash, on: transaction)
            record.retiredAt = now
            record.editedByAdmin = true
            try await record.save(on: transaction)
            return try await Self.recorded(record, audit, on: transaction)
        }
        _ = await announce(row)
    }

    private static func recordOnSale(hash: String, on database: any Database) async throws -> DishRecord {
        guard let record = try await DishRecord.query(on: database).filter(\.$hash == hash).filter(\.$retiredAt == nil).first() else {
            throw AppError.notFound("dish_not_found")
        }
        return record
    }

    /// The row just written, with its audit entry written beside it.
    private static func recorded(_ record: DishRecord, _ audit: DishAudit?, on transaction: any Database) async throws -> DishRow {
        let row = try DishRow(record)
        if let audit { try await AuditLog(database: transaction).record(audit(row)) }
        return row
    }

    /// Once the write committed: this instance's listing changes before the answer goes out (the
    /// administrator sees it at once); the other instances read the dish again when they hear of it.
    private func announce(_ row: DishRow) async -> DishRow {
        environment.listings.update(row, hash: row.hash)
        await BanchanListings.announceChange(of: row.hash, on: environment.events)
        return row
    }

    // MARK: Seeding

    /// Brings the dishes in line with the shipped catalog file: new dishes come with the file's
    /// stock; dishes no administrator touched follow the file's description and place but keep
    /// their stock (orders have moved it); an administrator's edits are kept. Each dish written
    /// is announced (every instance's listings read it again). Returns the rows after the seed.
    package func seed(_ entries: [BanchanCatalogFile.Entry]) async throws -> [DishRow] {
        let rows = try await allDishRows()
        let byHash = Dictionary(rows.map { ($0.hash, $0) }, uniquingKeysWith: { first, _ in first })
        // Each dish's place in its section is its place in the file.
        var counters: [DishSection: Int] = [:]
        let positioned = entries.map { entry -> (entry: BanchanCatalogFile.Entry, position: Int) in
            let position = counters[entry.dish.section, default: 0]
            counters[entry.dish.section] = position + 1
            return (entry, position)
        }
        let written = try await database.writeTransaction { transaction in
            var written: [String] = []
            for (entry, position) in positioned {
                if let row = byHash[entry.dish.hash] {
                    guard !row.editedByAdmin, row.dish != entry.dish || row.position != position,
                          let record = try await DishRecord.find(row.id, on: transaction) else { continue }
                    record.apply(entry.dish)
                    record.position = position
                    try await record.save(on: transaction)
                } else {
                    try await DishRecord(entry.dish, position: position, stock: entry.stock).create(on: transaction)
                }
                written.append(entry.dish.hash)
            }
            return written
        }
        guard !written.isEmpty else { return rows }
        for hash in written { await BanchanListings.announceChange(of: hash, on: environment.events) }
        return try await allDishRows()
    }
}

/// The stored fields that make a `Dish`: one conversion for the model (writes) and the row (reads).
package protocol StoredDish {
    var hash: String { get }
    var section: String { get }
    var title: String { get }
    var summary: String { get }
    var salePrice: Int { get }
    var originalPrice: Int? { get }
    var badges: [String] { get }
    var deliveryTypes: [String] { get }
    var pointRate: Int { get }
    var deliveryInfo: String { get }
    var minQuantity: Int { get }
    var maxQuantity: Int { get }
    var emoji: String { get }
    var color: String { get }
    var weight: String { get }
    var ingredients: String { get }
    var storageInfo: String { get }
    var detailSections: [String] { get }
    var thumbCount: Int { get }
}

extension StoredDish {
    /// The domain value; unknown stored enum strings (never written by us) are dropped.
    package var dish: Dish {
        Dish(
            hash: hash, section: DishSection(rawValue: section) ?? .side, title: title, description: summary,
            salePrice: salePrice, originalPrice: originalPrice, badges: badges.compactMap(DishBadge.init(rawValue:)),
            deliveryTypes: deliveryTypes.compactMap(DeliveryType.init(rawValue:)), pointRate: pointRate,
            deliveryInfo: deliveryInfo, minQuantity: minQuantity, maxQuantity: maxQuantity, emoji: emoji, color: color,
            weight: weight, ingredients: ingredients, storage: storageInfo, detailSections: detailSections, thumbCount: thumbCount
        )
    }
}

extension Application {
    /// The shop's store on the application's database.
    var banchanStore: BanchanStore { BanchanStore(database: db, environment: banchanEnvironment) }
}
