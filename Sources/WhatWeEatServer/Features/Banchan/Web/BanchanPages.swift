import Fluent
import Plot
import Vapor

/// The shop in the browser (the 배민찬 app's screens): the three sections, a dish's page with
/// paging thumbnails and a quantity stepper, the cart, checkout and order history.
/// Forms work without scripts; `Public/js/banchan/` adds the stepper's live total, thumbnail
/// dots and the section counts.
struct BanchanPages: RouteCollection {
    static let stylesheet = "/css/banchan.css"

    func boot(routes: any RoutesBuilder) throws {
        let shop = routes.grouped("shop")
        shop.get(use: home)
        shop.get("dishes", ":hash", use: dish)
        shop.get("cart", use: cart)
        shop.post("cart", use: addToCart)
        shop.post("cart", ":hash", use: changeCartItem)
        shop.post("cart", ":hash", "remove", use: removeCartItem)
        shop.post("orders", use: placeOrder)
        shop.get("orders", use: orders)
        shop.get("orders", ":order", use: order)
        shop.post("orders", ":order", "pay", use: pay)
        shop.post("orders", ":order", "cancel", use: cancel)
    }

    // MARK: Frame

    /// The delivery fee rule in the reader's language (the app's routes keep the Korean original).
    static func feeRule(_ req: Request) -> String {
        let rule = req.application.deliveryFeeRule
        return req.t("banchan.fee_rule", ["fee": Won.format(rule.fee), "free": Won.format(rule.freeFrom)])
    }

    private func extras(_ req: Request, scripts: [String] = [], cartCount: Int?) -> PageExtras {
        PageExtras(
            stylesheets: [Self.stylesheet], scripts: scripts, bodyClass: "shop",
            headerLinks: .a(
                .class("cart-link"), .href("/shop/cart"), .ariaLabel(req.t("banchan.cart.title")),
                .span(.ariaHidden(true), .text("🛒")),
                cartCount.map { $0 > 0 ? .span(.class("cart-count"), .text(String($0))) : .empty } ?? .empty
            )
        )
    }

    /// Artwork as paths, so pages load it from whatever address the browser used.
    static let images = BanchanImages.URLs(publicURL: "")

    private func page(_ req: Request, title: String, status: HTTPResponseStatus = .ok, scripts: [String] = [],
                      cartCount: Int?, main: Node<HTML.BodyContext>) -> Response {
        Layout.page(req, title: title, status: status, extras: extras(req, scripts: scripts, cartCount: cartCount), main: main)
    }

    private func cartCount(_ req: Request, _ owner: Principal) async throws -> Int {
        try await req.banchan.cart(of: owner).reduce(0) { $0 + $1.quantity }
    }

    // MARK: Sections

    func home(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let shop = req.banchan
        var sections: [Node<HTML.BodyContext>] = []
        for section in DishSection.allCases {
            let dishes = shop.dishes(in: section)
            sections.append(sectionView(req, section, dishes))
        }
        return page(
            req, title: req.t("banchan.title"), scripts: ["/js/banchan/sections.js"], cartCount: try await cartCount(req, owner),
            main: .group(
                .section(
                    .class("shop-hero"),
                    .h1(.text(req.t("banchan.title"))),
                    .p(.class("lead"), .text(req.t("banchan.lead", ["fee": Self.feeRule(req)])))
                ),
                .group(sections),
                .p(.class("section-toast"), .id("section-toast"), .attribute(named: "role", value: "status"))
            )
        )
    }

    private func sectionView(_ req: Request, _ section: DishSection, _ dishes: [BanchanListings.Listing]) -> Node<HTML.BodyContext> {
        let name = req.t("banchan.section.\(section.rawValue)")
        return .section(
            .class("dish-section"), .id("section-\(section.rawValue)"), .attribute(named: "aria-labelledby", value: "heading-\(section.rawValue)"),
            .h2(
                .id("heading-\(section.rawValue)"),
                .button(
                    .type(.button), .class("section-header"), .attribute(named: "aria-expanded", value: "false"),
                    .attribute(named: "aria-controls", value: "count-\(section.rawValue)"),
                    .data(named: "count-text", value: req.t("banchan.section.count", ["section": name, "count": String(dishes.count)])),
                    .span(.text(name)),
                    .span(.class("section-count"), .id("count-\(section.rawValue)"), .hidden(true), .text(req.t("banchan.section.badge", ["count": String(dishes.count)])))
                )
            ),
            .ul(.class("dish-list"), .forEach(dishes) { .li(dishCard(req, $0)) })
        )
    }

