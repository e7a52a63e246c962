import Fluent
import Foundation
import Platform
import SQLKit

/// The writes of `banchan_dishes`: an administrator's (each audited in its transaction) and the
/// catalog's seed. Whole rows in and out (`DishRow`, by its coding keys), stamped with the time of
/// the act; every write is announced once committed, so every instance's listings follow.
extension BanchanStore {
    /// What a dish write leaves in the audit log, made from the row it wrote: recorded in the
    /// write's transaction, so a change is never kept without its entry nor an entry without it.
    typealias DishAudit = @Sendable (DishRow) -> AuditEntry

    /// Adds a dish at the end of its section, or brings a retired one back with these fields and
    /// stock (its hash stays with its orders). 409 `dish_exists` for a dish on sale.
    func addDish(_ dish: Dish, stock: Int, at now: Date, audit: DishAudit? = nil) async throws -> DishRow {
        let row = try await database.writeTransaction { transaction in
            let store = BanchanStore(database: transaction, environment: environment)
            let row: DishRow
            do {
                if let existing = try await store.dishRow(hash: dish.hash) {
                    guard existing.retiredAt != nil else { throw AppError.conflict("dish_exists") }
                    row = DishRow(dish, id: existing.id, position: existing.position, stock: stock, editedByAdmin: true, retiredAt: nil,
                                  photoKey: existing.photoKey)
                    try await store.sql.update(row, in: DishRecord.schema, id: row.id, stamping: [DishColumn.updatedAt: now.wholeMicroseconds])
                } else {
                    row = DishRow(dish, id: UUID(), position: try await store.nextPosition(in: dish.section), stock: stock, editedByAdmin: true, retiredAt: nil)
                    let time = now.wholeMicroseconds
                    try await store.sql.insert(row, into: DishRecord.schema, stamping: [DishColumn.createdAt: time, DishColumn.updatedAt: time])
                }
            } catch let error as any DatabaseError where error.isConstraintFailure {
                throw AppError.conflict("dish_exists")
            }
            if let audit { try await AuditLog(database: transaction).record(audit(row)) }
            return row
        }
        return await announce(row)
    }

    /// Changes a dish on sale (404 `dish_not_found` otherwise), and its stock when `stock` is
    /// given. `change` gets the dish and its stock now; when it throws (the caller's rules),
    /// nothing is written.
    func changeDish(hash: String, stock: Int?, at now: Date, audit: DishAudit? = nil,
                    _ change: (inout Dish, _ stockNow: Int) throws -> Void) async throws -> DishRow {
        guard let before = try await dishRowOnSale(hash: hash) else { throw AppError.notFound("dish_not_found") }
        var dish = before.dish
        try change(&dish, before.stock)
        let row = DishRow(dish, id: before.id, position: before.position, stock: stock ?? before.stock, editedByAdmin: true, retiredAt: nil,
                          photoKey: before.photoKey)
        try await database.writeTransaction { transaction in
            // Without a new stock the table's stands: orders may have taken some since `before`.
            try await transaction.sql.update(row, in: DishRecord.schema, id: row.id, keeping: stock == nil ? [DishColumn.stock] : [],
                                             stamping: [DishColumn.updatedAt: now.wholeMicroseconds])
            if let audit { try await AuditLog(database: transaction).record(audit(row)) }
        }
        // The stock the listing shows is the table's, which orders may have moved.
        let written = stock == nil ? (try await dishRow(hash: hash) ?? row) : row
        return await announce(written)
    }

    /// Takes a dish on sale off sale (404 `dish_not_found` otherwise); its orders keep it.
    func retireDish(hash: String, at now: Date, audit: DishAudit? = nil) async throws {
        let row = try await database.writeTransaction { transaction in
            let store = BanchanStore(database: transaction, environment: environment)
            guard let before = try await store.dishRowOnSale(hash: hash) else { throw AppError.notFound("dish_not_found") }
            let time = now.wholeMicroseconds
            let row = DishRow(before.dish, id: before.id, position: before.position, stock: before.stock, editedByAdmin: true, retiredAt: time,
                              photoKey: before.photoKey)
            try await store.sql.update(row, in: DishRecord.schema, id: row.id, keeping: [DishColumn.stock], stamping: [DishColumn.updatedAt: time])
            if let audit { try await AuditLog(database: transaction).record(audit(row)) }
            return row
        }
        _ = await announce(row)
    }

