import Fluent
import Foundation
import Payments
import Platform
import SQLKit

/// The orders of `BanchanStore`'s aggregate and the stock they take and give back:
/// `banchan_orders` and `banchan_order_items`, read and written only here, each column named once
/// (`OrderColumn`, `ItemColumn`: the models' keys and every statement). Every change of stock is
/// announced once its transaction committed, so every instance's listings follow.
extension BanchanStore {
    enum OrderColumn: String, TableColumn {
        case id, ownerKey = "owner_key", userID = "user_id", status, itemsTotal = "items_total"
        case deliveryFee = "delivery_fee", total, points, merchantUID = "merchant_uid"
        case paymentProvider = "payment_provider", paymentID = "payment_id", paidAt = "paid_at"
        case cancelledAt = "cancelled_at", cancelReason = "cancel_reason", idempotencyKey = "idempotency_key"
        case requestDigest = "request_digest", createdAt = "created_at", updatedAt = "updated_at"
        /// The number people read aloud (`20261127-0042`), and when each step of its progress came.
        case number, preparingAt = "preparing_at", shippedAt = "shipped_at", deliveredAt = "delivered_at"
        case cancelRequestedAt = "cancel_requested_at"
        /// Where it goes (`Delivery`): null on orders placed without one (the 배민찬 app's, and before checkout asked).
        case deliverySlot = "delivery_slot", recipient = "delivery_recipient", phone = "delivery_phone", postcode = "delivery_postcode"
        case address = "delivery_address", addressDetail = "delivery_address_detail", deliveryNote = "delivery_note"
        /// `yyyy-MM-dd` of the morning a 새벽배송 arrives.
        case arrivesOn = "delivery_arrives_on", paymentMethod = "payment_method"
        /// How it travels once shipped (`Shipment`): the courier and its 송장번호; null before, and on
        /// orders shipped before the console asked.
        case courier, trackingNumber = "tracking_number"

        /// The column holding when an order reached `status`, for the steps that have one.
        static func time(of status: OrderStatus) -> OrderColumn? {
            switch status {
            case .paid: return .paidAt
            case .preparing: return .preparingAt
            case .shipped: return .shippedAt
            case .delivered: return .deliveredAt
            case .cancelRequested: return .cancelRequestedAt
            case .cancelled: return .cancelledAt
            case .awaitingPayment: return nil
            }
        }
    }

    /// Each day's last order number (`banchan_order_days`), counted in Korea's time.
    enum OrderDayColumn: String, TableColumn { case day, last }
    static let orderDays = "banchan_order_days"

    enum ItemColumn: String, TableColumn {
        case id, orderID = "order_id", line, dishID = "dish_id", hash, title, unitPrice = "unit_price", quantity
        case pointsPerUnit = "points_per_unit"
        /// The dish's price before its sale when ordered (the receipt's discount); null without one.
        case originalPrice = "original_price"
        /// How many of `quantity` the shop refunded (`refundLine`).
        case refundedQuantity = "refunded_quantity"
    }

    /// What an order asks for: a dish by its hash, and how many.
    struct Requested: Sendable, Equatable {
        let hash: String
        let quantity: Int
    }

    var orders: SQLIdentifier { SQLIdentifier(BanchanOrder.schema) }
    var items: SQLIdentifier { SQLIdentifier(BanchanOrderItem.schema) }
    private var dishTable: SQLIdentifier { SQLIdentifier(DishRecord.schema) }

    // MARK: Stock

    /// Shows stock that changed (after the change committed) in this process's listings at once,
    /// and tells the other processes'.
    func announce(stocks: [(hash: String, stock: Int)]) async {
        for change in stocks {
            // Read again rather than applied: orders committing at once announce in any order.
            do {
                try await environment.listings.refresh(change.hash, from: self)
            } catch {
                environment.logger.warning("the shop's listing of \(change.hash) was not read again: \(error)")
            }
            await BanchanListings.announceChange(of: change.hash, on: environment.events)
        }
    }

