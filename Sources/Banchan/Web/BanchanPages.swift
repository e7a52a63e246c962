import Accounts
import Fluent
import Platform
import Plot
import Vapor

/// The shop in the browser (the 배민찬 app's screens): the three sections, a dish's page with
/// paging thumbnails and a quantity stepper, the cart, checkout and order history.
/// Forms work without scripts; `Public/js/banchan/` adds the stepper's live total, thumbnail
/// dots and the section counts.
struct BanchanPages: RouteCollection {
    static let stylesheet = "/css/banchan.css"

    func boot(routes: any RoutesBuilder) throws {
        routes.get(ShopPath.home, use: home)
        routes.get(ShopPath.dish, use: dish)
        routes.get(ShopPath.cart, use: cart)
        routes.post(ShopPath.cart, use: addToCart)
        routes.post(ShopPath.item, use: changeCartItem)
        routes.post(ShopPath.removeItem, use: removeCartItem)
        routes.post(ShopPath.orders, use: placeOrder)
        routes.get(ShopPath.orders, use: orders)
        routes.get(ShopPath.order, use: order)
        routes.get(ShopPath.orderLive, use: followOrder)
        routes.post(ShopPath.pay, use: pay)
        routes.get(ShopPath.cancel, use: cancelConfirmation)
        routes.post(ShopPath.cancel, use: cancel)
        routes.get(ShopPath.checkout, use: checkout)
        routes.get(ShopPath.complete, use: complete)
        routes.get(ShopPath.receipt, use: receipt)
        routes.get(ShopPath.addresses, use: addressBook)
        routes.get(ShopPath.newAddress, use: newAddress)
        routes.post(ShopPath.addresses, use: createAddress)
        routes.get(ShopPath.editAddress, use: editAddress)
        routes.post(ShopPath.editAddress, use: changeAddress)
        routes.post(ShopPath.removeAddress, use: removeAddress)
        routes.post(ShopPath.defaultAddress, use: makeDefaultAddress)
    }

    // MARK: Frame

    /// The delivery fee rule in the reader's language (the app's routes keep the Korean original).
    func extras(_ req: Request, scripts: [String] = [], cartCount: Int?) -> PageExtras {
        extras(req, scripts: scripts, cart: cartCount.map(cartCountNode) ?? .empty)
    }

    /// `cart`: the count in the header's cart (`cartCountNode`, or a kept page's reader part).
    func extras(_ req: Request, scripts: [String] = [], cart: Node<HTML.AnchorContext>) -> PageExtras {
        PageExtras(
            stylesheets: ["/css/shared/services.css", Self.stylesheet], scripts: scripts, bodyClass: "shop with-tabs",
            headerLinks: .a(
                .class("cart-link"), .href(ShopPath.cart()), .ariaLabel(req.t("banchan.cart.title")),
                .span(.ariaHidden(true), .text("🛒")),
                cart
            ),
            bottomBar: tabBar(req)
        )
    }

    func cartCountNode(_ count: Int) -> Node<HTML.AnchorContext> {
        count > 0 ? .span(.class("cart-count"), .text(String(count))) : .empty
    }

    /// The shop's tabs, as the other services have theirs: the dishes, the cart, the orders and
    /// the address book, the current one found from the page's path (a dish is the dishes' tab,
    /// checkout the cart's), so every shop page has a way back.
    enum Tab: String, CaseIterable {
        case dishes, cart, orders, addresses

        var path: String {
            switch self {
            case .dishes: return ShopPath.home()
            case .cart: return ShopPath.cart()
            case .orders: return ShopPath.orders()
            case .addresses: return ShopPath.addresses()
            }
        }

        var emoji: String {
            switch self {
            case .dishes: return "🥢"
            case .cart: return "🛒"
            case .orders: return "📦"
            case .addresses: return "📍"
            }
        }

        static func of(path: String) -> Tab? {
            if path == ShopPath.home() || path.hasPrefix("/shop/dishes/") { return .dishes }
            if path.hasPrefix(ShopPath.cart()) || path.hasPrefix(ShopPath.checkout()) { return .cart }
            if path.hasPrefix(ShopPath.orders()) { return .orders }
            if path.hasPrefix(ShopPath.addresses()) { return .addresses }
            return nil
        }
    }

