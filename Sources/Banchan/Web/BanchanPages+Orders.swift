import Accounts
import Fluent
import Payments
import Platform
import Plot
import Vapor

/// Placing an order from the cart, the order history, an order's page, paying (test gateway) and cancelling.
extension BanchanPages {
    // MARK: Orders

    /// Places the order checkout describes (the cart's dishes), then leads to paying for it. A new
    /// address asked to be kept is saved once the order is (a full address book does not stop the order).
    func placeOrder(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let form = try req.content.decode(CheckoutForm.self)
        let key = form.idempotencyKey.flatMap { $0.isEmpty || $0.count > 255 ? nil : $0 }
        return try await req.submitForm {
            let delivery = try await deliveryRequest(req, form, owner: owner)
            switch try await req.banchan.placeOrder(nil, for: owner, idempotencyKey: key, delivery: delivery) {
            case .created(let order):
                if owner.userID != nil, form.addressChoice ?? "new" == "new", form.saveAddress == "on" {
                    do { _ = try await req.banchan.saveAddress(delivery.address, of: owner, makeDefault: false) } catch let error as AppError where error.code == "address_limit" {
                        req.logger.info("a checkout's new address was not kept: the address book is full")
                    }
                }
                return Layout.redirect(to: ShopPath.order(order.id))
            case .replayed(let order):
                return Layout.redirect(to: ShopPath.order(order.id))
            }
        } onRuleBroken: { try await checkoutPage(req, owner: owner, form: form, error: $0) }
    }

    /// What the order history shows (the address's cursor is part of the kept page's key).
    private struct OrdersShown: Hashable, Sendable {
        let orders: [BanchanService.Listed]
        let next: String?
        let cartCount: Int
    }

    func orders(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let (orders, next) = try await req.banchan.listedOrders(of: owner, page: try CursorPageRequest(from: req))
        let shown = OrdersShown(orders: orders, next: next, cartCount: try await cartCount(req, owner))
        return ownPage(req, shown: shown) { shown in
            let orders = shown.orders, next = shown.next
            return (req.t("banchan.orders.title"), .ok, shown.cartCount, .group(
                    .h1(.text(req.t("banchan.orders.title"))),
                    orders.isEmpty
                        ? .section(.class("card empty-state"), .p(.text(req.t("banchan.orders.empty"))), .a(.class("button"), .href(ShopPath.home()), .text(req.t("banchan.browse"))))
                        : .ul(.class("order-list"), .forEach(orders) { order in
                            .li(.a(
                                .class("order-card card"), .href(ShopPath.order(order.id)),
                                .span(.class("order-status status-\(order.status.rawValue)"), .text(req.t("banchan.status.\(order.status.rawValue)"))),
                                .span(.class("order-summary"), .text(summary(req, order))),
                                .span(.class("order-total"), .text(req.won(order.total))),
                                .span(.class("muted"), .text(dateText(order.createdAt)))
                            ))
                        }),
                    next.map { .a(.class("button"), .href(ShopPath.orders() + "?cursor=\($0)"), .text(req.t("banchan.orders.older"))) } ?? .empty
            ))
        }
    }

    func summary(_ req: Request, _ order: BanchanService.Listed) -> String {
        guard let first = order.firstTitle else { return "" }
        return order.lineCount == 1 ? first : req.t("banchan.orders.summary", ["title": first, "more": String(order.lineCount - 1)])
    }

    func dateText(_ date: Date?) -> String {
        guard let date else { return "" }
        return PageDates.dotted(date)
    }

    func order(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let service = req.banchan
        let view = try await service.orderView(try req.orderIDParameter(), of: owner)
        if let user = owner.userID { try await service.orderSeen(view.order.id, by: user) }
        return try await orderPage(req, view, owner: owner, error: nil)
    }

    /// Everything an order's page shows; made again only when any of it changed (the order moved,
    /// a refund answered, the cart's count).
    private struct OrderShown: Hashable, Sendable {
        enum Gateway: Hashable, Sendable { case test, provider, none }

        let order: BanchanStore.OrderPageRow
        let refund: Refunds.State?
        let gateway: Gateway
        let cartCount: Int
    }

