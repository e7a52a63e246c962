import Fluent
import NIOConcurrencyHelpers
import Platform
import SQLKit
import Vapor

/// The cart of an account or a device: quantities within each dish's limits and stock.
extension BanchanService {
    // MARK: Cart

    /// The lines in the order they were added, dishes no longer on sale left out. The cart page
    /// and header read this on every view: the lines and stock are one joined statement, and each
    /// dish comes from the in-memory listings (a dish not listed there yet is read as a model).
    package func cart(of owner: Principal) async throws -> [ShopLine] {
        let rows = try await database.sql.raw("""
            SELECT c.dish_id, c.quantity, d.hash, d.stock FROM \(ident: CartItem.schema) c
            JOIN \(ident: DishRecord.schema) d ON d.id = c.dish_id
            WHERE c.owner_key = \(bind: owner.key) AND d.retired_at IS NULL ORDER BY c.created_at, c.id
            """).all()
        var lines: [ShopLine] = []
        for row in rows {
            let dishID = try row.decode(column: "dish_id", as: UUID.self)
            let dish: Dish
            if let listing = listings.listing(hash: try row.decode(column: "hash", as: String.self)), listing.id == dishID {
                dish = listing.dish
            } else if let record = try await DishRecord.find(dishID, on: database) {
                dish = record.dish
            } else {
                continue
            }
            lines.append(ShopLine(dishID: dishID, dish: dish, stock: try row.decode(column: "stock", as: Int.self),
                                  quantity: try row.decode(column: "quantity", as: Int.self)))
        }
        return lines
    }

    /// How many items the cart holds (what `cart(of:)` would sum), in one statement. (PostgreSQL's
    /// SUM of a bigint is NUMERIC, hence the cast.)
    func cartQuantity(of owner: Principal) async throws -> Int {
        let row = try await database.sql.raw("""
            SELECT CAST(COALESCE(SUM(c.quantity), 0) AS BIGINT) AS total FROM \(ident: CartItem.schema) c
            JOIN \(ident: DishRecord.schema) d ON d.id = c.dish_id
            WHERE c.owner_key = \(bind: owner.key) AND d.retired_at IS NULL
            """).first()
        return try row?.decode(column: "total", as: Int.self) ?? 0
    }

    /// Puts a dish in the cart at this quantity (replacing what was there), within its limits
    /// and what is in stock now.
    func setCartQuantity(_ quantity: Int, of hash: String, for owner: Principal) async throws {
        let row = try await dish(hash: hash)
        try Self.checkQuantity(quantity, of: row.dish, stock: row.stock)
        let dishID = row.id
        if let existing = try await CartItem.query(on: database).filter(\.$ownerKey == owner.key).filter(\.$dish.$id == dishID).first() {
            existing.quantity = quantity
            try await existing.save(on: database)
        } else {
            do {
                try await CartItem(ownerKey: owner.key, dishID: dishID, quantity: quantity).create(on: database)
            } catch let error as any DatabaseError where error.isConstraintFailure {
                try await CartItem.query(on: database).filter(\.$ownerKey == owner.key).filter(\.$dish.$id == dishID)
                    .set(\.$quantity, to: quantity).update()
            }
        }
    }

    func removeFromCart(_ hash: String, for owner: Principal) async throws {
        let dishID = try await dish(hash: hash).id
        try await CartItem.query(on: database).filter(\.$ownerKey == owner.key).filter(\.$dish.$id == dishID).delete()
    }

    /// A visitor's cart joins the account's when they sign in on that device: each dish's
    /// quantities are added, then held within the dish's limits and what is in stock (a dish that
    /// is gone or sold out stays in neither); the device's cart is emptied. One transaction.
    func mergeCart(of device: Principal, into account: Principal) async throws {
        guard device.key != account.key else { return }
        let visitorLines = try await CartItem.query(on: database).filter(\.$ownerKey == device.key).with(\.$dish).all()
        guard !visitorLines.isEmpty else { return }
        try await database.transaction { transaction in
            for line in visitorLines {
                let dishID = line.$dish.id
                let record = line.dish
                let existing = try await CartItem.query(on: transaction).filter(\.$ownerKey == account.key).filter(\.$dish.$id == dishID).first()
                let wanted = (existing?.quantity ?? 0) + line.quantity
                guard line.dish.retiredAt == nil, let quantity = OrderRules.fitted(wanted, to: record.dish, stock: record.stock) else { continue }
                if let existing {
                    existing.quantity = quantity
                    try await existing.save(on: transaction)
                } else {
                    try await CartItem(ownerKey: account.key, dishID: dishID, quantity: quantity).create(on: transaction)
                }
            }
            try await CartItem.query(on: transaction).filter(\.$ownerKey == device.key).delete()
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
