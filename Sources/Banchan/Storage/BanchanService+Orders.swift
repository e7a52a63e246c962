import Accounts
import Fluent
import Metrics
import NIOConcurrencyHelpers
import Payments
import Platform
import SQLKit
import Vapor

/// Orders that never oversell: stock taken in the order's transaction, idempotent retries, cancelling.
extension BanchanService {
    // MARK: Orders

    struct Requested: Sendable, Equatable {
        let hash: String
        let quantity: Int
    }

    enum Placed {
        case created(BanchanOrder)
        /// The same `Idempotency-Key` and body as an earlier request: that request's order.
        case replayed(BanchanOrder)
    }

    /// Places an order for these dishes (or, when `items` is nil, for the owner's cart, which is
    /// then emptied). Stock is taken in the same transaction, by conditional updates that never
    /// go below zero, so concurrent orders for the last units cannot oversell. Totals come from
    /// the server's prices only.
    func placeOrder(_ items: [Requested]?, for owner: Principal, idempotencyKey: String?) async throws -> Placed {
        let fromCart = items == nil
        // A retried checkout of the cart finds the cart already emptied by its first attempt, so
        // the key is looked up first; for a cart, the key alone names the checkout.
        if fromCart, let idempotencyKey, let earlier = try await order(withKey: idempotencyKey, of: owner) {
            return try replay(earlier, digest: Self.cartDigest)
        }
        let requested: [Requested]
        if let items {
            requested = items
        } else {
            requested = try await cart(of: owner).map { Requested(hash: $0.dish.hash, quantity: $0.quantity) }
        }
        guard !requested.isEmpty else { throw AppError.invalid("order_empty") }
        guard Set(requested.map(\.hash)).count == requested.count else { throw AppError.invalid("duplicate_dish") }
        let digest = fromCart ? Self.cartDigest : SecureRandom.sha256Hex(requested.map { "\($0.hash)*\($0.quantity)" }.sorted().joined(separator: ","))

        if !fromCart, let idempotencyKey, let earlier = try await order(withKey: idempotencyKey, of: owner) {
            return try replay(earlier, digest: digest)
        }
        do {
            let (order, stocks) = try await database.transaction { transaction in
                try await self.createOrder(requested, for: owner, key: idempotencyKey, digest: digest, clearingCart: fromCart, on: transaction)
            }
            await announce(stocks)
            Counter(label: "whatweeat_banchan_orders_placed_total").increment()
            return .created(order)
        } catch let error as any DatabaseError where error.isConstraintFailure && idempotencyKey != nil {
            // A concurrent request with the same key committed first; answer with its order.
            guard let idempotencyKey, let earlier = try await order(withKey: idempotencyKey, of: owner) else { throw AppError.invalid("idempotency_key_reused") }
            return try replay(earlier, digest: digest)
        }
    }

    /// What a checkout of the cart records instead of a digest of its body.
    static let cartDigest = "cart"

    func replay(_ earlier: BanchanOrder, digest: String) throws -> Placed {
        guard earlier.requestDigest == digest else { throw AppError.invalid("idempotency_key_reused") }
        return .replayed(earlier)
    }

    package func order(withKey key: String, of owner: Principal) async throws -> BanchanOrder? {
        try await BanchanOrder.query(on: database).filter(\.$ownerKey == owner.key).filter(\.$idempotencyKey == key).first()
    }

