import Accounts
package import Fluent
import Metrics
import NIOConcurrencyHelpers
import Payments
import Platform
import SQLKit
import Vapor

/// Orders that never oversell: stock taken in the order's transaction, idempotent retries, cancelling.
extension BanchanService {
    // MARK: Orders

    typealias Requested = BanchanStore.Requested
    typealias OrderRow = BanchanStore.OrderRow

    enum Placed {
        case created(OrderRow)
        /// The same `Idempotency-Key` and body as an earlier request: that request's order.
        case replayed(OrderRow)
    }

    /// Places an order for these dishes (or, when `items` is nil, for the owner's cart, which is
    /// then emptied). Stock is taken in the same transaction, by conditional updates that never
    /// go below zero, so concurrent orders for the last units cannot oversell. Totals come from
    /// the server's prices only. `delivery`, when given, must suit every dish (422
    /// `slot_unavailable` naming one that cannot travel that way) and is kept on the order.
    func placeOrder(_ items: [Requested]?, for owner: Principal, idempotencyKey: String?,
                    delivery request: DeliveryRequest? = nil) async throws -> Placed {
        // One reading of the clock for the whole order: its number, its 새벽배송 morning and its time.
        let now = environment.now()
        // Without a payment provider (`PAYMENT_GATEWAY=none`) nothing could be paid: no order is
        // taken, rather than one that holds stock and fails at payment.
        guard gateway != nil else { throw AppError(.serviceUnavailable, "orders_closed") }
        let fromCart = items == nil
        // A retried checkout of the cart finds the cart already emptied by its first attempt, so
        // the key is looked up first; for a cart, the key alone names the checkout.
        if fromCart, let idempotencyKey, let earlier = try await order(withKey: idempotencyKey, of: owner) {
            return try replay(earlier, digest: Self.cartDigest, delivery: request)
        }
        let requested: [Requested]
        if let items {
            requested = items
        } else {
            requested = try await cart(of: owner, fresh: true).map { Requested(hash: $0.dish.hash, quantity: $0.quantity) }
        }
        guard !requested.isEmpty else { throw AppError.invalid("order_empty") }
        guard Set(requested.map(\.hash)).count == requested.count else { throw AppError.invalid("duplicate_dish") }
        let digest = fromCart ? Self.cartDigest : SecureRandom.sha256Hex(requested.map { "\($0.hash)*\($0.quantity)" }.sorted().joined(separator: ","))

        if !fromCart, let idempotencyKey, let earlier = try await order(withKey: idempotencyKey, of: owner) {
            return try replay(earlier, digest: digest, delivery: request)
        }
        let deliveryTerms = self.delivery
        let placed = request.map { BanchanStore.PlacedDelivery(request: $0, arrivesOn: $0.slot == .dawn ? dawnSchedule.arrivalDay(placedAt: now) : nil) }
        let owned = (key: owner.key, user: owner.userID)
        do {
            // The store takes the stock and writes the rows; the rules in between are the service's.
            let order = try await store.placing { placing in
                let lines = try await placing.takeStock(requested)
                for (dish, quantity) in lines {
                    // Stock was checked by the update that took it; these are the dish's per-order limits.
                    do { try OrderRules.check(quantity: quantity, of: dish.dish, stock: Int.max) } catch let problem as QuantityProblem { throw Self.appError(problem, title: dish.title) }
                    if let slot = request?.slot, !dish.dish.deliveryTypes.contains(slot.dishType) {
                        throw AppError.invalid("slot_unavailable", ["title": dish.title, "slot": slot.rawValue])
                    }
                }
                let totals = OrderRules.totals(lines.map { OrderLine(hash: $0.dish.hash, unitPrice: $0.dish.salePrice, quantity: $0.quantity,
                                                                     pointsPerUnit: $0.dish.dish.pointsPerUnit) }, delivery: deliveryTerms)
                return try await placing.write(BanchanStore.NewOrder(ownerKey: owned.key, userID: owned.user, totals: totals, idempotencyKey: idempotencyKey,
                                                                     requestDigest: digest, delivery: placed),
                                               lines: lines, clearingCart: fromCart, now: now)
            }
            Counter(label: "whatweeat_banchan_orders_placed_total").increment()
            return .created(order)
        } catch let error as any DatabaseError where error.isConstraintFailure && idempotencyKey != nil {
            // A concurrent request with the same key committed first; answer with its order.
            guard let idempotencyKey, let earlier = try await order(withKey: idempotencyKey, of: owner) else { throw AppError.invalid("idempotency_key_reused") }
            return try replay(earlier, digest: digest, delivery: request)
        }
    }

    /// What a checkout of the cart records instead of a digest of its body.
    static let cartDigest = "cart"

