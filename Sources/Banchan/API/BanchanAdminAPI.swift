import Accounts
import Payments
import Platform
import Vapor

/// The shop's operator routes under `/api/v1/admin` (administrators): every buyer's orders, moving
/// one along (as `POST /api/v1/banchan/orders/{id}/status`, which stays), and the shop's terms
/// (delivery fee, free-delivery threshold, 새벽배송 cut-off).
struct BanchanAdminAPI: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let admin = routes.grouped("api", "v1", "admin")
        admin.get("orders", use: orders)
        admin.post("orders", ":order", "status", use: advance)
        admin.post("orders", ":order", "refunds", use: refundLine)
        admin.get("shop-settings", use: shopSettings)
        admin.put("shop-settings", use: changeShopSettings)
    }

    /// The terms in force, and when and by whom they were saved (null while the environment's hold).
    struct ShopSettingsResponse: Content {
        let deliveryFee: Int
        let freeDeliveryFrom: Int
        let dawnCutoff: String
        @NullEncoded var savedAt: Date?
        @NullEncoded var savedBy: UUID?

        init(_ state: ShopTermsInForce.State) {
            deliveryFee = state.terms.delivery.fee
            freeDeliveryFrom = state.terms.delivery.freeFrom
            dawnCutoff = state.terms.dawn.cutoffText
            savedAt = state.saved?.updatedAt
            savedBy = state.saved?.updatedBy
        }
    }

    func shopSettings(req: Request) async throws -> ShopSettingsResponse {
        _ = try req.requireAdmin()
        return ShopSettingsResponse(req.application.shopTermsInForce.current)
    }

    func changeShopSettings(req: Request) async throws -> ShopSettingsResponse {
        let admin = try req.requireAdmin()
        let input = try req.decodeJSON(BanchanService.TermsInput.self)
        let service = req.banchan
        try await service.changeTerms(try service.terms(from: input), by: admin.id)
        return ShopSettingsResponse(req.application.shopTermsInForce.current)
    }

    func orders(req: Request) async throws -> CursorPage<OrderResponse> {
        _ = try req.requireAdmin()
        let status = try req.query[String.self, at: "status"].map { raw in
            guard let status = OrderStatus(rawValue: raw) else { throw AppError.badRequest("invalid_field", ["field": "status"]) }
            return status
        }
        let (orders, next) = try await req.banchan.allOrders(status: status, day: req.query[String.self, at: "day"], search: req.query[String.self, at: "q"],
                                                             page: try CursorPageRequest(from: req))
        let gateway = req.application.paymentGateway?.name
        return CursorPage(items: orders.map { OrderResponse($0, gateway: gateway) }, nextCursor: next)
    }

    func advance(req: Request) async throws -> OrderResponse {
        let admin = try req.requireAdmin()
        let body = try req.decodeJSON(BanchanAPI.StatusBody.self)
        let order = try await req.banchan.advance(try req.orderIDParameter(), to: body.status, by: admin.id,
                                                  courier: body.courier, trackingNumber: body.trackingNumber)
        return try await OrderResponse.alone(order, req)
    }

    /// Some units of one line to refund (`line`: the item's `line`; `quantity` absent: all the
    /// line has left), and why, as the buyer reads it.
    struct LineRefundBody: Content {
        let line: Int
        var quantity: Int?
        var reason: String?
    }

    /// `POST /api/v1/admin/orders/{id}/refunds`: refunds some units of one line of a paid order;
    /// 201 with the order (its `lineRefunds`, `refundedTotal`, each item's `refundedQuantity`).
    func refundLine(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let body = try req.decodeJSON(LineRefundBody.self)
        let reason = try BanchanAPI.reason(body.reason) ?? "refunded by the shop"
        let order = try await req.banchan.refundLine(of: try req.orderIDParameter(), line: body.line, quantity: body.quantity,
                                                     reason: reason, by: admin.id)
        return try await OrderResponse.alone(order, req).encodeResponse(status: .created, for: req)
    }
}