    private func dishCard(_ req: Request, _ listing: BanchanListings.Listing) -> Node<HTML.BodyContext> {
        let dish = listing.dish
        let soldOut = listing.isSoldOut
        // The title's link covers the whole card (see .dish-card a::after in banchan.css).
        return .div(
            .class(soldOut ? "dish-card sold-out" : "dish-card"),
            .img(.src(Self.images.main(dish.hash)), .alt(""), .width(112), .height(112), .attribute(named: "loading", value: "lazy")),
            .div(
                .class("dish-info"),
                .a(.class("dish-title"), .href("/shop/dishes/\(dish.hash)"), .text(dish.title)),
                .span(.class("dish-description"), .text(dish.description)),
                priceView(req, dish),
                .div(
                    .class("chips"),
                    .forEach(dish.badges) { .span(.class("badge badge-\($0.code)"), .text(req.t("banchan.badge.\($0.code)"))) },
                    soldOut ? .span(.class("badge badge-soldout"), .text(req.t("banchan.sold_out"))) : .empty
                )
            )
        )
    }

    private func priceView(_ req: Request, _ dish: Dish) -> Node<HTML.BodyContext> {
        .p(
            .class("prices"),
            .strong(.class("sale-price"), .text(Won.format(dish.salePrice))),
            dish.isDiscounted
                ? .element(named: "del", nodes: [.class("original-price"),
                                                  .span(.class("visually-hidden"), .text(req.t("banchan.original_price") + " ")),
                                                  .text(Won.format(dish.originalPrice!))])
                : .empty
        )
    }

    // MARK: A dish

    func dish(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let record = try await req.banchan.dish(hash: req.parameters.get("hash") ?? "")
        return page(req, title: record.title, scripts: ["/js/banchan/detail.js"], cartCount: try await cartCount(req, owner),
                    main: dishView(req, record, quantity: record.dish.minQuantity, error: nil))
    }