    func orderPage(_ req: Request, _ view: (order: BanchanStore.OrderPageRow, refund: Refunds.State?), owner: Principal, error: AppError?) async throws -> Response {
        let gateway = req.application.paymentGateway
        let shown = OrderShown(order: view.order, refund: view.refund,
                               gateway: gateway == nil ? .none : gateway is TestPaymentGateway ? .test : .provider,
                               cartCount: try await cartCount(req, owner))
        // A rule broken shows its message once: that page is made, not kept.
        return ownPage(req, shown: shown, keeps: error == nil,
                       scripts: shown.order.status != .delivered && shown.order.status != .cancelled ? ["/js/banchan/order.js"] : []) { shown in
            let order = shown.order
            let id = order.id
            let payment: Node<HTML.BodyContext>
            switch (order.status, shown.gateway) {
            case (.awaitingPayment, .test):
                payment = .form(
                    .action(ShopPath.pay(id)), .method(.post), .class("stack"),
                    Layout.csrfField(req),
                    .p(.class("hint"), .text(req.t("banchan.pay.test_hint"))),
                    .button(.type(.submit), .class("button primary wide"), .id("pay-test"), .text(req.t("banchan.pay.test", ["total": req.won(order.total)])))
                )
            case (.awaitingPayment, .provider):
                payment = .p(.class("notice"), .text(req.t("banchan.pay.in_app", ["merchant": order.merchantUID, "total": req.won(order.total)])))
            case (.awaitingPayment, .none):
                payment = .p(.class("form-error"), .text(req.t("error.payments_unavailable")))
            default:
                payment = .empty
            }
            // `#order-live` is what `order.js` swaps for the page read again when the order moves
            // (on any instance); the note outside it says what changed to screen readers.
            let main: Node<HTML.BodyContext> = .group(
                .h1(.text(req.t("banchan.order.title"))),
                Layout.formError(req, error),
                .p(.class("visually-hidden"), .id("order-live-note"), .attribute(named: "role", value: "status")),
                .div(
                .id("order-live"), .data(named: "status", value: order.status.rawValue), .data(named: "live", value: ShopPath.orderLive(id)),
                .data(named: "refunded-units", value: String(order.refundedUnits)),
                .data(named: "moved", value: req.t("banchan.order.moved")),
                .section(
                    .class("card order-detail"),
                    .div(
                        .class("order-heading"),
                        order.steps.number.map { .p(.class("order-number"), .id("order-number"), .text(req.t("banchan.order.number", ["number": $0]))) } ?? .empty,
                        .p(.span(.class("order-status status-\(order.status.rawValue)"), .id("order-status"), .text(req.t("banchan.status.\(order.status.rawValue)"))))
                    ),
                    Self.progress(req, order.status, order.steps),
                    Self.shipmentNote(req, order.shipment),
                    order.status == .cancelRequested
                        ? .p(.class("notice"), .id("order-cancel-requested"), .text(req.t("banchan.order.cancel_requested_note"))) : .empty,
                    .ul(.class("order-lines"), .forEach(order.lines) { item in
                        .li(.span(.text(item.title)), .span(.class("muted"), .text("\(req.won(item.unitPrice)) × \(item.quantity)")),
                            .strong(.text(req.won(item.unitPrice * item.quantity))),
                            Self.refundedTag(req, item.refundedQuantity, of: item.quantity))
                    }),
                    .dl(
                        .class("totals"),
                        .dt(.text(req.t("banchan.items_total"))), .dd(.text(req.won(order.itemsTotal))),
                        .dt(.text(req.t("banchan.delivery_fee"))), .dd(.text(req.won(order.deliveryFee))),
                        .dt(.class("grand"), .text(req.t("banchan.total"))), .dd(.class("grand"), .id("order-grand-total"), .text(req.won(order.total))),
                        .dt(.text(req.t("banchan.points"))), .dd(.text(req.won(order.points))),
                        order.refundedTotal > 0
                            ? .group(.dt(.text(req.t("banchan.order.refunded_total"))), .dd(.id("order-refunded-total"), .text("−" + req.won(order.refundedTotal))))
                            : .empty
                    ),
                    order.cancelReason.map { .p(.class("muted"), .text(req.t("banchan.order.cancel_reason", ["reason": $0]))) } ?? .empty,
                    shown.refund.map { .p(.class($0 == .pending ? "caution" : "muted"), .id("order-refund"),
                                         .text(req.t(order.status != .cancelled && order.refundedUnits > 0
                                                     ? "banchan.order.line_refund_\($0.rawValue)" : "banchan.order.refund_\($0.rawValue)"))) } ?? .empty,
                    payment,
                    // Cancelling asks first (its own page says what happens to the payment).
                    order.status.canCancel || order.status.canRequestCancel
                        ? .a(.class("button danger wide"), .id("cancel-order"), .href(ShopPath.cancel(id)),
                             .text(req.t(order.status.canCancel ? "banchan.order.cancel" : "banchan.order.request_cancel")))
                        : .empty,
                    order.steps.paidAt != nil
                        ? .a(.class("button wide"), .id("receipt-link"), .href(ShopPath.receipt(id)), .text(req.t("banchan.receipt.title"))) : .empty
                ),
                Self.deliveryCard(req, order.delivery)
                ),
                .a(.class("back-link"), .href(ShopPath.orders()), .text(req.t("banchan.orders.title")))
            )
            return (req.t("banchan.order.title"), error?.status ?? .ok, shown.cartCount, main)
        }
    }

