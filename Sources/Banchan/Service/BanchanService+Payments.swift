import Fluent
import Metrics
import Notifications
import NIOConcurrencyHelpers
import Payments
import Platform
import SQLKit
import Vapor

/// Payments checked with the provider, unpaid orders released after the payment window, shipping states.
extension BanchanService {
    // MARK: Payment

    /// Confirms a payment the client made with the provider: the order is paid only if the
    /// provider says this payment is paid, for this order, for exactly its total. Otherwise the
    /// order is cancelled (stock returned, payment refunded) and the reason is the error.
    func confirmPayment(_ paymentID: String, for id: UUID, of owner: Principal) async throws -> OrderRow {
        let now = environment.now()
        guard let gateway else { throw AppError(.serviceUnavailable, "payments_unavailable") }
        let order = try await order(id, of: owner)
        if order.status == .paid, order.paymentID == paymentID { return order }  // a retried confirmation
        if order.status == .cancelled {
            try await refundLatePayment(paymentID, for: order, with: gateway)
        } else if order.status != .awaitingPayment, let kept = order.paymentID, kept != paymentID {
            // Already paid with another payment: a second one that took money goes back.
            try await refundDuplicatePayment(paymentID, for: order, with: gateway)
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
            // A payment that took money for nothing goes back, whether or not this call cancelled the order.
            let refund = payment.status == .paid ? refundRequest(for: order, paymentID: payment.providerID, gateway: gateway.name, reason: reason) : nil
            if try await !markCancelled(order, reason: reason, refunding: refund), let refund {
                let now = environment.now()
                await Refunds.attempt(try await Refunds.request(refund, on: database, now: now), on: database, gateway: gateway, logger: logger, now: now)
            }
            switch error {
            case .notPaid: throw AppError.conflict("payment_not_paid")
            case .wrongAmount(let expected, let paid):
                throw AppError.conflict("payment_amount_mismatch", ["expected": Won.format(expected), "paid": Won.format(paid)])
            case .wrongOrder: throw AppError.invalid("payment_for_other_order")
            }
        }
        guard try await store.markPaid(order.id, provider: gateway.name, paymentID: payment.providerID, at: now) else {
            // The order moved on while we asked the provider. If it was cancelled (its window ran
            // out), this paid payment is a late one and goes back; a concurrent confirmation of
            // the same payment is the retried-confirmation case. If another payment won the race,
            // this one paid for an order already paid and goes back.
            let current = try await self.order(id, of: owner)
            if current.status == .paid, current.paymentID == payment.providerID { return current }
            if current.status == .cancelled {
                try await refundLatePayment(paymentID, for: current, with: gateway)
            } else if let kept = current.paymentID, kept != payment.providerID {
                try await refundDuplicatePayment(payment.providerID, for: current, with: gateway, lookedUp: payment)
            }
            throw AppError.conflict("order_not_awaiting_payment", ["status": current.status.rawValue])
        }
        Counter(label: "whatweeat_banchan_payments_confirmed_total").increment()
        return try await self.order(id, of: owner)
    }

    /// A payment made after its order was cancelled (the payment window ran out): refunded as a
    /// stray payment (`refundStrayPayment`), answered 409 `payment_after_cancellation`.
    private func refundLatePayment(_ paymentID: String, for order: OrderRow, with gateway: any PaymentGateway) async throws {
        let refund = refundRequest(for: order, paymentID: paymentID, gateway: gateway.name, reason: "paid after the order was cancelled")
        try await refundStrayPayment(paymentID, for: order, with: gateway, refund: refund, conflict: "payment_after_cancellation") { _, _ in
            logger.notice("payment after cancellation refunded", metadata: ["order": "\(order.id)", "payment": "\(paymentID)"])
        }
    }

    /// A second payment for an order already paid with another one (a provider, a retried payment
    /// window or a deposit let it through): refunded as a stray payment under the order, logged and
    /// counted (`whatweeat_banchan_payments_duplicate_total`) once, answered 409 `payment_duplicate`.
    /// `lookedUp`: the provider's answer, when the caller has it already.
    private func refundDuplicatePayment(_ paymentID: String, for order: OrderRow, with gateway: any PaymentGateway,
                                        lookedUp: ProviderPayment? = nil) async throws {
        let refund = Refunds.Request(gateway: gateway.name, paymentID: paymentID, merchantUID: order.merchantUID,
                                     subject: BanchanOrder.refundSubject(order.id), reason: "a second payment for an order already paid")
        try await refundStrayPayment(paymentID, for: order, with: gateway, refund: refund, conflict: "payment_duplicate", lookedUp: lookedUp) { second, recorded in
            guard recorded else { return }
            Counter(label: "whatweeat_banchan_payments_duplicate_total").increment()
            logger.warning("second payment for a paid order; refunding it", metadata: [
                "order": "\(order.id)", "payment": "\(paymentID)", "kept": "\(order.paymentID ?? "")", "amount": "\(second.amount)",
            ])
        }
    }