    private func dishView(_ req: Request, _ record: DishRecord, quantity: Int, error: AppError?) -> Node<HTML.BodyContext> {
        let dish = record.dish
        let urls = Self.images
        let thumbs = urls.thumbs(dish)
        let limit = min(dish.maxQuantity, record.stock)
        let soldOut = record.stock < dish.minQuantity
        return .group(
            .section(
                .class("gallery"), .attribute(named: "aria-label", value: req.t("banchan.gallery")),
                .div(
                    .class("thumbs"), .id("thumbs"), .attribute(named: "tabindex", value: "0"),
                    .forEach(Array(thumbs.enumerated())) { index, url in
                        .img(.src(url), .alt(req.t("banchan.thumb_alt", ["title": dish.title, "n": String(index + 1), "total": String(thumbs.count)])),
                             .width(600), .height(600))
                    }
                ),
                .ol(.class("thumb-dots"), .attribute(named: "aria-hidden", value: "true"),
                    .forEach(thumbs.indices) { index in .li(.class(index == 0 ? "current" : "")) })
            ),
            .section(
                .class("card dish-detail"), .attribute(named: "aria-labelledby", value: "dish-title"),
                .div(.class("chips"), .forEach(dish.badges) { .span(.class("badge badge-\($0.code)"), .text(req.t("banchan.badge.\($0.code)"))) }),
                .h1(.id("dish-title"), .text(dish.title)),
                .p(.class("lead"), .text(dish.description)),
                priceView(req, dish),
                .dl(
                    .class("dish-facts"),
                    .dt(.text(req.t("banchan.points"))), .dd(.text(req.t("banchan.points_value", ["points": Won.format(dish.pointsPerUnit), "rate": String(dish.pointRate)]))),
                    .dt(.text(req.t("banchan.delivery"))), .dd(.text(dish.deliveryTypes.map { req.t("banchan.delivery_type.\($0.code)") }.joined(separator: " · "))),
                    .dt(.text(req.t("banchan.delivery_info"))), .dd(.text(dish.deliveryInfo)),
                    .dt(.text(req.t("banchan.delivery_fee"))), .dd(.id("delivery-fee"), .text(Self.feeRule(req))),
                    .dt(.text(req.t("banchan.weight"))), .dd(.text(dish.weight)),
                    .dt(.text(req.t("banchan.ingredients"))), .dd(.text(dish.ingredients)),
                    .dt(.text(req.t("banchan.storage"))), .dd(.text(dish.storage))
                ),
                Layout.formError(error.map { req.t($0.messageKey, $0.arguments) }),
                soldOut
                    ? .p(.class("notice sold-out-notice"), .text(req.t("banchan.sold_out_long")))
                    : .form(
                        .action("/shop/cart"), .method(.post), .class("order-form"), .id("order-form"),
                        .data(named: "price", value: String(dish.salePrice)),
                        Layout.csrfField(req),
                        .input(.type(.hidden), .name("hash"), .value(dish.hash)),
                        .div(
                            .class("stepper"), .attribute(named: "role", value: "group"), .attribute(named: "aria-labelledby", value: "quantity-label"),
                            .label(.id("quantity-label"), .for("quantity"), .text(req.t("banchan.quantity"))),
                            .button(.type(.button), .class("step step-down"), .id("quantity-down"), .ariaLabel(req.t("banchan.decrease")), .text("−")),
                            .selfClosedElement(named: "input", attributes: [
                                .id("quantity"), .name("quantity"), .type(.number), .value(String(min(max(quantity, dish.minQuantity), limit))),
                                .attribute(named: "min", value: String(dish.minQuantity)), .attribute(named: "max", value: String(limit)),
                                .attribute(named: "inputmode", value: "numeric"), .attribute(named: "aria-describedby", value: "quantity-limits"),
                            ]),
                            .button(.type(.button), .class("step step-up"), .id("quantity-up"), .ariaLabel(req.t("banchan.increase")), .text("+"))
                        ),
                        .p(.class("hint"), .id("quantity-limits"),
                           .text(req.t("banchan.quantity_limits", ["min": String(dish.minQuantity), "max": String(limit), "stock": String(record.stock)]))),
                        .p(.class("order-total"), .span(.text(req.t("banchan.total") + " ")),
                           .strong(.id("order-total"), .attribute(named: "aria-live", value: "polite"),
                                   .text(Won.format(dish.salePrice * min(max(quantity, dish.minQuantity), limit))))),
                        .button(.type(.submit), .class("button primary wide"), .id("add-to-cart"), .text(req.t("banchan.add_to_cart")))
                    )
            ),
            .section(
                .class("detail-images"), .attribute(named: "aria-label", value: req.t("banchan.details")),
                .forEach(Array(zip(urls.details(dish), dish.detailSections))) { url, text in
                    .img(.src(url), .alt(text), .width(720), .attribute(named: "loading", value: "lazy"))
                }
            )
        )
    }

    // MARK: Cart

    struct AddForm: Content { var hash: String?; var quantity: Int? }

    /// "담기" adds to what is already in the cart, within the dish's limits and its stock.
    func addToCart(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let form = try req.content.decode(AddForm.self)
        let shop = req.banchan
        let record = try await shop.dish(hash: form.hash ?? "")
        let quantity = form.quantity ?? record.minQuantity
        let already = try await shop.cart(of: owner).first { $0.dish.hash == record.hash }?.quantity ?? 0
        do {
            // Range-check the number from the form before adding: `already + quantity` with an
            // unchecked Int could overflow, and an overflow stops the process.
            do { try OrderRules.check(quantity: quantity, of: record.dish, stock: .max) } catch {
                throw BanchanService.appError(error, title: record.title)
            }
            try await shop.setCartQuantity(already + quantity, of: record.hash, for: owner)
        } catch let error as AppError where error.status.code < 500 {
            return page(req, title: record.title, status: error.status, scripts: ["/js/banchan/detail.js"],
                        cartCount: try await cartCount(req, owner), main: dishView(req, record, quantity: quantity, error: error))
        }
        let response = Layout.redirect(to: "/shop/cart?added=\(record.hash)")
        return response
    }

