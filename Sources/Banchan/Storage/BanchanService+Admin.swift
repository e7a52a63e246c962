import Fluent
import Platform
import Vapor

/// Catalog administration: adding, changing and retiring dishes, with the catalog's rules, and the
/// in-memory listings of every process kept current.
extension BanchanService {
    /// Adds a dish, or brings a retired one back with these fields (its hash stays with its orders).
    func addDish(_ dish: Dish, stock: Int) async throws -> DishRecord {
        try Self.validate(dish, stock: stock)
        let record: DishRecord
        if let existing = try await DishRecord.query(on: database).filter(\.$hash == dish.hash).first() {
            guard existing.retiredAt != nil else { throw AppError.conflict("dish_exists") }
            record = existing
            record.apply(dish)
            record.stock = stock
            record.retiredAt = nil
        } else {
            let last = try await DishRecord.query(on: database).filter(\.$section == dish.section.rawValue).sort(\.$position, .descending).first()
            record = DishRecord(dish, position: (last?.position ?? -1) + 1, stock: stock)
        }
        record.editedByAdmin = true
        do {
            try await record.save(on: database)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw AppError.conflict("dish_exists")
        }
        try await BanchanListings.dishChanged(record, listings: listings, events: events)
        return record
    }

    /// Changes a dish on sale (404 for a retired one), its stock when given.
    func changeDish(hash: String, stock: Int?, _ change: (inout Dish) throws -> Void) async throws -> DishRecord {
        let record = try await dish(hash: hash)
        var dish = record.dish
        try change(&dish)
        try Self.validate(dish, stock: stock ?? record.stock)
        record.apply(dish)
        if let stock { record.stock = stock }
        record.editedByAdmin = true
        try await record.save(on: database)
        try await BanchanListings.dishChanged(record, listings: listings, events: events)
        return record
    }

    /// Takes a dish off sale; it is not found (404) until it is added again.
    func retireDish(hash: String) async throws {
        let record = try await dish(hash: hash)
        record.retiredAt = Date()
        record.editedByAdmin = true
        try await record.save(on: database)
        try await BanchanListings.dishChanged(record, listings: listings, events: events)
    }

    package static func validate(_ dish: Dish, stock: Int) throws {
        if let field = dish.problems.first { throw AppError.invalid("invalid_dish_field", ["field": field]) }
        guard (0...1_000_000).contains(stock) else { throw AppError.invalid("invalid_dish_field", ["field": "stock"]) }
    }
}