    /// Takes units of a dish on sale by one conditional update that never goes below zero: the
    /// dish's id and the stock left, or nil when it is unknown, retired or short.
    func takeStock(_ quantity: Int, of hash: String) async throws -> (id: UUID, stock: Int)? {
        let stock = SQLIdentifier(DishColumn.stock)
        guard let row = try await sql.update(dishTable)
            .set(stock, to: SQLBinaryExpression(stock, .subtract, SQLBind(quantity)))
            .where(SQLIdentifier(DishColumn.hash), .equal, SQLBind(hash)).where(SQLIdentifier(DishColumn.retiredAt), .is, SQLLiteral.null)
            .where(stock, .greaterThanOrEqual, SQLBind(quantity))
            .returning(SQLIdentifier(DishColumn.id), stock).first() else { return nil }
        return (try row.decode(column: DishColumn.id, as: UUID.self), try row.decode(column: DishColumn.stock, as: Int.self))
    }

    /// Gives units back to a dish: the stock now, or nil for a dish that is gone.
    func returnStock(_ quantity: Int, to dishID: UUID) async throws -> Int? {
        let stock = SQLIdentifier(DishColumn.stock)
        return try await sql.update(dishTable).set(stock, to: SQLBinaryExpression(stock, .add, SQLBind(quantity)))
            .where(SQLIdentifier(DishColumn.id), .equal, SQLBind(dishID))
            .returning(stock).first(decodingColumn: DishColumn.stock, as: Int.self)
    }

    // MARK: Placing and cancelling

    /// Moves an order to cancelled (only from a cancellable state, decided by one conditional
    /// update) and returns its units to stock (those a line refund has not given back already), in one transaction with the refund it owes (if
    /// any): the refund's id, or nil for none. False when the order had already moved on
    /// (nothing written). The stock given back is announced after the commit.
    func cancelOrder(_ id: UUID, reason: String, refunding refund: Refunds.Request?, now: Date,
                     from states: [OrderStatus] = [.awaitingPayment, .paid], audit: AuditEntry? = nil) async throws -> (cancelled: Bool, refund: UUID?) {
        let environment = self.environment
        let cancelled: (stocks: [(hash: String, stock: Int)], refund: UUID?)? = try await database.writeTransaction { transaction in
            let store = BanchanStore(database: transaction, environment: environment)
            let moved = try await transaction.sql.update(BanchanOrder.schema)
                .set(SQLIdentifier(OrderColumn.status), to: SQLBind(OrderStatus.cancelled.rawValue))
                .set(SQLIdentifier(OrderColumn.cancelledAt), to: SQLBind(now)).set(SQLIdentifier(OrderColumn.cancelReason), to: SQLBind(reason))
                .set(SQLIdentifier(OrderColumn.updatedAt), to: SQLBind(now))
                .where(SQLIdentifier(OrderColumn.id), .equal, SQLBind(id))
                .where(SQLIdentifier(OrderColumn.status), .in, SQLBind.group(states.map(\.rawValue)))
                .returning(SQLIdentifier(OrderColumn.id)).all()
            guard !moved.isEmpty else { return nil }
            if let audit { try await AuditLog(database: transaction).record(audit) }
            let refundID = if let refund { try await Refunds.request(refund, on: transaction, now: now) } else { UUID?.none }
            var stocks: [(hash: String, stock: Int)] = []
            let lines = try await transaction.sql.select()
                .column(SQLIdentifier(ItemColumn.dishID)).column(SQLIdentifier(ItemColumn.hash)).column(SQLIdentifier(ItemColumn.quantity))
                .column(SQLIdentifier(ItemColumn.refundedQuantity))
                .from(BanchanOrderItem.schema).where(SQLIdentifier(ItemColumn.orderID), .equal, SQLBind(id)).orderBy(ItemColumn.line).all()
            for line in lines {
                let quantity = try line.decode(column: ItemColumn.quantity, as: Int.self) - line.decode(column: ItemColumn.refundedQuantity, as: Int.self)
                guard quantity > 0 else { continue }
                if let stock = try await store.returnStock(quantity, to: try line.decode(column: ItemColumn.dishID, as: UUID.self)) {
                    stocks.append((try line.decode(column: ItemColumn.hash, as: String.self), stock))
                }
            }
            return (stocks, refundID)
        }
        guard let cancelled else { return (false, nil) }
        await announceMoved(id, to: .cancelled)
        await announce(stocks: cancelled.stocks)
        return (true, cancelled.refund)
    }

