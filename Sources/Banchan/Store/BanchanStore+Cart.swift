import Fluent
import Foundation
import Platform
import SQLKit

/// The carts of `BanchanStore`'s aggregate: `banchan_cart_items`, read and written only here, each
/// column named once (`CartColumn`: the model's keys and every statement).
extension BanchanStore {
    enum CartColumn: String, TableColumn {
        case id, ownerKey = "owner_key", dishID = "dish_id", quantity, createdAt = "created_at"
    }

    /// A new line of `banchan_cart_items`, every column by `CartColumn`.
    private struct CartLineInsert: Encodable {
        let id: UUID
        let ownerKey: String
        let dishID: UUID
        let quantity: Int
        let createdAt: Date
        typealias CodingKeys = CartColumn
    }

    /// A cart line with its dish's hash and stock, as the cart reads it.
    struct CartLineRow: Sendable, Equatable {
        let dishID: UUID
        let hash: String
        let stock: Int
        let quantity: Int
    }

    private var cartItems: SQLIdentifier { SQLIdentifier(CartItem.schema) }
    private var dishes: SQLIdentifier { SQLIdentifier(DishRecord.schema) }

    /// The owner's lines in the order they were added, with each dish's hash and stock; dishes no
    /// longer on sale left out. One joined statement (the cart page and header read it every view).
    func cartLines(of ownerKey: String) async throws -> [CartLineRow] {
        // Written out rather than built: every shop page's header and the cart page read this, and
        // building the statement from expressions cost a tenth of the cart page.
        try await sql.raw("""
            SELECT c.\(ident: CartColumn.dishID), c.\(ident: CartColumn.quantity), d.\(ident: DishColumn.hash), d.\(ident: DishColumn.stock)
            FROM \(cartItems) c JOIN \(dishes) d ON d.\(ident: DishColumn.id) = c.\(ident: CartColumn.dishID)
            WHERE c.\(ident: CartColumn.ownerKey) = \(bind: ownerKey) AND d.\(ident: DishColumn.retiredAt) IS NULL
            ORDER BY c.\(ident: CartColumn.createdAt), c.\(ident: CartColumn.id)
            """).all().map { row in
                CartLineRow(dishID: try row.decode(column: CartColumn.dishID, as: UUID.self), hash: try row.decode(column: DishColumn.hash, as: String.self),
                            stock: try row.decode(column: DishColumn.stock, as: Int.self), quantity: try row.decode(column: CartColumn.quantity, as: Int.self))
            }
    }

    /// The owner's lines (`cartLines`), from memory when read since the cart's last change and at
    /// the listings' version now (`KeptCarts`): the cart, checkout and every shop page's header.
    func keptCartLines(of ownerKey: String) async throws -> [CartLineRow] {
        let carts = environment.keptCarts, version = environment.listings.version
        if let kept = carts.lines(of: ownerKey, listingsVersion: version) { return kept }
        let generation = carts.generation
        let lines = try await cartLines(of: ownerKey)
        carts.keep(lines, of: ownerKey, listingsVersion: version, readAt: generation)
        return lines
    }

    /// How many items the owner's cart holds (dishes on sale): the kept lines' quantities.
    func cartQuantity(of ownerKey: String) async throws -> Int {
        try await keptCartLines(of: ownerKey).reduce(0) { $0 + $1.quantity }
    }

    /// Puts a dish in the owner's cart at this quantity, replacing what was there.
    /// (Inside a transaction — a merge — its caller tells of the change once it committed.)
    func setCartQuantity(_ quantity: Int, of dishID: UUID, for ownerKey: String, at now: Date) async throws {
        let updated = try await sql.update(cartItems).set(SQLIdentifier(CartColumn.quantity), to: SQLBind(quantity))
            .where(SQLIdentifier(CartColumn.ownerKey), .equal, SQLBind(ownerKey)).where(SQLIdentifier(CartColumn.dishID), .equal, SQLBind(dishID))
            .returning(SQLIdentifier(CartColumn.id)).all()
        if updated.isEmpty {
            do {
                try await sql.insert(CartLineInsert(id: UUID(), ownerKey: ownerKey, dishID: dishID, quantity: quantity, createdAt: now.wholeMicroseconds),
                                     into: CartItem.schema)
            } catch let error as any DatabaseError where error.isConstraintFailure {
                // Another request of the same owner put it in first; this quantity is the last word.
                try await sql.update(cartItems).set(SQLIdentifier(CartColumn.quantity), to: SQLBind(quantity))
                    .where(SQLIdentifier(CartColumn.ownerKey), .equal, SQLBind(ownerKey)).where(SQLIdentifier(CartColumn.dishID), .equal, SQLBind(dishID)).run()
            }
        }
        await cartChanged(ownerKey)
    }

    func removeFromCart(_ dishID: UUID, for ownerKey: String) async throws {
        try await sql.delete(from: cartItems)
            .where(SQLIdentifier(CartColumn.ownerKey), .equal, SQLBind(ownerKey)).where(SQLIdentifier(CartColumn.dishID), .equal, SQLBind(dishID)).run()
        await cartChanged(ownerKey)
    }

    /// The owner's kept cart is forgotten, here and on every instance (`KeptCarts`).
    func cartChanged(_ ownerKeys: String...) async {
        await environment.keptCarts.changed(ownerKeys, on: environment.events)
    }

    /// Empties the owner's cart (inside an order's transaction: a store on it; `placing` tells of
    /// the change once it committed).
    func clearCart(of ownerKey: String) async throws {
        try await sql.delete(from: cartItems).where(SQLIdentifier(CartColumn.ownerKey), .equal, SQLBind(ownerKey)).run()
    }

    /// Moves a device's cart into an account's, in one transaction: each dish's quantities added,
    /// then `fitted` to the dish and its stock (nil leaves it out: gone or sold out); the device's
    /// cart is emptied.
    func mergeCart(of deviceKey: String, into accountKey: String, at now: Date,
                   fitted: @escaping @Sendable (_ wanted: Int, _ dish: DishRow) -> Int?) async throws {
        let visitor = try await cartLines(of: deviceKey)
        let all = try await sql.select().column(SQLIdentifier(CartColumn.id)).from(cartItems)
            .where(SQLIdentifier(CartColumn.ownerKey), .equal, SQLBind(deviceKey)).all()
        guard !all.isEmpty else { return }
        let environment = self.environment
        try await database.writeTransaction { transaction in
            let store = BanchanStore(database: transaction, environment: environment)
            let accountLines = Dictionary(try await store.cartLines(of: accountKey).map { ($0.dishID, $0.quantity) }, uniquingKeysWith: { first, _ in first })
            for line in visitor {
                guard let dish = try await store.dishRowOnSale(hash: line.hash), dish.id == line.dishID,
                      let quantity = fitted((accountLines[line.dishID] ?? 0) + line.quantity, dish) else { continue }
                try await store.setCartQuantity(quantity, of: line.dishID, for: accountKey, at: now)
            }
            try await store.clearCart(of: deviceKey)
        }
        // Both carts changed; told once the transaction committed (what was forgotten inside it
        // could have been read again, uncommitted, meanwhile).
        await cartChanged(deviceKey, accountKey)
    }
}