    func cart(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        return try await cartPage(req, owner: owner, error: nil)
    }

    private func cartPage(_ req: Request, owner: Principal, error: AppError?) async throws -> Response {
        let shop = req.banchan
        let lines = try await shop.cart(of: owner)
        let totals = shop.totals(of: lines)
        let added = (req.query[String.self, at: "added"]).flatMap { hash in lines.first { $0.dish.hash == hash }?.dish.title }
        let rule = req.application.deliveryFeeRule
        let main: Node<HTML.BodyContext> = .group(
            .h1(.text(req.t("banchan.cart.title"))),
            added.map { .p(.class("notice"), .attribute(named: "role", value: "status"), .text(req.t("banchan.cart.added", ["title": $0]))) } ?? .empty,
            Layout.formError(error.map { req.t($0.messageKey, $0.arguments) }),
            lines.isEmpty
                ? .section(.class("card empty-state"), .p(.text(req.t("banchan.cart.empty"))), .a(.class("button"), .href("/shop"), .text(req.t("banchan.browse"))))
                : .group(
                    .ul(.class("cart-lines card"), .forEach(lines) { cartLine(req, $0) }),
                    .section(
                        .class("card totals"), .attribute(named: "aria-label", value: req.t("banchan.cart.totals")),
                        .dl(
                            .dt(.text(req.t("banchan.items_total"))), .dd(.id("items-total"), .text(Won.format(totals.itemsTotal))),
                            .dt(.text(req.t("banchan.delivery_fee"))), .dd(.id("cart-delivery-fee"), .text(Won.format(totals.deliveryFee))),
                            .dt(.class("grand"), .text(req.t("banchan.total"))), .dd(.class("grand"), .id("cart-total"), .text(Won.format(totals.total)))
                        ),
                        totals.deliveryFee > 0
                            ? .p(.class("hint"), .text(req.t("banchan.cart.free_delivery_gap", ["gap": Won.format(rule.freeFrom - totals.itemsTotal)])))
                            : .empty,
                        .form(
                            .action("/shop/orders"), .method(.post),
                            Layout.csrfField(req),
                            // One key per cart page shown: a double tap or a retried submit orders once.
                            .input(.type(.hidden), .name("idempotencyKey"), .value(SecureRandom.token(bytes: 16))),
                            .button(.type(.submit), .class("button primary wide"), .id("place-order"),
                                    .text(req.t("banchan.cart.order", ["total": Won.format(totals.total)])))
                        )
                    )
                )
        )
        return page(req, title: req.t("banchan.cart.title"), status: error?.status ?? .ok, cartCount: lines.reduce(0) { $0 + $1.quantity }, main: main)
    }

    private func cartLine(_ req: Request, _ line: ShopLine) -> Node<HTML.ListContext> {
        let dish = line.dish.dish
        let limit = min(dish.maxQuantity, line.dish.stock)
        let lineText = req.t("banchan.cart.line", ["price": Won.format(dish.salePrice), "quantity": String(line.quantity),
                                                   "subtotal": Won.format(dish.salePrice * line.quantity)])
        let quantityInput: Node<HTML.FormContext> = .selfClosedElement(named: "input", attributes: [
            .id("qty-\(dish.hash)"), .name("quantity"), .type(.number), .value(String(line.quantity)),
            .attribute(named: "min", value: String(dish.minQuantity)), .attribute(named: "max", value: String(max(limit, dish.minQuantity))),
        ])
        let change: Node<HTML.BodyContext> = .form(
            .action("/shop/cart/\(dish.hash)"), .method(.post), .class("inline-quantity"),
            Layout.csrfField(req),
            .label(.for("qty-\(dish.hash)"), .class("visually-hidden"), .text(req.t("banchan.quantity_of", ["title": dish.title]))),
            quantityInput,
            .button(.type(.submit), .class("button small"), .text(req.t("banchan.cart.change")))
        )
        let remove: Node<HTML.BodyContext> = .form(
            .action("/shop/cart/\(dish.hash)/remove"), .method(.post), .class("inline-form"),
            Layout.csrfField(req),
            .button(.type(.submit), .class("link-button"), .ariaLabel(req.t("banchan.cart.remove_of", ["title": dish.title])),
                    .text(req.t("banchan.cart.remove")))
        )
        let info: Node<HTML.BodyContext> = .div(
            .class("cart-line-info"),
            .a(.class("dish-title"), .href("/shop/dishes/\(dish.hash)"), .text(dish.title)),
            .p(.class("muted"), .text(lineText)),
            change,
            remove
        )
        return .li(.class("cart-line"), .data(named: "hash", value: dish.hash),
                   .img(.src(Self.images.main(dish.hash)), .alt(""), .width(72), .height(72)), info)
    }

