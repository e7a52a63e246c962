import Accounts
import Payments
import Platform
import Plot
import Vapor

/// After paying: "주문이 완료됐어요" with the number, when and where it arrives; and the receipt
/// (items, prices, the sale's discount, delivery fee, paid amount, method, time), printable.
extension BanchanPages {
    // MARK: Confirmation and receipt

    /// `GET /shop/orders/{id}/complete`; an order not paid yet goes back to its page to be paid.
    func complete(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let order = try await req.banchan.orderView(try req.orderIDParameter(), of: owner).order
        guard order.steps.paidAt != nil else { return Layout.redirect(to: ShopPath.order(order.id)) }
        let main: Node<HTML.BodyContext> = .section(
            .class("card narrow stack order-complete"), .ariaLabelledBy("complete-title"),
            .p(.class("complete-mark"), .ariaHidden(true), .text("✅")),
            .h1(.id("complete-title"), .text(req.t("banchan.complete.title"))),
            order.steps.number.map { .p(.class("order-number"), .id("order-number"), .text(req.t("banchan.order.number", ["number": $0]))) } ?? .empty,
            order.delivery.map { .p(.id("complete-arrival"), .text(Self.arrival(req, $0))) } ?? .empty,
            .dl(
                .class("about-list"),
                order.delivery.map { delivery in
                    .group(.dt(.text(req.t("banchan.address.recipient"))), .dd(.text(delivery.address.recipient)),
                           .dt(.text(req.t("banchan.checkout.address"))), .dd(.id("complete-address"), .text(delivery.address.line)))
                } ?? .empty,
                .dt(.text(req.t("banchan.receipt.paid"))), .dd(.id("complete-total"), .text(req.won(order.total))),
                .dt(.text(req.t("banchan.checkout.method"))), .dd(.text(Self.methodLabel(req, order)))
            ),
            .a(.class("button primary wide"), .id("complete-order-link"), .href(ShopPath.order(order.id)), .text(req.t("banchan.complete.see_order"))),
            .a(.class("button wide"), .id("complete-receipt-link"), .href(ShopPath.receipt(order.id)), .text(req.t("banchan.receipt.title"))),
            .a(.class("back-link"), .href(ShopPath.home()), .text(req.t("banchan.complete.keep_shopping")))
        )
        return page(req, title: req.t("banchan.complete.title"), cartCount: try await cartCount(req, owner), main: main)
    }