    /// A payment the order cannot keep: if the provider says it paid for this order, `refund` is
    /// recorded and tried (`told` with whether this call recorded it), and the client is told 409
    /// `code`; asked again once refunded, the same. If the provider cannot be asked, the refund is
    /// recorded all the same (each attempt checks the payment first) and the client is told 503 to
    /// ask again. Returns when the payment is not a paid one of this order, for the caller's 409.
    private func refundStrayPayment(_ paymentID: String, for order: OrderRow, with gateway: any PaymentGateway, refund: Refunds.Request,
                                    conflict code: String, lookedUp: ProviderPayment? = nil,
                                    told: (ProviderPayment, _ recorded: Bool) -> Void) async throws {
        let payment: ProviderPayment
        if let lookedUp {
            payment = lookedUp
        } else {
            do {
                payment = try await gateway.payment(id: paymentID)
            } catch PaymentGatewayError.unknownPayment {
                return
            } catch {
                logger.warning("a stray payment not checked; refund recorded for the retry job", metadata: [
                    "order": "\(order.id)", "payment": "\(paymentID)", "refund": "\(code)", "error": "\(error)",
                ])
                let now = environment.now()
                await Refunds.attempt(try await Refunds.request(refund, on: database, unverified: true, now: now), on: database, gateway: gateway, logger: logger, now: now)
                throw AppError(.serviceUnavailable, "payment_provider_unavailable")
            }
        }
        guard payment.merchantUID == order.merchantUID else { return }
        // Asked again after the refund: the provider shows it cancelled.
        if payment.status == .cancelled { throw AppError.conflict(code) }
        guard payment.status == .paid else { return }
        let now = environment.now()
        let recorded = try await Refunds.request(refund, on: database, now: now)
        told(payment, recorded != nil)
        await Refunds.attempt(recorded, on: database, gateway: gateway, logger: logger, now: now)
        throw AppError.conflict(code)
    }

    /// The refund of a payment for this order, recorded under the order (its page shows it until done).
    func refundRequest(for order: OrderRow, paymentID: String, gateway: String?, reason: String) -> Refunds.Request {
        // A paid order is refunded by the provider that took the payment (even if another is configured now).
        Refunds.Request(gateway: order.paymentProvider ?? gateway ?? "none", paymentID: paymentID, merchantUID: order.merchantUID,
                        subject: BanchanOrder.refundSubject(order.id), reason: reason)
    }

    /// Whether this order's refund is still under way (nil: it owes none).
    func refundState(ofOrder id: UUID?) async throws -> Refunds.State? {
        try await Refunds.state(of: BanchanOrder.refundSubject(id), on: database)
    }

    /// An operator tries an order's unsettled refund again now; audited. The state after (nil: it owes none).
    func retryRefund(ofOrder id: UUID, by operator: UUID?) async throws -> Refunds.State? {
        guard let order = try await store.order(id, ownerKey: nil) else { throw AppError.notFound("order_not_found") }
        let before = try await refundState(ofOrder: id)
        let after = try await Refunds.retryNow(subject: BanchanOrder.refundSubject(id), on: database, gateway: gateway, logger: logger,
                                                   now: environment.now())
        try await AuditLog(database: database).record(AuditEntry(
            actorID: `operator`, action: "banchan.order.refund_retry", subjectType: "banchan_order", subjectID: order.steps.number ?? id.uuidString.lowercased(),
            before: ["refund": before?.rawValue ?? "none"], after: ["refund": after?.rawValue ?? "none"], at: environment.now()))
        return after
    }

