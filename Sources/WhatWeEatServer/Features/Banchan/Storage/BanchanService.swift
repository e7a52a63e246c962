import Fluent
import NIOConcurrencyHelpers
import SQLKit
import Vapor

/// A cart or an order line as clients see it.
struct ShopLine: Sendable {
    let dish: DishRecord
    let quantity: Int
}

/// Every rule of the shop: catalog reads, the cart, orders that never oversell, payments checked
/// with the provider. Handlers (API, compatibility routes, pages) stay thin over this.
struct BanchanService {
    let database: any Database
    let delivery: DeliveryFeeRule
    let gateway: (any PaymentGateway)?
    let listings: BanchanListings
    let events: any EventBus
    let logger: Logger

    init(request: Request) {
        self.init(database: request.db, application: request.application, logger: request.logger)
    }

    /// For work outside a request (the unpaid-order sweeper).
    init(application: Application) {
        self.init(database: application.db, application: application, logger: application.logger)
    }

    private init(database: any Database, application: Application, logger: Logger) {
        self.database = database
        delivery = application.deliveryFeeRule
        gateway = application.paymentGateway
        listings = application.banchanListings
        events = application.events
        self.logger = logger
    }

    // MARK: Catalog

    func dish(hash: String) async throws -> DishRecord {
        guard let record = try await DishRecord.query(on: database).filter(\.$hash == hash).filter(\.$retiredAt == nil).first() else {
            throw AppError.notFound("dish_not_found")
        }
        return record
    }

    /// Every dish of a section in catalog order (the shipped app's section lists are not paged),
    /// from the in-memory listings.
    func dishes(in section: DishSection) -> [BanchanListings.Listing] {
        listings.all(in: section)
    }

    func dishes(in section: DishSection, page: PageRequest) throws -> (items: [BanchanListings.Listing], nextCursor: String?) {
        try listings.page(in: section, page)
    }

    func dishCounts() -> [DishSection: Int] {
        Dictionary(uniqueKeysWithValues: DishSection.allCases.map { ($0, listings.count(in: $0)) })
    }

    /// Shows stock that changed (after the change committed) in this process's listings at once,
    /// and tells the other processes'.
    private func announce(_ stocks: [(hash: String, stock: Int)]) async {
        for change in stocks {
            listings.apply(stock: change.stock, of: change.hash)
            await BanchanListings.announce(stock: change.stock, of: change.hash, on: events)
        }
    }

    // MARK: Cart

    func cart(of owner: Principal) async throws -> [ShopLine] {
        try await CartItem.query(on: database).filter(\.$ownerKey == owner.key).with(\.$dish).sort(\.$createdAt).all()
            .filter { $0.dish.retiredAt == nil }
            .map { ShopLine(dish: $0.dish, quantity: $0.quantity) }
    }