    struct QuantityForm: Content { var quantity: Int? }

    func changeCartItem(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let quantity = try req.content.decode(QuantityForm.self).quantity ?? 0
        do {
            try await req.banchan.setCartQuantity(quantity, of: req.parameters.get("hash") ?? "", for: owner)
        } catch let error as AppError where error.status.code < 500 {
            return try await cartPage(req, owner: owner, error: error)
        }
        return Layout.redirect(to: "/shop/cart")
    }

    func removeCartItem(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        try await req.banchan.removeFromCart(req.parameters.get("hash") ?? "", for: owner)
        return Layout.redirect(to: "/shop/cart")
    }

    // MARK: Orders

    struct PlaceForm: Content { var idempotencyKey: String? }

    func placeOrder(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let key = try req.content.decode(PlaceForm.self).idempotencyKey.flatMap { $0.isEmpty || $0.count > 255 ? nil : $0 }
        do {
            switch try await req.banchan.placeOrder(nil, for: owner, idempotencyKey: key) {
            case .created(let order), .replayed(let order):
                return Layout.redirect(to: "/shop/orders/\(try order.requireID())")
            }
        } catch let error as AppError where error.status.code < 500 {
            return try await cartPage(req, owner: owner, error: error)
        }
    }

    func orders(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let (orders, next) = try await req.banchan.orders(of: owner, page: try PageRequest(from: req))
        return page(
            req, title: req.t("banchan.orders.title"), cartCount: try await cartCount(req, owner),
            main: .group(
                .h1(.text(req.t("banchan.orders.title"))),
                orders.isEmpty
                    ? .section(.class("card empty-state"), .p(.text(req.t("banchan.orders.empty"))), .a(.class("button"), .href("/shop"), .text(req.t("banchan.browse"))))
                    : .ul(.class("order-list"), .forEach(orders) { order in
                        .li(.a(
                            .class("order-card card"), .href("/shop/orders/\(order.id?.uuidString ?? "")"),
                            .span(.class("order-status status-\(order.status.rawValue)"), .text(req.t("banchan.status.\(order.status.rawValue)"))),
                            .span(.class("order-summary"), .text(summary(req, order))),
                            .span(.class("order-total"), .text(Won.format(order.total))),
                            .span(.class("muted"), .text(dateText(order.createdAt)))
                        ))
                    }),
                next.map { .a(.class("button"), .href("/shop/orders?cursor=\($0)"), .text(req.t("banchan.orders.older"))) } ?? .empty
            )
        )
    }

    private func summary(_ req: Request, _ order: BanchanOrder) -> String {
        let items = order.lines
        guard let first = items.first else { return "" }
        return items.count == 1 ? first.title : req.t("banchan.orders.summary", ["title": first.title, "more": String(items.count - 1)])
    }

    private func dateText(_ date: Date?) -> String {
        guard let date else { return "" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "ko_KR")
        formatter.timeZone = TimeZone(identifier: "Asia/Seoul")
        formatter.dateFormat = "yyyy.MM.dd HH:mm"
        return formatter.string(from: date)
    }

    func order(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let order = try await req.banchan.order(try req.orderIDParameter(), of: owner)
        return try await orderPage(req, order, owner: owner, error: nil)
    }