    /// The shop refunds some units of one line of a paid order (`BanchanStore.refundLine`: a dish
    /// that ran out, one that arrived spoiled), the rest of the order standing: the amount goes
    /// back through the refund queue (a part of the payment, tried at once, retried until the
    /// provider confirms it), the units go back on the shelf while the order has not shipped, the
    /// audit log records it, the buyer's inbox hears it and the order's open pages follow.
    /// `quantity` nil: every unit of the line not refunded yet.
    func refundLine(of id: UUID, line: Int, quantity: Int?, reason: String, by operator: UUID?) async throws -> OrderRow {
        guard let order = try await store.order(id, ownerKey: nil) else { throw AppError.notFound("order_not_found") }
        guard let paymentID = order.paymentID, order.status.operatorCanRefundLine else {
            throw AppError.conflict("line_refund_refused", ["status": order.status.rawValue])
        }
        let provider = order.paymentProvider ?? gateway?.name ?? "none"
        let subjectID = order.steps.number ?? id.uuidString.lowercased()
        let title = order.lines.first { $0.line == line }?.title ?? ""
        let now = environment.now()
        let done = try await store.refundLine(.init(orderID: id, line: line, quantity: quantity, reason: reason, by: `operator`), at: now) { refundID, amount in
            Refunds.Request(gateway: provider, paymentID: paymentID, merchantUID: order.merchantUID, subject: BanchanOrder.refundSubject(id),
                            reason: reason, amount: amount, part: BanchanOrder.lineRefundPart(refundID))
        } audit: { refund in
            AuditEntry(actorID: `operator`, action: "banchan.order.line_refund", subjectType: "banchan_order", subjectID: subjectID, before: nil,
                       after: ["line": String(refund.line + 1), "title": title, "quantity": String(refund.quantity), "amount": String(refund.amount),
                               "reason": refund.reason], at: now)
        }
        await Refunds.attempt(done.paymentRefund, on: database, gateway: gateway, logger: logger, now: environment.now())
        guard let after = try await store.order(id, ownerKey: nil) else { throw AppError.notFound("order_not_found") }
        await store.announceMoved(id, to: after.status, refundedUnits: after.refundedUnits)
        await tellBuyer(after, kind: "order_line_refunded")
        return after
    }

    /// An order's line refunds, each with whether the provider confirmed it (`Refunds.State`).
    func lineRefunds(ofOrder id: UUID) async throws -> [(refund: BanchanStore.LineRefund, state: Refunds.State)] {
        let refunds = try await store.lineRefunds(ofOrder: id)
        guard !refunds.isEmpty else { return [] }
        let settled = Dictionary(try await RefundStore(database: database).refunds(subject: BanchanOrder.refundSubject(id)).map { ($0.part, $0.doneAt != nil) },
                                 uniquingKeysWith: { first, _ in first })
        return refunds.map { ($0, settled[BanchanOrder.lineRefundPart($0.id)] == true ? .done : .pending) }
    }

    /// Cancels orders still awaiting payment after the payment window, returning their stock.
    /// Safe to run from several processes at once: each cancellation is one conditional update.
    @discardableResult
    func expireUnpaidOrders(window: TimeInterval) async throws -> Int {
        let now = environment.now()
        var expired = 0
        for id in try await store.unpaidOrders(before: now.addingTimeInterval(-window), limit: 500) {
            guard try await store.cancelOrder(id, reason: "payment window expired", refunding: nil, now: now).cancelled else { continue }
            expired += 1
            if let cancelled = try await store.order(id, ownerKey: nil) { await tellBuyer(cancelled, kind: "order_expired") }
        }
        return expired
    }

    /// How long an order keeps who received it and where: the records of supplying goods are kept
    /// five years (전자상거래법 시행령 제6조), then the personal part goes (개인정보 보호법 제21조).
    static let deliveryDetailsKeptYears = 5

    /// Blanks the recipient, phone, address and note of orders placed more than five years ago,
    /// whether or not the account still exists; the books keep the rest. Safe on every instance.
    @discardableResult
    func forgetOldDeliveryDetails() async throws -> Int {
        let now = environment.now()
        guard let cutoff = Calendar(identifier: .gregorian).date(byAdding: .year, value: -Self.deliveryDetailsKeptYears, to: now) else { return 0 }
        return try await store.forgetDeliveryDetails(placedBefore: cutoff)
    }