    /// `GET /shop/orders/{id}/receipt`: for a paid order (one not paid yet goes back to its page).
    func receipt(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let view = try await req.banchan.orderView(try req.orderIDParameter(), of: owner)
        let order = view.order
        guard let paidAt = order.steps.paidAt else { return Layout.redirect(to: ShopPath.order(order.id)) }
        let listTotal = order.lines.reduce(0) { $0 + ($1.originalPrice ?? $1.unitPrice) * $1.quantity }
        let discount = listTotal - order.itemsTotal
        let refunded = order.status == .cancelled
        let rows: [Node<HTML.TableContext>] = order.lines.map { line in
            .tr(.td(.text(line.title)), .td(.class("number"), .text(String(line.quantity))),
                .td(.class("number"), .text(req.won(line.originalPrice ?? line.unitPrice))),
                .td(.class("number"), .text(req.won((line.originalPrice ?? line.unitPrice) * line.quantity))))
        }
        let main: Node<HTML.BodyContext> = .group(
            .h1(.text(req.t("banchan.receipt.title"))),
            .section(
                .class("card receipt stack"), .id("receipt"), .ariaLabel(req.t("banchan.receipt.title")),
                .dl(
                    .class("about-list"),
                    .dt(.text(req.t("banchan.receipt.shop"))), .dd(.text(req.t("banchan.receipt.shop_name"))),
                    .dt(.text(req.t("banchan.receipt.number"))), .dd(.id("receipt-number"), .text(order.steps.number ?? order.merchantUID)),
                    .dt(.text(req.t("banchan.receipt.paid_at"))),
                    .dd(.element(named: "time", nodes: [.datetime(PageDates.machine(paidAt)), .text(PageDates.medium(paidAt, req.language))]))
                ),
                .table(
                    .class("receipt-lines"),
                    .caption(.class("visually-hidden"), .text(req.t("banchan.receipt.items"))),
                    .thead(.tr(.th(.text(req.t("banchan.receipt.item"))), .th(.class("number"), .text(req.t("banchan.receipt.quantity"))),
                               .th(.class("number"), .text(req.t("banchan.receipt.unit_price"))), .th(.class("number"), .text(req.t("banchan.receipt.amount"))))),
                    .tbody(.group(rows))
                ),
                .dl(
                    .class("totals"),
                    .dt(.text(req.t("banchan.receipt.list_total"))), .dd(.text(req.won(listTotal))),
                    discount > 0 ? .group(.dt(.text(req.t("banchan.receipt.discount"))), .dd(.id("receipt-discount"), .text("−" + req.won(discount)))) : .empty,
                    .dt(.text(req.t("banchan.delivery_fee"))), .dd(.id("receipt-delivery-fee"), .text(req.won(order.deliveryFee))),
                    .dt(.class("grand"), .text(req.t("banchan.receipt.paid"))), .dd(.class("grand"), .id("receipt-total"), .text(req.won(order.total))),
                    .dt(.text(req.t("banchan.checkout.method"))), .dd(.id("receipt-method"), .text(Self.methodLabel(req, order))),
                    // What the shop gave back of some lines; the payment's rest stands.
                    order.refundedTotal > 0 && !refunded
                        ? .group(.dt(.text(req.t("banchan.order.refunded_total"))), .dd(.id("receipt-line-refunds"), .text("−" + req.won(order.refundedTotal))))
                        : .empty
                ),
                refunded ? .p(.class("caution"), .id("receipt-refund"), .text(req.t(view.refund == .done ? "banchan.receipt.refunded" : "banchan.receipt.refunding"))) : .empty
            ),
            .a(.class("back-link"), .href(ShopPath.order(order.id)), .text(req.t("banchan.complete.see_order")))
        )
        return page(req, title: req.t("banchan.receipt.title"), cartCount: try await cartCount(req, owner), main: main)
    }

    /// "12월 2일 아침 7시 전에 도착해요" or "택배로 1~2일 안에 도착해요".
    static func arrival(_ req: Request, _ delivery: BanchanStore.OrderDelivery) -> String {
        guard delivery.slot == .dawn, let day = delivery.arrivesOn else { return req.t("banchan.complete.parcel_arrival") }
        return req.t("banchan.complete.dawn_arrival", ["date": monthDay(req, day)])
    }

    /// How it was paid: the method chosen at checkout, else the provider (an order from the app).
    static func methodLabel(_ req: Request, _ order: BanchanStore.OrderPageRow) -> String {
        if let method = order.delivery?.paymentMethod { return req.t("banchan.pay_method.\(method.rawValue)") }
        return order.paymentProvider ?? "—"
    }

    /// Where the order goes, on its page: recipient, address, how and when, the courier's note.
    static func deliveryCard(_ req: Request, _ delivery: BanchanStore.OrderDelivery?) -> Node<HTML.BodyContext> {
        guard let delivery else { return .empty }
        return .section(
            .class("card order-delivery"), .ariaLabelledBy("delivery-title"),
            .h2(.id("delivery-title"), .text(req.t("banchan.checkout.address"))),
            .dl(
                .class("about-list"),
                .dt(.text(req.t("banchan.address.recipient"))), .dd(.id("delivery-recipient"), .text("\(delivery.address.recipient) · \(delivery.address.phone)")),
                .dt(.text(req.t("banchan.checkout.address"))), .dd(.id("delivery-address"), .text(delivery.address.line)),
                .dt(.text(req.t("banchan.checkout.slot"))), .dd(.id("delivery-slot"), .text(req.t("banchan.slot.\(delivery.slot.rawValue)") + " · " + arrival(req, delivery))),
                delivery.note.isEmpty ? .empty : .group(.dt(.text(req.t("banchan.checkout.note"))), .dd(.id("delivery-note"), .text(delivery.note)))
            )
        )
    }
}