    /// The same for every reader of a language and tab: rendered once each and kept.
    func tabBar(_ req: Request) -> Node<HTML.BodyContext> {
        let current = Tab.of(path: req.url.path)
        return req.application.pageFragments.node("shop.tabs." + (current?.rawValue ?? "none"), language: req.language, version: 0) {
            TabBar.render(label: req.t("banchan.tabs"), classes: "map-tabs", items: Tab.allCases.map { tab in
                TabBar.Item(path: tab.path, emoji: tab.emoji, label: req.t("banchan.tab.\(tab.rawValue)"), isCurrent: tab == current)
            })
        }
    }

    /// Artwork as paths, so pages load it from whatever address the browser used.
    static let images = BanchanImages.URLs(publicURL: "")

    /// `postcodeSearch`: the page asks for an address (`PostcodeSearch`: the service's script and policy, and its own).
    func page(_ req: Request, title: String, status: HTTPResponseStatus = .ok, scripts: [String] = [],
              cartCount: Int?, preview: LinkPreview? = nil, postcodeSearch: Bool = false, main: Node<HTML.BodyContext>) -> Response {
        var extras = extras(req, scripts: scripts + (postcodeSearch ? [PostcodeSearch.script] : []), cartCount: cartCount)
        extras.preview = preview
        if postcodeSearch { extras.usePostcodeSearch(req) }
        return Layout.page(req, title: title, status: status, extras: extras, main: main)
    }

    /// A shop page kept whole at `version` (`Layout.keptPage`): `make` runs only when it is not
    /// kept; the header's cart count is the reader's part.
    func keptPage(
        _ req: Request, version: Int, cartCount: Int, scripts: [String] = [],
        make: () throws -> (title: String, preview: LinkPreview?, main: Node<HTML.BodyContext>)
    ) rethrows -> Response {
        try Layout.keptPage(req, version: version, reader: Layout.ReaderParts(parts: [cartCountNode(cartCount).render()])) {
            let made = try make()
            var extras = extras(req, scripts: scripts, cart: Layout.readerPart(0))
            extras.preview = made.preview
            return Layout.PageParts(title: made.title, extras: extras, main: made.main)
        }
    }

    /// A page of the reader's own (the cart, checkout, orders, an order, the address book) kept by
    /// what it shows (`Layout.keptPage(shown:)`): read on every request as before, made again only
    /// when any of it changed. `reader`: the parts only this request may carry (`readerPart(n)`).
    func ownPage<Shown: Hashable & Sendable>(
        _ req: Request, shown: Shown, keeps: Bool = true, scripts: [String] = [], postcodeSearch: Bool = false, reader: [String] = [],
        make: (Shown) throws -> (title: String, status: HTTPResponseStatus, cartCount: Int?, main: Node<HTML.BodyContext>)
    ) rethrows -> Response {
        try Layout.keptPage(req, shown: shown, keeps: keeps, reader: Layout.ReaderParts(parts: reader)) { shown in
            let made = try make(shown)
            var extras = extras(req, scripts: scripts + (postcodeSearch ? [PostcodeSearch.script] : []), cartCount: made.cartCount)
            if postcodeSearch { extras.usePostcodeSearch(req) }
            return Layout.PageParts(title: made.title, status: made.status, extras: extras, main: made.main)
        }
    }

    /// The number in the header's cart: the kept cart's quantities (`KeptCarts`), none for a
    /// browser seen for the first time (its device was made by this request, so it has no cart).
    func cartCount(_ req: Request, _ owner: Principal) async throws -> Int {
        if owner.userID == nil, req.browserDevice.isNew { return 0 }
        return try await req.banchan.cartQuantity(of: owner)
    }

    // MARK: Sections

    func home(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        // The same for every reader of a language until the listings or the shop's terms (the
        // delivery fee in the lead) change; both versions only grow, so their sum moves with either.
        let listings = req.application.banchanListings.snapshot()
        let version = listings.version + req.application.shopTermsInForce.current.revision
        return try keptPage(req, version: version, cartCount: try await cartCount(req, owner), scripts: ["/js/banchan/sections.js"]) {
            (req.t("banchan.title"), nil, .group(
                .section(
                    .class("shop-hero"),
                    .h1(.text(req.t("banchan.title"))),
                    .p(.class("lead"), .text(req.t("banchan.lead", ["fee": req.deliveryFeeLabel])))
                ),
                .group(DishSection.allCases.map { sectionView(req, $0, listings.sections[$0] ?? []) }),
                .p(.class("section-toast"), .id("section-toast"), .role("status"))
            ))
        }
    }