    /// The earlier order when this request is the same as the one that made it: the same dishes
    /// (or the cart) and the same delivery, compared with what the order keeps. A key sent again
    /// with another address or slot is a mistake to report, never that earlier order.
    func replay(_ earlier: OrderRow, digest: String, delivery request: DeliveryRequest?) throws -> Placed {
        guard earlier.requestDigest == digest, BanchanStore.OrderDelivery.same(earlier.delivery, as: request) else {
            throw AppError.invalid("idempotency_key_reused")
        }
        return .replayed(earlier)
    }

    func order(withKey key: String, of owner: Principal) async throws -> OrderRow? {
        try await store.order(withKey: key, ownerKey: owner.key)
    }

    /// One of this owner's orders with its lines; someone else's is not found (404), not forbidden.
    func order(_ id: UUID, of owner: Principal) async throws -> OrderRow {
        guard let order = try await store.order(id, ownerKey: owner.key) else { throw AppError.notFound("order_not_found") }
        return order
    }

    /// The order with this id if it is this owner's (404 otherwise), as its page shows it, with
    /// whether the refund a cancelled order owes is still under way.
    func orderView(_ id: UUID, of owner: Principal) async throws -> (order: BanchanStore.OrderPageRow, refund: Refunds.State?) {
        guard let order = try await store.orderPage(id, ownerKey: owner.key) else { throw AppError.notFound("order_not_found") }
        return (order, order.status == .cancelled ? try await refundState(ofOrder: id) : nil)
    }

    /// An order as the orders page lists it.
    package struct Listed: NewestFirstRow, Sendable, Hashable {
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
        try await store.listedOrders(ownerKey: owner.key, page: page)
    }

    func orders(of owner: Principal, page: CursorPageRequest) async throws -> (items: [OrderRow], nextCursor: String?) {
        try await store.orders(ownerKey: owner.key, page: page)
    }

    /// The operator's list of every buyer's orders: of one status, placed on one day (`yyyy-MM-dd` in
    /// Korea's time), when given; 400 `invalid_field` for a day that is not one.
    /// `search` is what the operator typed (`OrderSearch`; 400 `invalid_field` `q` past its length).
    func allOrders(status: OrderStatus?, day: String?, search: String? = nil, page: CursorPageRequest) async throws -> (items: [OrderRow], nextCursor: String?) {
        let matching: OrderSearch?
        do { matching = try OrderSearch.parse(search) } catch { throw AppError.badRequest("invalid_field", ["field": "q"]) }
        var interval: DateInterval?
        if let day {
            let calendar = Calendar.korea
            let parts = day.split(separator: "-").compactMap { Int($0) }
            guard day.count == 10, parts.count == 3, let start = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])),
                  calendar.dateComponents([.year, .month, .day], from: start) == DateComponents(year: parts[0], month: parts[1], day: parts[2]),
                  let end = calendar.date(byAdding: .day, value: 1, to: start)
            else { throw AppError.badRequest("invalid_field", ["field": "day"]) }
            interval = DateInterval(start: start, end: end)
        }
        return try await store.allOrders(status: status, placedOn: interval, matching: matching, page: page)
    }

    /// The buyer cancels: at once until the shop starts preparing it (its units go back to stock
    /// and a payment is refunded); while it is being prepared, as a request the operator answers
    /// (`cancel_requested`). 409 `order_not_cancellable` after that.
    func cancel(_ id: UUID, of owner: Principal, reason: String) async throws -> OrderRow {
        let order = try await order(id, of: owner)
        if order.status.canRequestCancel {
            guard try await store.moveStatus(of: id, from: .preparing, to: .cancelRequested, at: environment.now(), also: {
                $0.set(SQLIdentifier(BanchanStore.OrderColumn.cancelReason), to: SQLBind(reason))
            }) else { throw AppError.conflict("order_not_cancellable", ["status": order.status.rawValue]) }
            await store.announceMoved(id, to: .cancelRequested)
            return try await self.order(id, of: owner)
        }
        guard order.status.canCancel else { throw AppError.conflict("order_not_cancellable", ["status": order.status.rawValue]) }
        let refund = order.paymentID.map { refundRequest(for: order, paymentID: $0, gateway: gateway?.name, reason: reason) }
        try await markCancelled(order, reason: reason, refunding: refund)
        return try await self.order(id, of: owner)
    }

    /// Moves an order to cancelled and returns its units to stock, with the refund it owes (if
    /// any) recorded in the same transaction (`BanchanStore.cancelOrder`), then tried. False when
    /// it had already moved on (nothing recorded).
    @discardableResult
    func markCancelled(_ order: OrderRow, reason: String, refunding refund: Refunds.Request? = nil,
                       from states: [OrderStatus] = [.awaitingPayment, .paid], audit: AuditEntry? = nil) async throws -> Bool {
        let result = try await store.cancelOrder(order.id, reason: reason, refunding: refund, now: environment.now(), from: states, audit: audit)
        guard result.cancelled else { return false }
        await Refunds.attempt(result.refund, on: database, gateway: gateway, logger: logger, now: environment.now())
        return true
    }
}
