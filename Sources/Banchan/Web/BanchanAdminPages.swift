import Accounts
import Fluent
import Foundation
import Payments
import Platform
import Plot
import Vapor

/// The operator's console for the shop's orders (`/admin/orders`, administrators only; others get
/// 404): every order filtered by status and day, one order with its buyer, lines and progress, and
/// the moves its state allows (each written to the audit log).
struct BanchanAdminPages: RouteCollection {
    static let orders: PagePath = "/admin/orders"
    static let order: PagePath1 = "/admin/orders/:order"
    static let orderStatus: PagePath1 = "/admin/orders/:order/status"
    static let orderCancel: PagePath1 = "/admin/orders/:order/cancel"
    static let orderRefund: PagePath1 = "/admin/orders/:order/refund"
    /// Refunds some units of one line (`refundLine`).
    static let orderLineRefund: PagePath1 = "/admin/orders/:order/refunds"
    static let packing: PagePath = "/admin/orders/packing"
    /// A day's orders as a spreadsheet (CSV) for the books and the courier's pickup list.
    static let export: PagePath = "/admin/orders/export"

    /// `yyyy-MM-dd` of today in Korea, as the day filter takes it.
    static func today(_ req: Request) -> String {
        let parts = Calendar.korea.dateComponents([.year, .month, .day], from: req.application.banchanEnvironment.now())
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    func boot(routes: any RoutesBuilder) throws {
        let admin = routes.grouped(AdministratorsOnly())
        admin.get(Self.orders, use: list)
        admin.get(Self.order, use: detail)
        admin.post(Self.orderStatus, use: move)
        admin.get(Self.orderCancel, use: confirmCancel)
        admin.post(Self.orderRefund, use: retryRefund)
        admin.post(Self.orderLineRefund, use: refundLine)
        admin.get(Self.packing, use: packingList)
        admin.get(Self.export, use: exportDay)
    }

    func page(_ req: Request, title: String, status: HTTPResponseStatus = .ok, main: Node<HTML.BodyContext>) -> Response {
        AdminConsole.page(req, tab: .orders, title: title, status: status, stylesheets: [BanchanPages.stylesheet], main: main)
    }

    /// What `page` is made of, for a page kept by what it shows (`Layout.keptPage(_:shown:)`).
    func parts(_ req: Request, title: String, main: Node<HTML.BodyContext>) -> Layout.PageParts {
        AdminConsole.parts(req, tab: .orders, title: title, stylesheets: [BanchanPages.stylesheet], main: main)
    }

    func list(req: Request) async throws -> Response {
        let status = req.query[String.self, at: "status"].flatMap(OrderStatus.init(rawValue:))
        let day = req.query[String.self, at: "day"].flatMap { $0.isEmpty ? nil : $0 }
        let search = req.query[String.self, at: "q"].flatMap { $0.isEmpty ? nil : $0 }
        let (orders, next) = try await req.banchan.allOrders(status: status, day: day, search: search, page: try CursorPageRequest(from: req))
        // A search by name or phone is a look at people's data: recorded.
        if let search { try await req.recordAccess("banchan.orders.search", person: nil, subject: search) }
        // Read every time (and recorded); made again only when the orders listed (or the day) changed.
        let shown = OrdersShown(orders: orders, next: next, today: Self.today(req))
        return Layout.keptPage(req, shown: shown) { shown in
            let orders = shown.orders, next = shown.next
            let filters: Node<HTML.BodyContext> = .form(
                .method(.get), .action(Self.orders()), .class("admin-filters"),
                .label(.for("filter-status"), .text(req.t("admin.orders.status"))),
                // Written out: Plot has no `<select>`; every value and label is escaped.
                .raw(#"<select id="filter-status" name="status">"# + ([("", req.t("admin.orders.any_status"))] + OrderStatus.allCases.map {
                    ($0.rawValue, req.t("banchan.status.\($0.rawValue)"))
                }).map { value, label in
                    #"<option value="\#(Markup.escape(value))"\#(value == (status?.rawValue ?? "") ? " selected" : "")>\#(Markup.escape(label))</option>"#
                }.joined() + "</select>"),
                .label(.for("filter-day"), .text(req.t("admin.orders.day"))),
                .input(.type(.date), .id("filter-day"), .name("day"), .value(day ?? "")),
                .label(.for("filter-q"), .text(req.t("admin.orders.search"))),
                .input(.type(.search), .id("filter-q"), .name("q"), .value(search ?? ""), .attribute(named: "maxlength", value: String(OrderSearch.maxLength)),
                       .attribute(named: "placeholder", value: req.t("admin.orders.search_placeholder"))),
                .button(.type(.submit), .class("button small"), .text(req.t("admin.orders.filter")))
            )
            let query = [status.map { "status=\($0.rawValue)" }, day.map { "day=\($0)" },
                         search.map { "q=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") }]
                .compactMap { $0 }.joined(separator: "&")
            return parts(req, title: req.t("admin.orders.title"), main: .group(
                .div(.class("section-heading"), .h1(.text(req.t("admin.orders.title"))),
                     .div(.class("admin-heading-actions"),
                          .a(.class("button small"), .id("packing-link"), .href(Self.packing() + "?day=" + (day ?? shown.today)), .text(req.t("admin.packing.link"))),
                          .a(.class("button small"), .id("export-link"), .href(Self.export() + "?day=" + (day ?? shown.today)),
                             .attribute(named: "download", value: ""), .text(req.t("admin.orders.export"))))),
                filters,
                orders.isEmpty ? .p(.class("muted"), .id("admin-orders-empty"), .text(req.t("admin.orders.empty"))) : .empty,
                .ol(.class("order-list"), .id("admin-orders"), .forEach(orders) { order in
                    .li(.a(
                        .class("card order-card"), .href(Self.order(order.id)),
                        .span(.class("order-number"), .text(order.steps.number ?? order.merchantUID)),
                        .span(.class("order-status status-\(order.status.rawValue)"), .text(req.t("banchan.status.\(order.status.rawValue)"))),
                        .span(.class("order-summary"), .text(order.lines.first.map { order.lines.count > 1 ? req.t("banchan.orders.summary", ["title": $0.title, "more": String(order.lines.count - 1)]) : $0.title } ?? "")),
                        .span(.class("muted"), .text(order.createdAt.map(PageDates.dotted) ?? "")),
                        .span(.class("order-total"), .text(req.won(order.total)))
                    ))
                }),
                next.map { .a(.class("button wide"), .id("admin-orders-more"), .href(Self.orders() + "?" + (query.isEmpty ? "" : query + "&") + "cursor=\($0)"),
                              .text(req.t("inbox.more"))) } ?? .empty
            ))
        }
    }

    private struct OrdersShown: Hashable, Sendable {
        let orders: [BanchanStore.OrderRow]
        let next: String?
        let today: String
    }

    func detail(req: Request) async throws -> Response {
        try await detailPage(req, error: nil)
    }

    private func detailPage(_ req: Request, error: AppError?, shipForm: MoveForm? = nil, lineRefundForm: LineRefundForm? = nil) async throws -> Response {
        let service = req.banchan
        guard let order = try await service.store.order(try req.orderIDParameter(), ownerKey: nil) else { throw AppError.notFound("order_not_found") }
        // Who receives it and where: recorded as every console view of someone's data is.
        try await req.recordAccess("banchan.order.view", person: order.userID, subject: order.steps.number ?? order.merchantUID)
        var buyer: AccountStore.JoinedPerson?
        if let account = order.userID { buyer = try await AccountStore.person(account, on: req.db) }
        let refund = try await service.refundState(ofOrder: order.id)
        let lineRefunds = order.refundedUnits > 0 ? try await service.lineRefunds(ofOrder: order.id) : []
        let refundsLines = order.paymentID != nil && order.status.operatorCanRefundLine
        // The moves this state allows, in the order an operator takes them.
        let moves = [OrderStatus.preparing, .shipped, .delivered, .cancelled].filter { order.status.canMove(to: $0) }
        let title = order.steps.number.map { req.t("banchan.order.number", ["number": $0]) } ?? req.t("banchan.order.title")
        return page(req, title: title, status: error?.status ?? .ok, main: .group(
            .p(.a(.href(Self.orders()), .text("← " + req.t("admin.orders.title")))),
            .h1(.id("admin-order-title"), .text(title)),
            Layout.formError(req, error),
            .section(
                .class("card order-detail stack"),
                .p(.span(.class("order-status status-\(order.status.rawValue)"), .id("order-status"), .text(req.t("banchan.status.\(order.status.rawValue)")))),
                .p(.id("admin-order-buyer"), .text(req.t("admin.order.buyer", ["buyer": buyer?.nickname ?? req.t("admin.order.no_account")]))),
                BanchanPages.progress(req, order.status, order.steps),
                .ul(.class("order-lines"), .forEach(order.lines) { line in
                    .li(.span(.text(line.title)), .span(.class("muted"), .text("\(req.won(line.unitPrice)) × \(line.quantity)")),
                        .strong(.text(req.won(line.unitPrice * line.quantity))),
                        BanchanPages.refundedTag(req, line.refundedQuantity, of: line.quantity),
                        refundsLines && line.refundedQuantity < line.quantity ? Self.lineRefundForm(req, order, line, form: lineRefundForm) : .empty)
                }),
                .p(.class("order-total"), .text(req.t("banchan.total") + " " + req.won(order.total))),
                order.refundedTotal > 0
                    ? .p(.class("order-total"), .id("admin-refunded-total"), .text(req.t("banchan.order.refunded_total") + " −" + req.won(order.refundedTotal)))
                    : .empty,
                lineRefunds.isEmpty ? .empty : .ol(.class("line-refunds"), .id("admin-line-refunds"), .forEach(lineRefunds) { item in
                    .li(.text(req.t("admin.order.line_refund_entry", [
                        "title": order.lines.first { $0.line == item.refund.line }?.title ?? "", "count": String(item.refund.quantity),
                        "amount": req.won(item.refund.amount), "reason": item.refund.reason, "time": PageDates.dotted(item.refund.refundedAt),
                    ])), .span(.class("badge line-refund-\(item.state.rawValue)"), .text(req.t("admin.order.line_refund_\(item.state.rawValue)"))))
                }),
                order.cancelReason.map { .p(.class("caution"), .id("admin-cancel-reason"), .text(req.t("banchan.order.cancel_reason", ["reason": $0]))) } ?? .empty,
                refund.map { .p(.class("muted"), .id("admin-order-refund"), .text(req.t(Self.refundNote($0, of: order.status, lineRefunds: !lineRefunds.isEmpty)))) } ?? .empty,
                BanchanPages.deliveryCard(req, order.delivery),
                refund == .pending ? .form(
                    .action(Self.orderRefund(order.id)), .method(.post), Layout.csrfField(req),
                    .button(.type(.submit), .class("button wide"), .id("retry-refund"), .text(req.t("admin.order.retry_refund")))
                ) : .empty,
                BanchanPages.shipmentNote(req, order.shipment),
                .div(.class("admin-moves stack"), .forEach(moves) { next in
                    // Cancelling asks first, with the reason the buyer reads; shipping asks how it travels.
                    next == .shipped ? Self.shipForm(req, order, form: shipForm)
                    : next == .cancelled && order.status != .cancelRequested
                        ? .a(.class("button danger wide"), .id("move-cancelled"), .href(Self.orderCancel(order.id)), .text(req.t("admin.order.move.cancelled")))
                        : .form(
                        .action(Self.orderStatus(order.id)), .method(.post),
                        Layout.csrfField(req),
                        .input(.type(.hidden), .name("status"), .value(next.rawValue)),
                        .button(.type(.submit), .class(next == .cancelled ? "button danger wide" : "button primary wide"), .id("move-\(next.rawValue)"),
                                .text(req.t(order.status == .cancelRequested ? "admin.order.answer.\(next.rawValue)" : "admin.order.move.\(next.rawValue)")))
                    )
                })
            )
        ))
    }

    struct MoveForm: Content {
        let status: String?
        /// Why the shop cancels, as the buyer reads it (the default wording when empty).
        let reason: String?
        /// How a shipped order travels (`Courier`'s values) and its 송장번호; the shop's own
        /// delivery has none.
        var courier: String?
        var trackingNumber: String?
    }

    /// 배송 시작: the courier (the shop's own delivery first for a 새벽배송 order, the usual
    /// courier otherwise) and its 송장번호, kept as typed when the form comes back with an error.
    static func shipForm(_ req: Request, _ order: BanchanStore.OrderRow, form: MoveForm?) -> Node<HTML.BodyContext> {
        let preset = form?.courier ?? (order.delivery?.slot == .dawn ? Courier.shop : Courier.cj).rawValue
        return .plainForm(
            .attribute(named: "action", value: orderStatus(order.id)), .attribute(named: "method", value: "post"), .class("stack ship-form"), .id("ship-form"),
            Layout.csrfBodyField(req),
            .input(.type(.hidden), .name("status"), .value(OrderStatus.shipped.rawValue)),
            .div(.class("field"),
                 .label(.for("ship-courier"), .text(req.t("admin.order.courier"))),
                 .selectBox(.id("ship-courier"), .attribute(named: "name", value: "courier"), .forEach(Courier.allCases) { courier in
                     .choice(value: courier.rawValue, selected: preset == courier.rawValue,
                             req.t("banchan.courier.\(courier.rawValue)"))
                 })),
            .div(.class("field"),
                 .label(.for("ship-tracking"), .text(req.t("admin.order.tracking_number"))),
                 .input(.type(.text), .id("ship-tracking"), .name("trackingNumber"), .value(form?.trackingNumber ?? ""),
                        .attribute(named: "inputmode", value: "numeric"), .attribute(named: "autocomplete", value: "off"),
                        .attribute(named: "maxlength", value: "40"), .attribute(named: "aria-describedby", value: "ship-tracking-hint")),
                 .p(.class("hint"), .id("ship-tracking-hint"), .text(req.t("admin.order.tracking_hint")))),
            .button(.type(.submit), .class("button primary wide"), .id("move-shipped"), .text(req.t("admin.order.move.shipped")))
        )
    }

    /// `GET /admin/orders/{id}/cancel`: asks first, with the reason the buyer will read.
    func confirmCancel(req: Request) async throws -> Response {
        guard let order = try await req.banchan.store.order(try req.orderIDParameter(), ownerKey: nil) else { throw AppError.notFound("order_not_found") }
        guard order.status.canMove(to: .cancelled) else { return Layout.redirect(to: Self.order(order.id)) }
        let title = req.t("admin.order.cancel_title", ["number": order.steps.number ?? order.merchantUID])
        return page(req, title: title, main: .section(
            .class("card narrow stack"), .ariaLabelledBy("admin-cancel-title"),
            .h1(.id("admin-cancel-title"), .text(title)),
            .p(.id("admin-cancel-consequence"), .text(req.t(order.paymentID == nil ? "admin.order.cancel_unpaid" : "admin.order.cancel_refund",
                                                            ["total": req.won(order.total)]))),
            .form(
                .action(Self.orderStatus(order.id)), .method(.post), .class("stack"),
                Layout.csrfField(req),
                .input(.type(.hidden), .name("status"), .value(OrderStatus.cancelled.rawValue)),
                .div(.class("field"),
                     .label(.for("cancel-reason"), .text(req.t("admin.order.cancel_reason"))),
                     .input(.type(.text), .id("cancel-reason"), .name("reason"), .value(req.t("banchan.order.cancelled_by_shop")),
                            .attribute(named: "maxlength", value: "200"))),
                .button(.type(.submit), .class("button danger wide"), .id("confirm-cancel"), .text(req.t("admin.order.cancel_confirm")))
            ),
            .a(.class("button wide"), .href(Self.order(order.id)), .text(req.t("admin.order.cancel_keep")))
        ))
    }

    /// The shop's section of a person's console page: their latest orders, each a link to its page.
    @Sendable static func personsOrders(_ req: Request) async throws -> Node<HTML.BodyContext> {
        guard let id = req.parameters.get("user").flatMap(UUID.init(uuidString:)) else { return .empty }
        let (orders, _) = try await req.banchan.orders(of: .user(id), page: CursorPageRequest(limit: personsOrdersShown))
        return .section(
            .class("card stack"), .ariaLabelledBy("person-orders-title"),
            .h2(.id("person-orders-title"), .text(req.t("admin.people.orders"))),
            orders.isEmpty ? .p(.class("muted"), .id("person-orders-empty"), .text(req.t("admin.people.no_orders"))) : .ol(
                .class("order-list"), .id("person-orders"),
                .forEach(orders) { order in
                    .li(.a(
                        .class("order-card"), .href(Self.order(order.id)),
                        .span(.class("order-number"), .text(order.steps.number ?? order.merchantUID)),
                        .span(.class("order-status status-\(order.status.rawValue)"), .text(req.t("banchan.status.\(order.status.rawValue)"))),
                        .span(.class("muted"), .text(order.createdAt.map(PageDates.dotted) ?? "")),
                        .span(.class("order-total"), .text(req.won(order.total)))
                    ))
                }
            )
        )
    }

    static let personsOrdersShown = 20

    /// What the order's page says of its refund: the order's own once it is cancelled; on an order
    /// that stands, its line refunds, or else the refund of a second payment made for it (`payment_duplicate`).
    static func refundNote(_ refund: Refunds.State, of status: OrderStatus, lineRefunds: Bool) -> String {
        if status == .cancelled { return "banchan.order.refund_\(refund.rawValue)" }
        return lineRefunds ? "banchan.order.line_refund_\(refund.rawValue)" : "banchan.order.second_payment_refund_\(refund.rawValue)"
    }

    /// A line refund as the console's form sends it: the line, how many of its units, and why.
    struct LineRefundForm: Content {
        let line: Int?
        let quantity: Int?
        let reason: String?
    }

    /// 부분 환불 under a line: how many of the units it has left (all of them first) and the reason
    /// the buyer reads, folded until opened; kept as typed when it comes back with an error.
    static func lineRefundForm(_ req: Request, _ order: BanchanStore.OrderRow, _ line: BanchanStore.OrderRow.Line,
                               form: LineRefundForm?) -> Node<HTML.BodyContext> {
        let left = line.quantity - line.refundedQuantity
        let typed = form?.line == line.line ? form : nil
        let id = "refund-line-\(line.line)"
        return .element(named: "details", nodes: [
            .class("line-refund"), typed == nil ? .empty : .attribute(named: "open", value: "open"),
            .element(named: "summary", nodes: [.id("\(id)-open"), .text(req.t("admin.order.line_refund"))]),
            .form(
                .action(orderLineRefund(order.id)), .method(.post), .class("stack"), .id("\(id)-form"),
                Layout.csrfField(req),
                .input(.type(.hidden), .name("line"), .value(String(line.line))),
                .div(.class("field"),
                     .label(.for("\(id)-quantity"), .text(req.t("admin.order.line_refund_quantity", ["left": String(left)]))),
                     .input(.type(.number), .id("\(id)-quantity"), .name("quantity"), .value(String(typed?.quantity ?? left)),
                            .attribute(named: "min", value: "1"), .attribute(named: "max", value: String(left)), .attribute(named: "inputmode", value: "numeric"))),
                .div(.class("field"),
                     .label(.for("\(id)-reason"), .text(req.t("admin.order.line_refund_reason"))),
                     .input(.type(.text), .id("\(id)-reason"), .name("reason"), .value(typed?.reason ?? req.t("banchan.order.line_refunded_by_shop")),
                            .attribute(named: "maxlength", value: "200"))),
                .p(.class("hint"), .text(req.t(order.status.notShipped ? "admin.order.line_refund_restock" : "admin.order.line_refund_shipped",
                                                ["amount": req.won(line.unitPrice)]))),
                .button(.type(.submit), .class("button danger wide"), .id(id), .text(req.t("admin.order.line_refund_confirm")))
            ),
        ])
    }

    func refundLine(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let id = try req.orderIDParameter()
        return try await req.submitForm {
            let form = try req.content.decode(LineRefundForm.self)
            guard let line = form.line else { throw AppError.badRequest("invalid_field", ["field": "line"]) }
            let typed = String((form.reason ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(200))
            _ = try await req.banchan.refundLine(of: id, line: line, quantity: form.quantity,
                                                 reason: typed.isEmpty ? req.t("banchan.order.line_refunded_by_shop") : typed, by: admin.id)
            return Layout.redirect(to: Self.order(id))
        } onRuleBroken: { try await detailPage(req, error: $0, lineRefundForm: try? req.content.decode(LineRefundForm.self)) }
    }

    func retryRefund(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let id = try req.orderIDParameter()
        return try await req.submitForm {
            _ = try await req.banchan.retryRefund(ofOrder: id, by: admin.id)
            return Layout.redirect(to: Self.order(id))
        } onRuleBroken: { try await detailPage(req, error: $0) }
    }

    func move(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let id = try req.orderIDParameter()
        return try await req.submitForm {
            let form = try req.content.decode(MoveForm.self)
            guard let next = form.status.flatMap(OrderStatus.init(rawValue:)) else {
                throw AppError.badRequest("invalid_field", ["field": "status"])
            }
            // The buyer reads the reason on their order's page: the operator's words, else the
            // default wording in the operator's language (not the API's English default).
            let typed = String((form.reason ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(200))
            _ = try await req.banchan.advance(id, to: next, by: admin.id, reason: typed.isEmpty ? req.t("banchan.order.cancelled_by_shop") : typed,
                                              courier: form.courier, trackingNumber: form.trackingNumber)
            return Layout.redirect(to: Self.order(id))
        } onRuleBroken: { try await detailPage(req, error: $0, shipForm: try? req.content.decode(MoveForm.self)) }
    }
}