    func sectionView(_ req: Request, _ section: DishSection, _ dishes: [BanchanListings.Listing]) -> Node<HTML.BodyContext> {
        let name = req.t("banchan.section.\(section.rawValue)")
        return .section(
            .class("dish-section"), .id("section-\(section.rawValue)"), .ariaLabelledBy("heading-\(section.rawValue)"),
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

    func dishCard(_ req: Request, _ listing: BanchanListings.Listing) -> Node<HTML.BodyContext> {
        let dish = listing.dish
        let soldOut = listing.isSoldOut
        // The title's link covers the whole card (see .dish-card a::after in banchan.css).
        return .div(
            .class(soldOut ? "dish-card sold-out" : "dish-card"),
            .img(.src(Self.images.main(dish.hash)), .alt(""), .width(112), .height(112), .attribute(named: "loading", value: "lazy")),
            .div(
                .class("dish-info"),
                .a(.class("dish-title"), .href(ShopPath.dish(dish.hash)), .text(dish.title)),
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

    func priceView(_ req: Request, _ dish: Dish) -> Node<HTML.BodyContext> {
        .p(
            .class("prices"),
            .strong(.class("sale-price"), .text(req.won(dish.salePrice))),
            dish.isDiscounted
                ? .element(named: "del", nodes: [.class("original-price"),
                                                  .span(.class("visually-hidden"), .text(req.t("banchan.original_price") + " ")),
                                                  .text(req.won(dish.originalPrice!))])
                : .empty
        )
    }

    // MARK: A dish

    func dish(req: Request) async throws -> Response {
        let owner = try req.browserPrincipal()
        let hash = req.parameters.get("hash") ?? ""
        let version = req.application.banchanListings.version + req.application.shopTermsInForce.current.revision
        // The in-memory listings hold every dish on sale with its stock, kept current by each
        // order on every instance: no model to build per view.
        let (dish, stock): (Dish, Int)
        if let listing = req.application.banchanListings.listing(hash: hash) {
            (dish, stock) = (listing.dish, listing.stock)
        } else {
            let row = try await req.banchan.dish(hash: hash)
            (dish, stock) = (row.dish, row.stock)
        }
        // Kept as the dish's parts are (`dishView`): per listings version and the shop's terms.
        return try keptPage(req, version: version, cartCount: try await cartCount(req, owner), scripts: ["/js/banchan/detail.js"]) {
            (dish.title,
             LinkPreview(title: dish.title, description: "\(req.won(dish.salePrice)) · \(dish.description)",
                         image: BanchanImages.cardPath(dish.hash), imageWidth: LinkPreview.appCard.width,
                         imageHeight: LinkPreview.appCard.height, imageAlt: dish.title),
             dishView(req, dish, stock: stock, quantity: dish.minQuantity, error: nil))
        }
    }

    func dishView(_ req: Request, _ dish: Dish, stock: Int, quantity: Int, error: AppError?) -> Node<HTML.BodyContext> {
        let urls = Self.images
        let back: Node<HTML.BodyContext> = .a(.class("back-link"), .id("back-to-shop"), .href(ShopPath.home() + "#section-\(dish.section.rawValue)"),
                                             .text("← " + req.t("banchan.back_to_section", ["section": req.t("banchan.section.\(dish.section.rawValue)")])))
        let limit = min(dish.maxQuantity, stock)
        let soldOut = stock < dish.minQuantity
        // The gallery, the facts and the detail images are the same for every reader of a
        // language: rendered once per listings version (which moves with any dish's change or
        // stock). The facts name the delivery fee: they follow the shop's terms too (both versions
        // only grow, so their sum moves with either). The form is the reader's own.
        let fragments = req.application.pageFragments, language = req.language, version = req.application.banchanListings.version
        let factsVersion = version + req.application.shopTermsInForce.current.revision
        return .group(
            back,
            fragments.node("shop.dish.gallery." + dish.hash, language: language, version: version) { gallery(req, dish) },
            .section(
                .class("card dish-detail"), .ariaLabelledBy("dish-title"),
                fragments.node("shop.dish.facts." + dish.hash, language: language, version: factsVersion) { facts(req, dish) },
                Layout.formError(req, error),
                soldOut
                    ? .p(.class("notice sold-out-notice"), .text(req.t("banchan.sold_out_long")))
                    : orderForm(req, dish, stock: stock, limit: limit, quantity: quantity),
                ShareButton.node(req, path: ShopPath.dish(dish.hash), title: dish.title, text: "🥢 \(dish.title) \(req.won(dish.salePrice))")
            ),
            fragments.node("shop.dish.details." + dish.hash, language: language, version: version) {
                .section(
                    .class("detail-images"), .attribute(named: "aria-label", value: req.t("banchan.details")),
                    .forEach(Array(zip(urls.details(dish), dish.detailSections))) { url, text in
                        .img(.src(url), .alt(text), .width(720), .attribute(named: "loading", value: "lazy"))
                    }
                )
            }
        )
    }

    private func gallery(_ req: Request, _ dish: Dish) -> Node<HTML.BodyContext> {
        let thumbs = Self.images.thumbs(dish)
        return .section(
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
        )
    }

    private func facts(_ req: Request, _ dish: Dish) -> Node<HTML.BodyContext> {
        .group(
            .div(.class("chips"), .forEach(dish.badges) { .span(.class("badge badge-\($0.code)"), .text(req.t("banchan.badge.\($0.code)"))) }),
            .h1(.id("dish-title"), .text(dish.title)),
            .p(.class("lead"), .text(dish.description)),
            priceView(req, dish),
            .dl(
                .class("dish-facts"),
                .dt(.text(req.t("banchan.points"))), .dd(.text(req.t("banchan.points_value", ["points": req.won(dish.pointsPerUnit), "rate": String(dish.pointRate)]))),
                .dt(.text(req.t("banchan.delivery"))), .dd(.text(dish.deliveryTypes.map { req.t("banchan.delivery_type.\($0.code)") }.joined(separator: " · "))),
                .dt(.text(req.t("banchan.delivery_info"))), .dd(.id("delivery-info"), .text(req.application.deliveryInfo(of: dish, req.language))),
                .dt(.text(req.t("banchan.delivery_fee"))), .dd(.id("delivery-fee"), .text(req.deliveryFeeLabel)),
                .dt(.text(req.t("banchan.weight"))), .dd(.text(dish.weight)),
                .dt(.text(req.t("banchan.ingredients"))), .dd(.text(dish.ingredients)),
                .dt(.text(req.t("banchan.storage"))), .dd(.text(dish.storage))
            )
        )
    }

    private func orderForm(_ req: Request, _ dish: Dish, stock: Int, limit: Int, quantity: Int) -> Node<HTML.BodyContext> {
        .form(
            .action(ShopPath.cart()), .method(.post), .class("order-form"), .id("order-form"),
            .data(named: "price", value: String(dish.salePrice)),
            Layout.csrfField(req),
            .input(.type(.hidden), .name("hash"), .value(dish.hash)),
            .div(
                .class("stepper"), .role("group"), .ariaLabelledBy("quantity-label"),
                .label(.id("quantity-label"), .for("quantity"), .text(req.t("banchan.quantity"))),
                .button(.type(.button), .class("step step-down"), .id("quantity-down"), .ariaLabel(req.t("banchan.decrease")), .text("−")),
                .selfClosedElement(named: "input", attributes: [
                    .id("quantity"), .name("quantity"), .type(.number), .value(String(min(max(quantity, dish.minQuantity), limit))),
                    .attribute(named: "min", value: String(dish.minQuantity)), .attribute(named: "max", value: String(limit)),
                    .attribute(named: "inputmode", value: "numeric"), .ariaDescribedBy("quantity-limits"),
                ]),
                .button(.type(.button), .class("step step-up"), .id("quantity-up"), .ariaLabel(req.t("banchan.increase")), .text("+"))
            ),
            .p(.class("hint"), .id("quantity-limits"),
               .text(req.t("banchan.quantity_limits", ["min": String(dish.minQuantity), "max": String(limit), "stock": String(stock)]))),
            // On a phone the total and the button stay at the bottom of the screen (above the tabs).
            .div(
                .class("buy-bar"),
                .p(.class("order-total"), .span(.text(req.t("banchan.total") + " ")),
                   .strong(.id("order-total"), .ariaLive(.polite),
                           .text(req.won(dish.salePrice * min(max(quantity, dish.minQuantity), limit))))),
                .button(.type(.submit), .class("button primary wide"), .id("add-to-cart"), .text(req.t("banchan.add_to_cart")))
            )
        )
    }

}