    /// Puts the operator's photo on a dish on sale (404 otherwise), with its audit entry in the same
    /// transaction; the key it replaces, for the caller to remove once nothing shows it.
    func setDishPhoto(hash: String, key: String, at now: Date, audit: DishAudit? = nil) async throws -> (row: DishRow, replaced: String?) {
        let result: (row: DishRow, replaced: String?) = try await database.writeTransaction { transaction in
            let store = BanchanStore(database: transaction, environment: environment)
            guard let before = try await store.dishRowOnSale(hash: hash) else { throw AppError.notFound("dish_not_found") }
            let time = now.wholeMicroseconds
            try await store.sql.update(DishRecord.schema).set(SQLIdentifier(DishColumn.photoKey), to: SQLBind(key))
                .set(SQLIdentifier(DishColumn.updatedAt), to: SQLBind(time)).where(SQLIdentifier(DishColumn.id), .equal, SQLBind(before.id)).run()
            guard let row = try await store.dishRow(hash: hash) else { throw AppError.notFound("dish_not_found") }
            if let audit { try await AuditLog(database: transaction).record(audit(row)) }
            return (row, before.photoKey)
        }
        return (await announce(result.row), result.replaced)
    }

    /// Whether any dish shows the file `key` (before a replaced photo's file is removed).
    func dishPhotoInUse(_ key: String) async throws -> Bool {
        try await sql.select().column(SQLIdentifier(DishColumn.id)).from(DishRecord.schema)
            .where(SQLIdentifier(DishColumn.photoKey), .equal, SQLBind(key)).first() != nil
    }

    /// The place after the last dish of `section`.
    private func nextPosition(in section: DishSection) async throws -> Int {
        let last = try await sql.select().column(SQLFunction("MAX", args: SQLIdentifier(DishColumn.position)), as: "last")
            .from(DishRecord.schema).where(SQLIdentifier(DishColumn.section), .equal, SQLBind(section.rawValue))
            .first(decodingColumn: "last", as: Int?.self)
        return (last.flatMap { $0 } ?? -1) + 1
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
        let time = environment.now().wholeMicroseconds
        let written = try await database.writeTransaction { transaction in
            var written: [String] = []
            for (entry, position) in positioned {
                if let row = byHash[entry.dish.hash] {
                    guard !row.editedByAdmin, row.dish != entry.dish || row.position != position else { continue }
                    let updated = DishRow(entry.dish, id: row.id, position: position, stock: row.stock, editedByAdmin: false, retiredAt: row.retiredAt,
                                          photoKey: row.photoKey)
                    try await transaction.sql.update(updated, in: DishRecord.schema, id: row.id, keeping: [DishColumn.stock],
                                                     stamping: [DishColumn.updatedAt: time])
                } else {
                    let row = DishRow(entry.dish, id: UUID(), position: position, stock: entry.stock, editedByAdmin: false, retiredAt: nil)
                    try await transaction.sql.insert(row, into: DishRecord.schema, stamping: [DishColumn.createdAt: time, DishColumn.updatedAt: time])
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

extension BanchanStore.DishRow {
    /// The row of `dish` with the fields a write decides (the store's own: id, place, stock, who
    /// edited it, when it was retired).
    init(_ dish: Dish, id: UUID, position: Int, stock: Int, editedByAdmin: Bool, retiredAt: Date?, photoKey: String? = nil) {
        self.id = id
        hash = dish.hash
        section = dish.section.rawValue
        self.position = position
        title = dish.title
        summary = dish.description
        salePrice = dish.salePrice
        originalPrice = dish.originalPrice
        badges = dish.badges.map(\.rawValue)
        deliveryTypes = dish.deliveryTypes.map(\.rawValue)
        pointRate = dish.pointRate
        deliveryInfo = dish.deliveryInfo
        minQuantity = dish.minQuantity
        maxQuantity = dish.maxQuantity
        emoji = dish.emoji
        color = dish.color
        weight = dish.weight
        ingredients = dish.ingredients
        storageInfo = dish.storage
        detailSections = dish.detailSections
        thumbCount = dish.thumbCount
        self.stock = stock
        self.editedByAdmin = editedByAdmin
        self.retiredAt = retiredAt
        self.photoKey = photoKey
    }
}
