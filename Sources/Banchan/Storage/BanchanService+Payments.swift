import Fluent
import Metrics
import NIOConcurrencyHelpers
import Platform
import SQLKit
import Vapor

/// Payments checked with the provider, unpaid orders released after the payment window, shipping states.
extension BanchanService {
    // MARK: Payment

    /// Confirms a payment the client made with the provider: the order is paid only if the
    /// provider says this payment is paid, for this order, for exactly its total. Otherwise the
    /// order is cancelled (stock returned, payment refunded) and the reason is the error.
    package func confirmPayment(_ paymentID: String, for id: UUID, of owner: Principal, now: Date = Date()) async throws -> BanchanOrder {
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
        let payment = try await gateway.lookUp(paymentID, logger: logger)
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
        Counter(label: "whatweeat_banchan_payments_confirmed_total").increment()
        return try await self.order(id, of: owner)
    }

    /// Cancels orders still awaiting payment after the payment window, returning their stock.
    /// Safe to run from several processes at once: each cancellation is one conditional update.
    @discardableResult
    package func expireUnpaidOrders(window: TimeInterval, now: Date = Date()) async throws -> Int {
        let stale = try await BanchanOrder.query(on: database).filter(\.$status == .awaitingPayment)
            .filter(\.$createdAt < now.addingTimeInterval(-window)).limit(500).all()
        var expired = 0
        for order in stale where try await markCancelled(order, reason: "payment window expired", now: now) {
            expired += 1
        }
        return expired
    }

    /// Administrators move paid orders on (shipping ends the right to cancel).
    package func advance(_ id: UUID, to next: OrderStatus) async throws -> BanchanOrder {
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