    /// Puts a dish in the cart at this quantity (replacing what was there), within its limits
    /// and what is in stock now.
    func setCartQuantity(_ quantity: Int, of hash: String, for owner: Principal) async throws {
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

    func removeFromCart(_ hash: String, for owner: Principal) async throws {
        let record = try await dish(hash: hash)
        try await CartItem.query(on: database).filter(\.$ownerKey == owner.key).filter(\.$dish.$id == record.requireID()).delete()
    }

    static func checkQuantity(_ quantity: Int, of record: DishRecord) throws {
        do {
            try OrderRules.check(quantity: quantity, of: record.dish, stock: record.stock)
        } catch {
            throw appError(error, title: record.title)
        }
    }

    static func appError(_ problem: QuantityProblem, title: String) -> AppError {
        switch problem {
        case .belowMinimum(let minimum): return AppError.invalid("quantity_below_minimum", ["title": title, "min": String(minimum)])
        case .aboveMaximum(let maximum): return AppError.invalid("quantity_above_maximum", ["title": title, "max": String(maximum)])
        case .outOfStock(let available): return AppError.conflict("out_of_stock", ["title": title, "available": String(available)])
        }
    }

    func totals(of lines: [ShopLine]) -> OrderTotals {
        OrderRules.totals(lines.map { OrderLine(hash: $0.dish.hash, unitPrice: $0.dish.salePrice, quantity: $0.quantity,
                                                pointsPerUnit: $0.dish.dish.pointsPerUnit) }, delivery: delivery)
    }

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
            return .created(order)
        } catch let error as any DatabaseError where error.isConstraintFailure && idempotencyKey != nil {
            // A concurrent request with the same key committed first; answer with its order.
            guard let idempotencyKey, let earlier = try await order(withKey: idempotencyKey, of: owner) else { throw AppError.invalid("idempotency_key_reused") }
            return try replay(earlier, digest: digest)
        }
    }

    /// What a checkout of the cart records instead of a digest of its body.
    static let cartDigest = "cart"

    private func replay(_ earlier: BanchanOrder, digest: String) throws -> Placed {
        guard earlier.requestDigest == digest else { throw AppError.invalid("idempotency_key_reused") }
        return .replayed(earlier)
    }

    private func order(withKey key: String, of owner: Principal) async throws -> BanchanOrder? {
        try await BanchanOrder.query(on: database).filter(\.$ownerKey == owner.key).filter(\.$idempotencyKey == key).first()
    }

    private func createOrder(
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
    func order(_ id: UUID, of owner: Principal) async throws -> BanchanOrder {
        guard let order = try await BanchanOrder.query(on: database).filter(\.$id == id).filter(\.$ownerKey == owner.key).with(\.$items).first() else {
            throw AppError.notFound("order_not_found")
        }
        return order
    }

    func orders(of owner: Principal, page: PageRequest) async throws -> (items: [BanchanOrder], nextCursor: String?) {
        try await BanchanOrder.query(on: database).filter(\.$ownerKey == owner.key).with(\.$items).paginate(newestFirst: \.$createdAt, page)
    }

    /// Cancels an order that has not shipped; its units go back to stock and a payment is refunded.
    func cancel(_ id: UUID, of owner: Principal, reason: String) async throws -> BanchanOrder {
        let order = try await order(id, of: owner)
        guard order.status.canCancel else { throw AppError.conflict("order_not_cancellable", ["status": order.status.rawValue]) }
        let paymentID = order.paymentID
        guard try await markCancelled(order, reason: reason) else { return try await self.order(id, of: owner) }
        if let paymentID, let gateway {
            do {
                try await gateway.cancel(paymentID: paymentID, reason: reason)
            } catch {
                logger.error("refund failed; settle by hand", metadata: ["order": "\(id)", "payment": "\(paymentID)", "error": "\(error)"])
            }
        }
        return try await self.order(id, of: owner)
    }

    /// Moves an order to cancelled (only from a cancellable state, decided by one conditional
    /// update) and returns its units to stock, in one transaction. False when it had already moved on.
    private func markCancelled(_ order: BanchanOrder, reason: String, now: Date = Date()) async throws -> Bool {
        let id = try order.requireID()
        let stocks: [(hash: String, stock: Int)]? = try await database.transaction { transaction in
            let sql = transaction.sql
            let moved = try await sql.update(BanchanOrder.schema)
                .set("status", to: OrderStatus.cancelled.rawValue).set("cancelled_at", to: now).set("cancel_reason", to: reason)
                .set("updated_at", to: now)
                .where("id", .equal, id)
                .where("status", .in, [OrderStatus.awaitingPayment.rawValue, OrderStatus.paid.rawValue])
                .returning("id").all()
            guard !moved.isEmpty else { return nil }
            var stocks: [(hash: String, stock: Int)] = []
            for item in try await BanchanOrderItem.query(on: transaction).filter(\.$order.$id == id).all() {
                let rows = try await sql.update(DishRecord.schema)
                    .set(SQLIdentifier("stock"), to: SQLBinaryExpression(SQLIdentifier("stock"), .add, SQLBind(item.quantity)))
                    .where("id", .equal, item.dishID).returning("stock").all()
                if let row = rows.first { stocks.append((item.hash, try row.decode(column: "stock", as: Int.self))) }
            }
            return stocks
        }
        guard let stocks else { return false }
        await announce(stocks)
        return true
    }

    // MARK: Payment

    /// Confirms a payment the client made with the provider: the order is paid only if the
    /// provider says this payment is paid, for this order, for exactly its total. Otherwise the
    /// order is cancelled (stock returned, payment refunded) and the reason is the error.
    func confirmPayment(_ paymentID: String, for id: UUID, of owner: Principal, now: Date = Date()) async throws -> BanchanOrder {
        guard let gateway else { throw AppError(.serviceUnavailable, "payments_unavailable") }
        let order = try await order(id, of: owner)
        if order.status == .paid, order.paymentID == paymentID { return order }  // a retried confirmation
        if order.status == .cancelled {
            // Paid after the order was cancelled (its payment window ran out): give the money back.
            if let late = try? await gateway.payment(id: paymentID), late.status == .paid, late.merchantUID == order.merchantUID {
                try? await gateway.cancel(paymentID: late.providerID, reason: "order already cancelled")
                throw AppError.conflict("payment_after_cancellation")
            }
        }
        guard order.status == .awaitingPayment else { throw AppError.conflict("order_not_awaiting_payment", ["status": order.status.rawValue]) }
        let payment: ProviderPayment
        do {
            payment = try await gateway.payment(id: paymentID)
        } catch PaymentGatewayError.unknownPayment {
            throw AppError.invalid("payment_not_found")
        } catch {
            logger.warning("payment provider unavailable", metadata: ["error": "\(error)"])
            throw AppError(.serviceUnavailable, "payment_provider_unavailable")
        }
        do {
            try PaymentCheck.verify(payment, merchantUID: order.merchantUID, total: order.total)
        } catch .wrongOrder {
            // Someone else's payment: not evidence about this order, which stays unpaid.
            throw AppError.invalid("payment_for_other_order")
        } catch {
            let reason: String
            switch error {
            case .notPaid(let status): reason = "payment \(status.rawValue)"
            case .wrongAmount(let expected, let paid): reason = "paid \(paid) for a total of \(expected)"
            case .wrongOrder: reason = "another order's payment"
            }
            _ = try await markCancelled(order, reason: reason)
            if payment.status == .paid {
                try? await gateway.cancel(paymentID: payment.providerID, reason: reason)
            }
            switch error {
            case .notPaid: throw AppError.conflict("payment_not_paid")
            case .wrongAmount(let expected, let paid):
                throw AppError.conflict("payment_amount_mismatch", ["expected": Won.format(expected), "paid": Won.format(paid)])
            case .wrongOrder: throw AppError.invalid("payment_for_other_order")
            }
        }
        let sql = database.sql
        let moved = try await sql.update(BanchanOrder.schema)
            .set("status", to: OrderStatus.paid.rawValue).set("payment_provider", to: gateway.name)
            .set("payment_id", to: payment.providerID).set("paid_at", to: now).set("updated_at", to: now)
            .where("id", .equal, try order.requireID()).where("status", .equal, OrderStatus.awaitingPayment.rawValue)
            .returning("id").all()
        guard !moved.isEmpty else { throw AppError.conflict("order_not_awaiting_payment", ["status": "changed"]) }
        return try await self.order(id, of: owner)
    }

    /// Cancels orders still awaiting payment after the payment window, returning their stock.
    /// Safe to run from several processes at once: each cancellation is one conditional update.
    @discardableResult
    func expireUnpaidOrders(window: TimeInterval, now: Date = Date()) async throws -> Int {
        let stale = try await BanchanOrder.query(on: database).filter(\.$status == .awaitingPayment)
            .filter(\.$createdAt < now.addingTimeInterval(-window)).limit(500).all()
        var expired = 0
        for order in stale where try await markCancelled(order, reason: "payment window expired", now: now) {
            expired += 1
        }
        return expired
    }

    /// Administrators move paid orders on (shipping ends the right to cancel).
    func advance(_ id: UUID, to next: OrderStatus) async throws -> BanchanOrder {
        guard let order = try await BanchanOrder.find(id, on: database) else { throw AppError.notFound("order_not_found") }
        guard order.status.canMove(to: next), next != .cancelled else {
            throw AppError.conflict("order_status_change_refused", ["from": order.status.rawValue, "to": next.rawValue])
        }
        let sql = database.sql
        let moved = try await sql.update(BanchanOrder.schema).set("status", to: next.rawValue).set("updated_at", to: Date())
            .where("id", .equal, id).where("status", .equal, order.status.rawValue).returning("id").all()
        guard !moved.isEmpty else { throw AppError.conflict("order_status_change_refused", ["from": order.status.rawValue, "to": next.rawValue]) }
        guard let moved = try await BanchanOrder.query(on: database).filter(\.$id == id).with(\.$items).first() else {
            throw AppError.notFound("order_not_found")
        }
        return moved
    }
}

extension Request {
    var banchan: BanchanService { BanchanService(request: self) }
}


/// Once a minute, cancels orders whose payment window ran out, so abandoned checkouts give
/// their stock back. Runs in every process; the conditional update lets only one win per order.
struct UnpaidOrderSweeper: LifecycleHandler {
    static let interval: Duration = .seconds(60)
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    func didBootAsync(_ application: Application) async throws {
        let window = application.settings.shop.paymentWindow
        let service = BanchanService(application: application)
        task.withLockedValue {
            $0 = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.interval)
                    do {
                        let expired = try await service.expireUnpaidOrders(window: window)
                        if expired > 0 { application.logger.info("cancelled \(expired) unpaid orders past their payment window") }
                    } catch {
                        application.logger.warning("expiring unpaid orders failed: \(error)")
                    }
                }
            }
        }
    }

    func shutdownAsync(_ application: Application) async {
        let running = task.withLockedValue { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        running?.cancel()
    }
}