    private func orderPage(_ req: Request, _ order: BanchanOrder, owner: Principal, error: AppError?) async throws -> Response {
        let id = try order.requireID()
        let gateway = req.application.paymentGateway
        let payment: Node<HTML.BodyContext>
        switch (order.status, gateway) {
        case (.awaitingPayment, let gateway?) where gateway is TestPaymentGateway:
            payment = .form(
                .action("/shop/orders/\(id)/pay"), .method(.post), .class("stack"),
                Layout.csrfField(req),
                .p(.class("hint"), .text(req.t("banchan.pay.test_hint"))),
                .button(.type(.submit), .class("button primary wide"), .id("pay-test"), .text(req.t("banchan.pay.test", ["total": Won.format(order.total)])))
            )
        case (.awaitingPayment, .some):
            payment = .p(.class("notice"), .text(req.t("banchan.pay.in_app", ["merchant": order.merchantUID, "total": Won.format(order.total)])))
        case (.awaitingPayment, nil):
            payment = .p(.class("form-error"), .text(req.t("error.payments_unavailable")))
        default:
            payment = .empty
        }
        let main: Node<HTML.BodyContext> = .group(
            .h1(.text(req.t("banchan.order.title"))),
            Layout.formError(error.map { req.t($0.messageKey, $0.arguments) }),
            .section(
                .class("card order-detail"),
                .p(.span(.class("order-status status-\(order.status.rawValue)"), .id("order-status"), .text(req.t("banchan.status.\(order.status.rawValue)")))),
                .ul(.class("order-lines"), .forEach(order.lines) { item in
                    .li(.span(.text(item.title)), .span(.class("muted"), .text("\(Won.format(item.unitPrice)) × \(item.quantity)")),
                        .strong(.text(Won.format(item.unitPrice * item.quantity))))
                }),
                .dl(
                    .class("totals"),
                    .dt(.text(req.t("banchan.items_total"))), .dd(.text(Won.format(order.itemsTotal))),
                    .dt(.text(req.t("banchan.delivery_fee"))), .dd(.text(Won.format(order.deliveryFee))),
                    .dt(.class("grand"), .text(req.t("banchan.total"))), .dd(.class("grand"), .id("order-grand-total"), .text(Won.format(order.total))),
                    .dt(.text(req.t("banchan.points"))), .dd(.text(Won.format(order.points)))
                ),
                order.cancelReason.map { .p(.class("muted"), .text(req.t("banchan.order.cancel_reason", ["reason": $0]))) } ?? .empty,
                payment,
                order.status.canCancel
                    ? .form(
                        .action("/shop/orders/\(id)/cancel"), .method(.post),
                        Layout.csrfField(req),
                        .button(.type(.submit), .class("button danger wide"), .id("cancel-order"), .text(req.t("banchan.order.cancel")))
                    )
                    : .empty
            ),
            .p(.a(.href("/shop/orders"), .text(req.t("banchan.orders.title"))))
        )
        return page(req, title: req.t("banchan.order.title"), status: error?.status ?? .ok,
                    cartCount: try await cartCount(req, owner), main: main)
    }

    /// Pays with the test gateway: the page stands in for the provider's payment window, paying
    /// exactly the order's total; the server then checks it as it would a real payment.
    func pay(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let id = try req.orderIDParameter()
        let order = try await req.banchan.order(id, of: owner)
        guard req.application.paymentGateway is TestPaymentGateway else { throw AppError(.serviceUnavailable, "payments_unavailable") }
        do {
            _ = try await req.banchan.confirmPayment(TestPaymentGateway.paymentID(merchantUID: order.merchantUID, amount: order.total), for: id, of: owner)
        } catch let error as AppError where error.status.code < 500 {
            return try await orderPage(req, try await req.banchan.order(id, of: owner), owner: owner, error: error)
        }
        return Layout.redirect(to: "/shop/orders/\(id)")
    }

    func cancel(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let id = try req.orderIDParameter()
        do {
            _ = try await req.banchan.cancel(id, of: owner, reason: req.t("banchan.order.cancelled_by_customer"))
        } catch let error as AppError where error.status.code < 500 {
            return try await orderPage(req, try await req.banchan.order(id, of: owner), owner: owner, error: error)
        }
        return Layout.redirect(to: "/shop/orders/\(id)")
    }
}
