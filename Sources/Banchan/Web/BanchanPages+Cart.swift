import Accounts
import Fluent
import Payments
import Platform
import Plot
import Vapor

/// The cart page: add from a dish page, change quantities, remove, totals with the delivery fee.
extension BanchanPages {
    // MARK: Cart

    /// An emptied quantity adds the dish's smallest quantity, as a form without one does.
    struct AddForm: Content { package var hash: String?; @FormNumber package var quantity: Int? }

    /// "담기" adds to what is already in the cart, within the dish's limits and its stock.
    func addToCart(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let form = try req.content.decode(AddForm.self)
        let shop = req.banchan
        let row = try await shop.dish(hash: form.hash ?? "")
        let quantity = form.quantity ?? row.minQuantity
        let already = try await shop.cart(of: owner).first { $0.dish.hash == row.hash }?.quantity ?? 0
        return try await req.submitForm {
            // Range-check the number from the form before adding: `already + quantity` with an
            // unchecked Int could overflow, and an overflow stops the process.
            do { try OrderRules.check(quantity: quantity, of: row.dish, stock: .max) } catch let problem as QuantityProblem {
                throw BanchanService.appError(problem, title: row.title)
            }
            try await shop.setCartQuantity(already + quantity, of: row.hash, for: owner)
            return Layout.redirect(to: ShopPath.cart() + "?added=\(row.hash)")
        } onRuleBroken: { error in
            page(req, title: row.title, status: error.status, scripts: ["/js/banchan/detail.js"],
                 cartCount: try await cartCount(req, owner), main: dishView(req, row.dish, stock: row.stock, quantity: quantity, error: error))
        }
    }

    func cart(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        return try await cartPage(req, owner: owner, error: nil)
    }

    /// Everything the cart page shows; it is made again only when any of it changed.
    private struct CartShown: Hashable, Sendable {
        let lines: [ShopLine]
        let totals: OrderTotals
        let rule: DeliveryFeeRule
        let ordersOpen: Bool
    }

    func cartPage(_ req: Request, owner: Principal, error: AppError?) async throws -> Response {
        let shop = req.banchan
        let lines = try await shop.cart(of: owner)
        let shown = CartShown(lines: lines, totals: shop.totals(of: lines), rule: req.application.deliveryFeeRule,
                              ordersOpen: req.application.paymentGateway != nil)
        // A rule broken shows its message once: that page is made, not kept.
        return ownPage(req, shown: shown, keeps: error == nil) { shown in
            let lines = shown.lines, totals = shown.totals, rule = shown.rule
            let added = (req.query[String.self, at: "added"]).flatMap { hash in lines.first { $0.dish.hash == hash }?.dish.title }
            let main: Node<HTML.BodyContext> = .group(
                .h1(.text(req.t("banchan.cart.title"))),
                added.map { .p(.class("notice"), .role("status"), .text(req.t("banchan.cart.added", ["title": $0]))) } ?? .empty,
                Layout.formError(req, error),
                lines.isEmpty
                    ? .section(.class("card empty-state"), .p(.text(req.t("banchan.cart.empty"))), .a(.class("button"), .href(ShopPath.home()), .text(req.t("banchan.browse"))))
                    : .group(
                        .ul(.class("cart-lines card"), .forEach(lines) { cartLine(req, $0) }),
                        .section(
                            .class("card totals"), .attribute(named: "aria-label", value: req.t("banchan.cart.totals")),
                            .dl(
                                .dt(.text(req.t("banchan.items_total"))), .dd(.id("items-total"), .text(req.won(totals.itemsTotal))),
                                .dt(.text(req.t("banchan.delivery_fee"))), .dd(.id("cart-delivery-fee"), .text(req.won(totals.deliveryFee))),
                                .dt(.class("grand"), .text(req.t("banchan.total"))), .dd(.class("grand"), .id("cart-total"), .text(req.won(totals.total)))
                            ),
                            totals.deliveryFee > 0
                                ? .p(.class("hint"), .text(req.t("banchan.cart.free_delivery_gap", ["gap": req.won(rule.freeFrom - totals.itemsTotal)])))
                                : .empty,
                            !shown.ordersOpen
                                ? .p(.class("notice"), .id("orders-closed"), .role("status"), .text(req.t("error.orders_closed")))
                                : .a(.class("button primary wide"), .id("to-checkout"), .href(ShopPath.checkout()),
                                     .text(req.t("banchan.cart.order", ["total": req.won(totals.total)])))
                        ),
                        .a(.class("button wide"), .id("keep-shopping"), .href(ShopPath.home()), .text(req.t("banchan.cart.keep_shopping")))
                    )
            )
            return (req.t("banchan.cart.title"), error?.status ?? .ok, lines.reduce(0) { $0 + $1.quantity }, main)
        }
    }

    func cartLine(_ req: Request, _ line: ShopLine) -> Node<HTML.ListContext> {
        let dish = line.dish
        let limit = min(dish.maxQuantity, line.stock)
        let lineText = req.t("banchan.cart.line", ["price": req.won(dish.salePrice), "quantity": String(line.quantity),
                                                   "subtotal": req.won(dish.salePrice * line.quantity)])
        let quantityInput: Node<HTML.FormContext> = .selfClosedElement(named: "input", attributes: [
            .id("qty-\(dish.hash)"), .name("quantity"), .type(.number), .value(String(line.quantity)),
            .attribute(named: "min", value: String(dish.minQuantity)), .attribute(named: "max", value: String(max(limit, dish.minQuantity))),
        ])
        let change: Node<HTML.BodyContext> = .form(
            .action(ShopPath.item(dish.hash)), .method(.post), .class("inline-quantity"),
            Layout.csrfField(req),
            .label(.for("qty-\(dish.hash)"), .class("visually-hidden"), .text(req.t("banchan.quantity_of", ["title": dish.title]))),
            quantityInput,
            .button(.type(.submit), .class("button small"), .text(req.t("banchan.cart.change")))
        )
        let remove: Node<HTML.BodyContext> = .form(
            .action(ShopPath.removeItem(dish.hash)), .method(.post), .class("inline-form"),
            Layout.csrfField(req),
            .button(.type(.submit), .class("link-button"), .ariaLabel(req.t("banchan.cart.remove_of", ["title": dish.title])),
                    .text(req.t("banchan.cart.remove")))
        )
        let info: Node<HTML.BodyContext> = .div(
            .class("cart-line-info"),
            .a(.class("dish-title"), .href(ShopPath.dish(dish.hash)), .text(dish.title)),
            .p(.class("muted"), .text(lineText)),
            change,
            remove
        )
        return .li(.class("cart-line"), .data(named: "hash", value: dish.hash),
                   .img(.src(Self.images.main(dish.hash)), .alt(""), .width(72), .height(72)), info)
    }

    struct QuantityForm: Content { @FormNumber package var quantity: Int? }

    func changeCartItem(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let quantity = try req.content.decode(QuantityForm.self).quantity
        return try await req.submitForm {
            guard let quantity else { throw AppError.invalid("empty_number", ["field": req.t("banchan.quantity")]) }
            try await req.banchan.setCartQuantity(quantity, of: req.parameters.get("hash") ?? "", for: owner)
            return Layout.redirect(to: ShopPath.cart())
        } onRuleBroken: { try await cartPage(req, owner: owner, error: $0) }
    }

    func removeCartItem(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        try await req.banchan.removeFromCart(req.parameters.get("hash") ?? "", for: owner)
        return Layout.redirect(to: ShopPath.cart())
    }
}