    func createOrder(
        _ requested: [Requested], for owner: Principal, key: String?, digest: String, clearingCart: Bool, on transaction: any Database
    ) async throws -> (BanchanOrder, [(hash: String, stock: Int)]) {
        let sql = transaction.sql
        let orderID = UUID()
        var lines: [(dish: DishRecord, quantity: Int)] = []
        var stocks: [(hash: String, stock: Int)] = []
        // Sorted, so two orders for the same dishes take their rows in the same order (PostgreSQL
        // row locks). The transaction starts with this write, never with a read: on SQLite a
        // transaction that read first cannot write after another connection commits.
        for item in requested.sorted(by: { $0.hash < $1.hash }) {
            guard item.quantity > 0 else { throw AppError.invalid("quantity_below_minimum", ["title": item.hash, "min": "1"]) }
            let taken = try await sql.update(DishRecord.schema)
                .set(SQLIdentifier("stock"), to: SQLBinaryExpression(SQLIdentifier("stock"), .subtract, SQLBind(item.quantity)))
                .where("hash", .equal, item.hash)
                .where("retired_at", .is, SQLLiteral.null)
                .where("stock", .greaterThanOrEqual, item.quantity)
                .returning("id", "stock").all()
            guard let row = taken.first else {
                // Unknown, or not enough left: say which (the transaction rolls back either way).
                guard let record = try await DishRecord.query(on: transaction).filter(\.$hash == item.hash).filter(\.$retiredAt == nil).first() else {
                    throw AppError.notFound("dish_not_found")
                }
                throw AppError.conflict("out_of_stock", ["title": record.title, "available": String(max(0, record.stock))])
            }
            guard let record = try await DishRecord.find(try row.decode(column: "id", as: UUID.self), on: transaction) else {
                throw AppError.notFound("dish_not_found")
            }
            do {
                // Stock was checked by the update itself; these are the dish's per-order limits.
                try OrderRules.check(quantity: item.quantity, of: record.dish, stock: Int.max)
            } catch {
                throw Self.appError(error, title: record.title)
            }
            lines.append((record, item.quantity))
            stocks.append((item.hash, try row.decode(column: "stock", as: Int.self)))
        }
        let totals = OrderRules.totals(
            lines.map { OrderLine(hash: $0.dish.hash, unitPrice: $0.dish.salePrice, quantity: $0.quantity, pointsPerUnit: $0.dish.dish.pointsPerUnit) },
            delivery: delivery)
        let order = BanchanOrder()
        order.id = orderID
        order.ownerKey = owner.key
        order.$user.id = owner.userID
        order.status = .awaitingPayment
        order.itemsTotal = totals.itemsTotal
        order.deliveryFee = totals.deliveryFee
        order.total = totals.total
        order.points = totals.points
        order.merchantUID = "wwe_" + orderID.uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        order.idempotencyKey = key
        order.requestDigest = digest
        try await order.create(on: transaction)
        // Stock was taken in hash order; the lines keep the order the customer asked in.
        let requestedOrder = Dictionary(uniqueKeysWithValues: requested.enumerated().map { ($1.hash, $0) })
        for line in lines {
            try await BanchanOrderItem(orderID: orderID, line: requestedOrder[line.dish.hash] ?? 0, dish: line.dish, quantity: line.quantity)
                .create(on: transaction)
        }
        if clearingCart {
            try await CartItem.query(on: transaction).filter(\.$ownerKey == owner.key).delete()
        }
        try await order.$items.load(on: transaction)
        return (order, stocks)
    }

    /// One of this owner's orders with its lines; someone else's is not found (404), not forbidden.
    package func order(_ id: UUID, of owner: Principal) async throws -> BanchanOrder {
        guard let order = try await BanchanOrder.query(on: database).filter(\.$id == id).filter(\.$ownerKey == owner.key).with(\.$items).first() else {
            throw AppError.notFound("order_not_found")
        }
        return order
    }

    /// What an order's page shows, as plain values.
    struct OrderView: Sendable {
        struct Line: Sendable {
            package let title: String
            let unitPrice: Int
            package let quantity: Int
        }

        let id: UUID
        let status: OrderStatus
        let itemsTotal: Int
        let deliveryFee: Int
        let total: Int
        let points: Int
        let merchantUID: String
        let cancelReason: String?
        /// In the order the customer added them.
        let lines: [Line]
        /// Whether the refund a cancelled order owes is still under way.
        let refund: Refunds.State?
    }

    /// The order with this id if it is this owner's (404 otherwise), for its page: one written-out
    /// statement of the order joined with its lines, where building the order and its items as
    /// models took most of the page (0.09× of `/healthz`).
    func orderView(_ id: UUID, of owner: Principal) async throws -> OrderView {
        let rows = try await database.sql.raw("""
            SELECT o.status, o.items_total, o.delivery_fee, o.total, o.points, o.merchant_uid, o.cancel_reason,
            i.title, i.unit_price, i.quantity
            FROM \(ident: BanchanOrder.schema) o LEFT JOIN \(ident: BanchanOrderItem.schema) i ON i.order_id = o.id
            WHERE o.id = \(bind: id) AND o.owner_key = \(bind: owner.key) ORDER BY i.line
            """).all()
        guard let first = rows.first else { throw AppError.notFound("order_not_found") }
        let lines = try rows.compactMap { row -> OrderView.Line? in
            guard let title = try row.decode(column: "title", as: String?.self) else { return nil }
            return OrderView.Line(title: title, unitPrice: try row.decode(column: "unit_price", as: Int.self),
                                  quantity: try row.decode(column: "quantity", as: Int.self))
        }
        let status = try first.decode(column: "status", as: OrderStatus.self)
        return OrderView(id: id, status: status,
                         itemsTotal: try first.decode(column: "items_total", as: Int.self),
                         deliveryFee: try first.decode(column: "delivery_fee", as: Int.self),
                         total: try first.decode(column: "total", as: Int.self), points: try first.decode(column: "points", as: Int.self),
                         merchantUID: try first.decode(column: "merchant_uid", as: String.self),
                         cancelReason: try first.decode(column: "cancel_reason", as: String?.self), lines: lines,
                         refund: status == .cancelled ? try await refundState(ofOrder: id) : nil)
    }

