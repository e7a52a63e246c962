import Accounts
import Fluent
import Payments
import Platform
import Vapor

/// `/api/v1/banchan/*`: sections, dishes, the cart, orders and their payment.
/// Carts and orders belong to the signed-in account, or to the device named by `X-Device-Token`.
struct BanchanAPI: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let shop = routes.grouped("api", "v1", "banchan")
        shop.get("sections", use: sections)
        shop.get("sections", ":section", "dishes", use: sectionDishes)
        shop.get("dishes", ":hash", use: dish)
        shop.post("dishes", use: createDish)
        shop.patch("dishes", ":hash", use: updateDish)
        shop.delete("dishes", ":hash", use: retireDish)
        shop.get("cart", use: cart)
        shop.put("cart", "items", ":hash", use: setCartItem)
        shop.delete("cart", "items", ":hash", use: removeCartItem)
        shop.post("orders", use: placeOrder)
        shop.get("orders", use: orders)
        shop.get("orders", ":order", use: order)
        shop.post("orders", ":order", "cancel", use: cancelOrder)
        shop.post("orders", ":order", "payment", use: confirmPayment)
        shop.post("orders", ":order", "status", use: advanceOrder)
    }

    // MARK: Catalog

    struct SectionsResponse: Content {
        package struct Section: Content {
            package let id: DishSection
            package let name: String
            let dishCount: Int
        }
        let sections: [Section]
        let deliveryFee: DeliveryFeeResponse
    }

    struct DeliveryFeeResponse: Content {
        let fee: Int
        let freeFrom: Int
        /// In the request's language when given one, else the app's Korean wording.
        let label: String
        init(_ rule: DeliveryFeeRule, label: String? = nil) {
            fee = rule.fee
            freeFrom = rule.freeFrom
            self.label = label ?? rule.label
        }
    }

    func sections(req: Request) async throws -> SectionsResponse {
        let counts = req.banchan.dishCounts()
        return SectionsResponse(
            sections: DishSection.allCases.map { .init(id: $0, name: req.t("banchan.section.\($0.rawValue)"), dishCount: counts[$0] ?? 0) },
            deliveryFee: DeliveryFeeResponse(req.application.deliveryFeeRule, label: req.deliveryFeeLabel))
    }

    /// A `Page<DishSummary>`, assembled from the listings' encoded JSON (the same bytes the
    /// encoder would write: keys sorted, so `items` comes before `nextCursor`).
    func sectionDishes(req: Request) async throws -> Response {
        guard let raw = req.parameters.get("section"), let section = DishSection(rawValue: raw) else {
            throw AppError.notFound("section_not_found")
        }
        let (listings, next) = try req.banchan.dishes(in: section, page: try CursorPageRequest(from: req))
        let cursor = next.map { "\"\($0)\"" } ?? "null"   // base64url: nothing to escape
        let body = #"{"items":["# + listings.map(\.json).joined(separator: ",") + #"],"nextCursor":"# + cursor + "}"
        return Response(status: .ok, headers: ["Content-Type": "application/json; charset=utf-8"], body: .init(string: body))
    }

    /// A dish as the API shows it, with the terms in force and in the reader's language.
    private func detail(_ row: BanchanStore.DishRow, _ req: Request) -> DishDetail {
        DishDetail(row, images: BanchanImages.URLs(publicURL: req.application.settings.publicURL), delivery: req.application.deliveryFeeRule,
                   deliveryInfo: req.application.deliveryInfo(of: row.dish, req.language))
    }

    func dish(req: Request) async throws -> DishDetail {
        let row = try await req.banchan.dish(hash: req.parameters.get("hash") ?? "")
        return detail(row, req)
    }

    // MARK: Admin

    func createDish(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let input = try req.decodeJSON(DishInput.self)
        let row = try await req.banchan.addDish(try input.newDish(), stock: input.stock ?? 0, by: admin.id)
        return try await detail(row, req)
            .encodeResponse(status: .created, for: req)
    }

    /// Changes a dish, its stock included. A retired dish is not found; adding it again brings it back.
    func updateDish(req: Request) async throws -> DishDetail {
        let admin = try req.requireAdmin()
        let input = try req.decodeJSON(DishInput.self)
        let row = try await req.banchan.changeDish(hash: req.parameters.get("hash") ?? "", stock: input.stock, by: admin.id) { try input.apply(to: &$0) }
        return detail(row, req)
    }

    func retireDish(req: Request) async throws -> HTTPStatus {
        let admin = try req.requireAdmin()
        try await req.banchan.retireDish(hash: req.parameters.get("hash") ?? "", by: admin.id)
        return .noContent
    }

    // MARK: Cart

    struct CartResponse: Content {
        package struct Item: Content {
            package let hash: String
            package let title: String
            package let image: String
            let unitPrice: Int
            package let quantity: Int
            let subtotal: Int
            package let minQuantity: Int
            package let maxQuantity: Int
            package let stock: Int
        }
        let items: [Item]
        let itemsTotal: Int
        let deliveryFee: Int
        let total: Int
        let points: Int
    }

    func cart(req: Request) async throws -> CartResponse {
        try await cartResponse(req, owner: try req.shopOwner())
    }

    struct QuantityBody: Content { package let quantity: Int }

    func setCartItem(req: Request) async throws -> CartResponse {
        let owner = try req.shopOwner()
        let body = try req.decodeJSON(QuantityBody.self)
        try await req.banchan.setCartQuantity(body.quantity, of: req.parameters.get("hash") ?? "", for: owner)
        return try await cartResponse(req, owner: owner)
    }

    func removeCartItem(req: Request) async throws -> CartResponse {
        let owner = try req.shopOwner()
        try await req.banchan.removeFromCart(req.parameters.get("hash") ?? "", for: owner)
        return try await cartResponse(req, owner: owner)
    }

    private func cartResponse(_ req: Request, owner: Principal) async throws -> CartResponse {
        let shop = req.banchan
        let lines = try await shop.cart(of: owner)
        let images = BanchanImages.URLs(publicURL: req.application.settings.publicURL)
        let totals = shop.totals(of: lines)
        return CartResponse(
            items: lines.map { .init(hash: $0.dish.hash, title: $0.dish.title, image: images.main($0.dish.hash), unitPrice: $0.dish.salePrice,
                                     quantity: $0.quantity, subtotal: $0.dish.salePrice * $0.quantity, minQuantity: $0.dish.minQuantity,
                                     maxQuantity: $0.dish.maxQuantity, stock: $0.stock) },
            itemsTotal: totals.itemsTotal, deliveryFee: totals.deliveryFee, total: totals.total, points: totals.points)
    }

    // MARK: Orders

    struct OrderBody: Content {
        package struct Item: Content { package let hash: String; package let quantity: Int }
        /// The dishes to order; absent: the cart (which the order then empties).
        let items: [Item]?
        /// Where it goes; absent for an order without delivery details (as the 배민찬 app places them).
        let delivery: DeliveryInput?
        /// How the buyer means to pay; `card` when absent.
        let paymentMethod: Delivery.PaymentMethod?
    }

    static let idempotencyHeader = "Idempotency-Key"

    func placeOrder(req: Request) async throws -> Response {
        let owner = try req.shopOwner()
        let body = try req.decodeJSON(OrderBody.self)
        let key = req.headers.first(name: Self.idempotencyHeader)?.trimmingCharacters(in: .whitespaces)
        if let key, key.isEmpty || key.utf8.count > 255 { throw AppError.badRequest("invalid_idempotency_key") }
        var delivery: DeliveryRequest?
        if let input = body.delivery { delivery = try await req.banchan.deliveryRequest(input, paymentMethod: body.paymentMethod ?? .card, for: owner) }
        let placed = try await req.banchan.placeOrder(body.items?.map { .init(hash: $0.hash, quantity: $0.quantity) }, for: owner,
                                                      idempotencyKey: key, delivery: delivery)
        switch placed {
        case .created(let order):
            return try await OrderResponse(order, gateway: req.application.paymentGateway?.name).encodeResponse(status: .created, for: req)
        case .replayed(let order):
            let full = try await req.banchan.order(order.id, of: owner)
            let response = try await OrderResponse(full, gateway: req.application.paymentGateway?.name).encodeResponse(status: .created, for: req)
            response.headers.replaceOrAdd(name: "Idempotent-Replayed", value: "true")
            return response
        }
    }

    func orders(req: Request) async throws -> CursorPage<OrderResponse> {
        let (orders, next) = try await req.banchan.orders(of: try req.shopOwner(), page: try CursorPageRequest(from: req))
        let gateway = req.application.paymentGateway?.name
        return CursorPage(items: orders.map { OrderResponse($0, gateway: gateway) }, nextCursor: next)
    }

    func order(req: Request) async throws -> OrderResponse {
        let order = try await req.banchan.order(try req.orderIDParameter(), of: try req.shopOwner())
        return try await OrderResponse.alone(order, req)
    }

    struct CancelBody: Content { package let reason: String? }

    func cancelOrder(req: Request) async throws -> OrderResponse {
        let owner = try req.shopOwner()
        let reason = try Self.reason(req.decodeJSON(CancelBody.self).reason) ?? "cancelled by customer"
        let order = try await req.banchan.cancel(try req.orderIDParameter(), of: owner, reason: reason)
        return try await OrderResponse.alone(order, req)
    }

    /// Why an order or a line was cancelled or refunded, as typed through the API: at most 200
    /// characters (`String.fits`, as openapi.yaml states; more is 422 `invalid_field`), trimmed;
    /// nil when nothing is left. The console's forms cut instead: a person sees what was kept.
    static func reason(_ typed: String?) throws -> String? {
        guard (typed ?? "").fits(characters: 200, bytes: 800) else { throw AppError.invalid("invalid_field", ["field": "reason"]) }
        let reason = (typed ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return reason.isEmpty ? nil : reason
    }

    package struct PaymentBody: Content {
        /// The provider's id of the payment (PortOne's `imp_uid`).
        package let paymentID: String
    }

    func confirmPayment(req: Request) async throws -> OrderResponse {
        let owner = try req.shopOwner()
        let body = try req.decodeJSON(PaymentBody.self)
        guard !body.paymentID.isEmpty, body.paymentID.utf8.count <= 200 else { throw AppError.invalid("payment_not_found") }
        let order = try await req.banchan.confirmPayment(body.paymentID, for: try req.orderIDParameter(), of: owner)
        return OrderResponse(order, gateway: req.application.paymentGateway?.name)
    }

    /// Where an order goes next; shipping may say how it travels (`courier`, `trackingNumber`,
    /// read only with `shipped`).
    struct StatusBody: Content {
        package let status: OrderStatus
        package var courier: String?
        package var trackingNumber: String?
    }

    /// Administrators ship and deliver orders.
    func advanceOrder(req: Request) async throws -> OrderResponse {
        let admin = try req.requireAdmin()
        let body = try req.decodeJSON(StatusBody.self)
        return OrderResponse(try await req.banchan.advance(try req.orderIDParameter(), to: body.status, by: admin.id,
                                                           courier: body.courier, trackingNumber: body.trackingNumber),
                             gateway: req.application.paymentGateway?.name)
    }
}
