import Fluent
import Platform
import Vapor

/// Catalog administration: adding, changing and retiring dishes with the catalog's rules; the
/// store writes them and every process's listings follow.
extension BanchanService {
    /// Adds a dish, or brings a retired one back with these fields (its hash stays with its orders).
    func addDish(_ dish: Dish, stock: Int) async throws -> BanchanStore.DishRow {
        try Self.validate(dish, stock: stock)
        return try await store.addDish(dish, stock: stock)
    }

    /// Changes a dish on sale (404 for a retired one), its stock when given.
    func changeDish(hash: String, stock: Int?, _ change: (inout Dish) throws -> Void) async throws -> BanchanStore.DishRow {
        try await store.changeDish(hash: hash, stock: stock) { dish, stockNow in
            try change(&dish)
            try Self.validate(dish, stock: stock ?? stockNow)
        }
    }

    /// Takes a dish off sale; it is not found (404) until it is added again.
    func retireDish(hash: String) async throws {
        try await store.retireDish(hash: hash, at: Date())
    }

    package static func validate(_ dish: Dish, stock: Int) throws {
        if let field = dish.problems.first { throw AppError.invalid("invalid_dish_field", ["field": field]) }
        guard (0...1_000_000).contains(stock) else { throw AppError.invalid("invalid_dish_field", ["field": "stock"]) }
    }
}