    /// How a shipped order travels: the courier, its 송장번호 and a link to the courier's page
    /// for the parcel (a new tab: the buyer comes back to the order).
    static func shipmentNote(_ req: Request, _ shipment: Shipment?) -> Node<HTML.BodyContext> {
        guard let shipment else { return .empty }
        let courier = req.t("banchan.courier.\(shipment.courier.rawValue)")
        return .p(
            .class("order-shipment"), .id("order-shipment"),
            .span(.text(shipment.trackingNumber.map { courier + " · " + req.t("banchan.shipment.number", ["number": $0]) } ?? courier)),
            shipment.trackingURL.map { url in
                .a(.class("button small"), .id("order-tracking"), .href(url), .target(.blank), .attribute(named: "rel", value: "noopener noreferrer"),
                   .text(req.t("banchan.shipment.track")))
            } ?? .empty
        )
    }

    /// `GET /shop/orders/{id}/live`: a WebSocket that sends `{"status": …}` at once and again
    /// whenever the order moves, on any instance (`BanchanStore.announceMoved`). Only the order's
    /// owner may follow it (404 before any upgrade otherwise, as its page), from a page of this
    /// site (403 `cross_origin_socket` otherwise: the handshake carries the cookie).
    func followOrder(req: Request) async throws -> Response {
        try req.requireSameOriginSocket()
        let owner = try req.browserPrincipal()
        let order = try await req.banchan.order(try req.orderIDParameter(), of: owner)
        let topic = BanchanStore.topic(ofOrder: order.id)
        return try req.liveSocket(feature: "banchan") { req, socket, _ in
            // Subscribe before reading: a move in between is sent after the state, never lost.
            let stream = req.application.events.subscribe(to: topic)
            if let now = try? await req.banchan.order(order.id, of: owner),
               let state = try? JSONEncoder().encode(BanchanStore.Moved(status: now.status, refundedUnits: now.refundedUnits > 0 ? now.refundedUnits : nil)) {
                try? await socket.send(String(decoding: state, as: UTF8.self))
            }
            req.forwardWhileSignedIn(stream, to: socket)
        }
    }

    /// Pays with the test gateway: the page stands in for the provider's payment window, paying
    /// exactly the order's total; the server then checks it as it would a real payment.
    func pay(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let id = try req.orderIDParameter()
        let order = try await req.banchan.order(id, of: owner)
        guard req.application.paymentGateway is TestPaymentGateway else { throw AppError(.serviceUnavailable, "payments_unavailable") }
        return try await req.submitForm {
            _ = try await req.banchan.confirmPayment(TestPaymentGateway.paymentID(merchantUID: order.merchantUID, amount: order.total), for: id, of: owner)
            return Layout.redirect(to: ShopPath.complete(id))
        } onRuleBroken: { try await orderPage(req, try await req.banchan.orderView(id, of: owner), owner: owner, error: $0) }
    }

