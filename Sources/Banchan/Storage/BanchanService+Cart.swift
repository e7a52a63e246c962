import Fluent
import NIOConcurrencyHelpers
import Platform
import SQLKit
import Vapor

/// The cart of an account or a device: quantities within each dish's limits and stock.
extension BanchanService {
    // MARK: Cart

    package func cart(of owner: Principal) async throws -> [ShopLine] {
        try await CartItem.query(on: database).filter(\.$ownerKey == owner.key).with(\.$dish).sort(\.$createdAt).all()
            .filter { $0.dish.retiredAt == nil }
            .map { ShopLine(dish: $0.dish, quantity: $0.quantity) }
    }

    /// How many items the cart holds (what `cart(of:)` would sum), in one statement. (PostgreSQL's
    /// SUM of a bigint is NUMERIC, hence the cast.)
    package func cartQuantity(of owner: Principal) async throws -> Int {
        let row = try await database.sql.raw("""
            SELECT CAST(COALESCE(SUM(c.quantity), 0) AS BIGINT) AS total FROM \(ident: CartItem.schema) c
            JOIN \(ident: DishRecord.schema) d ON d.id = c.dish_id
            WHERE c.owner_key = \(bind: owner.key) AND d.retired_at IS NULL
            """).first()
        return try row?.decode(column: "total", as: Int.self) ?? 0
    }

    /// Puts a dish in the cart at this quantity (replacing what was there), within its limits
    /// and what is in stock now.
    package func setCartQuantity(_ quantity: Int, of hash: String, for owner: Principal) async throws {
        let record = try await dish(hash: hash)
        try Self.checkQuantity(quantity, of: record)
        let dishID = try record.requireID()
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

    package func removeFromCart(_ hash: String, for owner: Principal) async throws {
        let record = try await dish(hash: hash)
        try await CartItem.query(on: database).filter(\.$ownerKey == owner.key).filter(\.$dish.$id == record.requireID()).delete()
    }

    /// A visitor's cart joins the account's when they sign in on that device: each dish's
    /// quantities are added, then held within the dish's limits and what is in stock (a dish that
    /// is gone or sold out stays in neither); the device's cart is emptied. One transaction.
    package func mergeCart(of device: Principal, into account: Principal) async throws {
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

    package static func checkQuantity(_ quantity: Int, of record: DishRecord) throws {
        do {
            try OrderRules.check(quantity: quantity, of: record.dish, stock: record.stock)
        } catch {
            throw appError(error, title: record.title)
        }
    }

    package static func appError(_ problem: QuantityProblem, title: String) -> AppError {
        switch problem {
        case .belowMinimum(let minimum): return AppError.invalid("quantity_below_minimum", ["title": title, "min": String(minimum)])
        case .aboveMaximum(let maximum): return AppError.invalid("quantity_above_maximum", ["title": title, "max": String(maximum)])
        case .outOfStock(let available): return AppError.conflict("out_of_stock", ["title": title, "available": String(available)])
        }
    }

    package func totals(of lines: [ShopLine]) -> OrderTotals {
        OrderRules.totals(lines.map { OrderLine(hash: $0.dish.hash, unitPrice: $0.dish.salePrice, quantity: $0.quantity,
                                                pointsPerUnit: $0.dish.dish.pointsPerUnit) }, delivery: delivery)
    }
}