    /// Administrators move orders along their progress (`OrderStatus.canMove`): preparing,
    /// shipped, delivered; a cancel request answered by cancelling (`cancelled`: stock back, the
    /// payment refunded) or declining (`preparing`). Anything not shipped may be cancelled so.
    /// Shipping records how it travels (`shipment`, its courier and 송장번호) when given; the
    /// buyer's order page then links the courier's tracking page. Every open page of the order
    /// follows the move (`BanchanStore.announceMoved`).
    /// `courier` and `trackingNumber` are as typed: read (`shipment(courier:trackingNumber:)`, 422)
    /// only when shipping, after the order is found and the move allowed.
    func advance(_ id: UUID, to next: OrderStatus, by operator: UUID?, reason: String = "cancelled by the shop",
                 courier: String? = nil, trackingNumber: String? = nil) async throws -> OrderRow {
        guard let order = try await store.order(id, ownerKey: nil) else { throw AppError.notFound("order_not_found") }
        let refused = AppError.conflict("order_status_change_refused", ["from": order.status.rawValue, "to": next.rawValue])
        guard order.status.canMove(to: next), next != .awaitingPayment else { throw refused }
        let shipment = next == .shipped ? try Self.shipment(courier: courier, trackingNumber: trackingNumber) : nil
        var after = ["status": next.rawValue]
        if let shipment {
            after["courier"] = shipment.courier.rawValue
            after["trackingNumber"] = shipment.trackingNumber
        }
        // The move and its audit entry are one transaction: neither is kept without the other.
        let audit = AuditEntry(actorID: `operator`, action: "banchan.order.status", subjectType: "banchan_order",
                               subjectID: order.steps.number ?? id.uuidString.lowercased(),
                               before: ["status": order.status.rawValue], after: after, at: environment.now())
        if next == .cancelled {
            let refund = order.paymentID.map { refundRequest(for: order, paymentID: $0, gateway: gateway?.name, reason: reason) }
            guard try await markCancelled(order, reason: order.cancelReason ?? reason, refunding: refund,
                                          from: OrderStatus.allCases.filter(\.operatorCanCancel), audit: audit) else { throw refused }
        } else {
            let environment = self.environment, from = order.status
            try await database.writeTransaction { transaction in
                let moved = try await BanchanStore(database: transaction, environment: environment).moveStatus(of: id, from: from, to: next, at: environment.now()) { update in
                    guard let shipment else { return update }
                    return update.set(SQLIdentifier(BanchanStore.OrderColumn.courier), to: SQLBind(shipment.courier.rawValue))
                        .set(SQLIdentifier(BanchanStore.OrderColumn.trackingNumber), to: SQLBind(shipment.trackingNumber))
                }
                guard moved else { throw refused }
                try await AuditLog(database: transaction).record(audit)
            }
            await store.announceMoved(id, to: next)
        }
        guard let moved = try await store.order(id, ownerKey: nil) else { throw AppError.notFound("order_not_found") }
        await tellBuyer(moved, kind: order.status == .cancelRequested && next == .preparing ? "order_cancel_declined" : nil)
        return moved
    }

    /// The shipment an operator typed (`Shipment.make`), or 422 `invalid_courier` /
    /// `invalid_tracking_number` naming the field.
    static func shipment(courier: String?, trackingNumber: String?) throws -> Shipment? {
        do {
            return try Shipment.make(courier: courier, trackingNumber: trackingNumber)
        } catch {
            switch error {
            case .courier: throw AppError.invalid("invalid_courier", ["field": "courier"])
            case .trackingNumber: throw AppError.invalid("invalid_tracking_number", ["field": "trackingNumber"])
            }
        }
    }

    /// The inbox entries about an order, read when its buyer opens it.
    func orderSeen(_ id: UUID, by user: UUID) async throws {
        try await inbox.markRead(for: user, kinds: OrderStatus.allCases.map { "order_\($0.rawValue)" } + ["order_expired", "order_cancel_declined", "order_line_refunded"], subject: id)
    }

    /// The buyer's inbox (and so a push) hears of a change they did not make themselves: paid,
    /// preparing, shipped, delivered, cancelled by the shop (kind `order_<status>`), a cancel request
    /// declined (`order_cancel_declined`), a line refunded (`order_line_refunded`), or the payment
    /// window run out (`order_expired`); the
    /// order's page marks them read. A failure is logged: the order has moved either way,
    /// and its page shows it.
    func tellBuyer(_ order: OrderRow, kind: String? = nil) async {
        guard let buyer = order.userID else { return }  // an app's device has no inbox
        do {
            try await inbox.post(NotificationDraft(recipient: buyer, actor: nil, service: "banchan", kind: kind ?? "order_\(order.status.rawValue)",
                                                   subjectID: order.id, link: ShopPath.order(order.id), excerpt: order.lines.first?.title))
        } catch {
            logger.warning("a buyer was not told of their order's change", metadata: ["order": "\(order.id)", "error": "\(error)"])
        }
    }
}