    /// "2개 환불" beside a line some of whose units the shop refunded ("환불" for all of them).
    static func refundedTag(_ req: Request, _ refunded: Int, of quantity: Int) -> Node<HTML.BodyContext> {
        guard refunded > 0 else { return .empty }
        return .span(.class("badge refunded"), .text(refunded == quantity ? req.t("banchan.order.line_refunded_all")
                                                                            : req.t("banchan.order.line_refunded", ["count": String(refunded)])))
    }

    /// 결제 완료 → 상품 준비 중 → 배송 중 → 배송 완료, each with its time once reached; a cancelled
    /// order's steps end where it was cancelled.
    static func progress(_ req: Request, _ status: OrderStatus, _ steps: BanchanStore.OrderSteps) -> Node<HTML.BodyContext> {
        let path: [(OrderStatus, Date?)] = [(.paid, steps.paidAt), (.preparing, steps.preparingAt), (.shipped, steps.shippedAt), (.delivered, steps.deliveredAt)]
        let reached = path.filter { $0.1 != nil }.count
        var shown = path.enumerated().map { index, step in (step.0, step.1, index < reached) }
        if let cancelled = steps.cancelledAt { shown = shown.filter { $0.2 } + [(.cancelled, cancelled, true)] }
        return .group(
            steps.placedAt.map { .p(.class("muted"), .id("order-placed"), .text(req.t("banchan.order.placed", ["time": PageDates.dotted($0)]))) } ?? .empty,
            .ol(
                .class("order-steps"), .id("order-steps"), .attribute(named: "aria-label", value: req.t("banchan.order.steps")),
                .forEach(shown) { step, time, done in
                    .li(
                        .class(done ? "done step-\(step.rawValue)" : "step-\(step.rawValue)"),
                        .span(.class("step-name"), .text(req.t("banchan.status.\(step.rawValue)"))),
                        time.map { .element(named: "time", nodes: [.datetime(PageDates.machine($0)), .text(PageDates.dotted($0))]) } ?? .empty
                    )
                }
            )
        )
    }

    /// `GET /shop/orders/{id}/cancel`: asks first, saying what happens: cancelled at once (and a
    /// payment refunded) or, while the shop prepares it, a request the shop answers.
    func cancelConfirmation(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let id = try req.orderIDParameter()
        let order = try await req.banchan.orderView(id, of: owner).order
        guard order.status.canCancel || order.status.canRequestCancel else { return Layout.redirect(to: ShopPath.order(id)) }
        let request = order.status.canRequestCancel
        let consequence = request ? req.t("banchan.cancel.request_body")
            : order.status == .paid ? req.t("banchan.cancel.refund", ["total": req.won(order.total)]) : req.t("banchan.cancel.unpaid")
        return page(req, title: req.t("banchan.cancel.title"), cartCount: try await cartCount(req, owner), main: .section(
            .class("card narrow stack"), .ariaLabelledBy("cancel-title"),
            .h1(.id("cancel-title"), .text(req.t("banchan.cancel.title"))),
            order.steps.number.map { .p(.class("muted"), .text(req.t("banchan.order.number", ["number": $0]))) } ?? .empty,
            .p(.id("cancel-consequence"), .text(consequence)),
            .form(
                .action(ShopPath.cancel(id)), .method(.post), .class("stack"),
                Layout.csrfField(req),
                .button(.type(.submit), .class("button danger wide"), .id("confirm-cancel"),
                        .text(req.t(request ? "banchan.cancel.confirm_request" : "banchan.cancel.confirm")))
            ),
            .a(.class("button wide"), .id("keep-order"), .href(ShopPath.order(id)), .text(req.t("banchan.cancel.keep")))
        ))
    }

    func cancel(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let id = try req.orderIDParameter()
        return try await req.submitForm {
            _ = try await req.banchan.cancel(id, of: owner, reason: req.t("banchan.order.cancelled_by_customer"))
            return Layout.redirect(to: ShopPath.order(id))
        } onRuleBroken: { try await orderPage(req, try await req.banchan.orderView(id, of: owner), owner: owner, error: $0) }
    }
}