    /// Marks an order awaiting payment paid; false when it had moved on.
    func markPaid(_ id: UUID, provider: String, paymentID: String, at now: Date) async throws -> Bool {
        let paid = try await moveStatus(of: id, from: .awaitingPayment, to: .paid, at: now) { update in
            update.set(SQLIdentifier(OrderColumn.paymentProvider), to: SQLBind(provider))
                .set(SQLIdentifier(OrderColumn.paymentID), to: SQLBind(paymentID)).set(SQLIdentifier(OrderColumn.paidAt), to: SQLBind(now))
        }
        if paid { await announceMoved(id, to: .paid) }
        return paid
    }

    // MARK: Following an order

    /// The topic an order's moves are announced on: its open pages follow it (on every instance).
    static func topic(ofOrder id: UUID) -> String { "banchan.order." + id.uuidString.lowercased() }

    /// What an order's followers hear: the state it moved to, and (after a line refund, and at
    /// once on following) how many of its units the shop refunded, so a page follows a refund too.
    struct Moved: Codable, Sendable, Equatable {
        let status: OrderStatus
        var refundedUnits: Int?
    }

    /// Tells the order's open pages it moved, once the move committed. `markPaid` and
    /// `cancelOrder` announce their own; a caller of `moveStatus` announces after its transaction.
    func announceMoved(_ id: UUID, to status: OrderStatus, refundedUnits: Int? = nil) async {
        await environment.keptOrders.changed(on: environment.events)
        guard let message = try? JSONEncoder().encode(Moved(status: status, refundedUnits: refundedUnits)) else { return }
        await environment.events.publish(String(decoding: message, as: UTF8.self), to: Self.topic(ofOrder: id))
    }

    /// Moves an order from `from` to `to` by one conditional update; false when it was no longer `from`.
    /// Not announced: the caller does (`announceMoved`), after the transaction it may be part of.
    func moveStatus(of id: UUID, from: OrderStatus, to: OrderStatus, at now: Date,
                    also: (SQLUpdateBuilder) -> SQLUpdateBuilder = { $0 }) async throws -> Bool {
        let update = sql.update(orders).set(SQLIdentifier(OrderColumn.status), to: SQLBind(to.rawValue))
            .set(SQLIdentifier(OrderColumn.updatedAt), to: SQLBind(now))
            .where(SQLIdentifier(OrderColumn.id), .equal, SQLBind(id)).where(SQLIdentifier(OrderColumn.status), .equal, SQLBind(from.rawValue))
        // The step's time, kept when it is set already (a declined cancel request goes back to preparing).
        // Payments and cancellations write theirs with what they record (`markPaid`, `cancelOrder`).
        if let step = OrderColumn.time(of: to), to != .paid, to != .cancelled {
            _ = update.set(SQLIdentifier(step), to: SQLFunction("COALESCE", args: SQLIdentifier(step), SQLBind(now)))
        }
        return try await !also(update).returning(SQLIdentifier(OrderColumn.id)).all().isEmpty
    }

    /// The next number of the day an order is placed (`20261127-0042`): one statement that adds one
    /// to the day's counter (creating it at 1), inside the placing transaction, so two orders never
    /// share a number and a rolled-back order gives its number back.
    func nextOrderNumber(now: Date) async throws -> String {
        let day = Self.orderDay(now)
        let table = SQLIdentifier(Self.orderDays)
        let last = try await sql.raw("""
            INSERT INTO \(table) (\(ident: OrderDayColumn.day), \(ident: OrderDayColumn.last)) VALUES (\(bind: day), 1)
            ON CONFLICT (\(ident: OrderDayColumn.day)) DO UPDATE SET \(ident: OrderDayColumn.last) = \(table).\(ident: OrderDayColumn.last) + 1
            RETURNING \(ident: OrderDayColumn.last)
            """).first(decodingColumn: OrderDayColumn.last.rawValue, as: Int.self) ?? 1
        return day + "-" + (last < 10_000 ? String(format: "%04d", last) : String(last))
    }

    /// `yyyyMMdd` in Korea's time, the day an order number names.
    static func orderDay(_ date: Date) -> String {
        let parts = Calendar.korea.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d%02d%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }
}
