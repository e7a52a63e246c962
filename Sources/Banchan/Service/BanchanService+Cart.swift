import Fluent
import NIOConcurrencyHelpers
package import Platform
import SQLKit
import Vapor

/// The cart of an account or a device: quantities within each dish's limits and stock.
extension BanchanService {
    // MARK: Cart

    /// The lines in the order they were added, dishes no longer on sale left out. The cart page,
    /// checkout and the cart API read this on every view: the lines and stock are kept per owner
    /// until the cart or the listings change (`KeptCarts`), else one joined statement; each dish
    /// comes from the in-memory listings (a dish not listed there yet is read as a model).
    /// `fresh`: read from the database whatever is kept (placing an order).
    package func cart(of owner: Principal, fresh: Bool = false) async throws -> [ShopLine] {
        var lines: [ShopLine] = []
        for row in try await fresh ? store.cartLines(of: owner.key) : store.keptCartLines(of: owner.key) {
            let dish: Dish
            if let listing = listings.listing(hash: row.hash), listing.id == row.dishID {
                dish = listing.dish
            } else if let stored = try await store.dishRow(hash: row.hash), stored.id == row.dishID {
                dish = stored.dish
            } else {
                continue
            }
            lines.append(ShopLine(dishID: row.dishID, dish: dish, stock: row.stock, quantity: row.quantity))
        }
        return lines
    }

    /// How many items the cart holds (what `cart(of:)` would sum), from the kept lines (`KeptCarts`).
    func cartQuantity(of owner: Principal) async throws -> Int {
        try await store.cartQuantity(of: owner.key)
    }

    /// Puts a dish in the cart at this quantity (replacing what was there), within its limits
    /// and what is in stock now.
    func setCartQuantity(_ quantity: Int, of hash: String, for owner: Principal) async throws {
        let row = try await dish(hash: hash)
        try Self.checkQuantity(quantity, of: row.dish, stock: row.stock)
        try await store.setCartQuantity(quantity, of: row.id, for: owner.key, at: environment.now())
    }

    func removeFromCart(_ hash: String, for owner: Principal) async throws {
        try await store.removeFromCart(try await dish(hash: hash).id, for: owner.key)
    }

    /// A visitor's cart joins the account's when they sign in on that device: each dish's
    /// quantities are added, then held within the dish's limits and what is in stock (a dish that
    /// is gone or sold out stays in neither); the device's cart is emptied. One transaction.
    func mergeCart(of device: Principal, into account: Principal) async throws {
        guard device.key != account.key else { return }
        try await store.mergeCart(of: device.key, into: account.key, at: environment.now()) { wanted, dish in
            OrderRules.fitted(wanted, to: dish.dish, stock: dish.stock)
        }
    }

    static func checkQuantity(_ quantity: Int, of dish: Dish, stock: Int) throws {
        do {
            try OrderRules.check(quantity: quantity, of: dish, stock: stock)
        } catch {
            throw appError(error, title: dish.title)
        }
    }

    package static func appError(_ problem: QuantityProblem, title: String) -> AppError {
        switch problem {
        case .belowMinimum(let minimum): return AppError.invalid("quantity_below_minimum", ["title": title, "min": String(minimum)])
        case .aboveMaximum(let maximum): return AppError.invalid("quantity_above_maximum", ["title": title, "max": String(maximum)])
        case .outOfStock(let available): return AppError.conflict("out_of_stock", ["title": title, "available": String(available)])
        }
    }

    func totals(of lines: [ShopLine]) -> OrderTotals {
        OrderRules.totals(lines.map { OrderLine(hash: $0.dish.hash, unitPrice: $0.dish.salePrice, quantity: $0.quantity,
                                                pointsPerUnit: $0.dish.pointsPerUnit) }, delivery: delivery)
    }
}