    /// An order as the orders page lists it.
    package struct Listed: NewestFirstRow, Sendable {
        package let id: UUID
        package let status: OrderStatus
        package let total: Int
        package let createdAt: Date
        /// The first line's title, and how many lines there are.
        let firstTitle: String?
        let lineCount: Int
    }

    /// One newest-first page of the orders page: rows, not models with their items (the page is
    /// read on every visit and showed 0.1× of `/healthz` building them).
    func listedOrders(of owner: Principal, page: CursorPageRequest) async throws -> (items: [Listed], nextCursor: String?) {
        let orders = BanchanOrder.schema, items = BanchanOrderItem.schema
        let rows = try await database.sql.select()
            .column(SQLColumn("id", table: orders)).column(SQLColumn("status", table: orders))
            .column(SQLColumn("total", table: orders)).column(SQLColumn("created_at", table: orders))
            .column(SQLRaw("(SELECT COUNT(*) FROM \(items) i WHERE i.order_id = \(orders).id)"), as: "line_count")
            .column(SQLRaw("(SELECT i.title FROM \(items) i WHERE i.order_id = \(orders).id ORDER BY i.line LIMIT 1)"), as: "first_title")
            .from(orders)
            .where(SQLColumn("owner_key", table: orders), .equal, SQLBind(owner.key))
            .newestFirst(createdAt: SQLColumn("created_at", table: orders), id: SQLColumn("id", table: orders), page)
            .all()
        let listed = try rows.map { row in
            Listed(id: try row.decode(column: "id", as: UUID.self),
                   status: try row.decode(column: "status", as: OrderStatus.self),
                   total: try row.decode(column: "total", as: Int.self), createdAt: try row.decode(column: "created_at", as: Date.self),
                   firstTitle: try row.decode(column: "first_title", as: String?.self), lineCount: try row.decode(column: "line_count", as: Int.self))
        }
        return page.page(of: listed)
    }

    package func orders(of owner: Principal, page: CursorPageRequest) async throws -> (items: [BanchanOrder], nextCursor: String?) {
        try await BanchanOrder.query(on: database).filter(\.$ownerKey == owner.key).with(\.$items).paginate(newestFirst: \.$createdAt, page)
    }

    /// Cancels an order that has not shipped; its units go back to stock and a payment is refunded.
    package func cancel(_ id: UUID, of owner: Principal, reason: String) async throws -> BanchanOrder {
        let order = try await order(id, of: owner)
        guard order.status.canCancel else { throw AppError.conflict("order_not_cancellable", ["status": order.status.rawValue]) }
        let refund = order.paymentID.map { refundRequest(for: order, paymentID: $0, gateway: gateway?.name, reason: reason) }
        try await markCancelled(order, reason: reason, refunding: refund)
        return try await self.order(id, of: owner)
    }

    /// Moves an order to cancelled (only from a cancellable state, decided by one conditional
    /// update) and returns its units to stock, in one transaction with the refund it owes (if
    /// any), which is then tried. False when it had already moved on (nothing recorded).
    @discardableResult
    func markCancelled(_ order: BanchanOrder, reason: String, refunding refund: Refunds.Request? = nil, now: Date = Date()) async throws -> Bool {
        let id = try order.requireID()
        let cancelled: (stocks: [(hash: String, stock: Int)], refund: UUID?)? = try await database.transaction { transaction in
            let sql = transaction.sql
            let moved = try await sql.update(BanchanOrder.schema)
                .set("status", to: OrderStatus.cancelled.rawValue).set("cancelled_at", to: now).set("cancel_reason", to: reason)
                .set("updated_at", to: now)
                .where("id", .equal, id)
                .where("status", .in, [OrderStatus.awaitingPayment.rawValue, OrderStatus.paid.rawValue])
                .returning("id").all()
            guard !moved.isEmpty else { return nil }
            let refundID = if let refund { try await Refunds.request(refund, on: transaction, now: now) } else { UUID?.none }
            var stocks: [(hash: String, stock: Int)] = []
            for item in try await BanchanOrderItem.query(on: transaction).filter(\.$order.$id == id).all() {
                let rows = try await sql.update(DishRecord.schema)
                    .set(SQLIdentifier("stock"), to: SQLBinaryExpression(SQLIdentifier("stock"), .add, SQLBind(item.quantity)))
                    .where("id", .equal, item.dishID).returning("stock").all()
                if let row = rows.first { stocks.append((item.hash, try row.decode(column: "stock", as: Int.self))) }
            }
            return (stocks, refundID)
        }
        guard let cancelled else { return false }
        await announce(cancelled.stocks)
        await Refunds.attempt(cancelled.refund, on: database, gateway: gateway, logger: logger)
        return true
    }
}
