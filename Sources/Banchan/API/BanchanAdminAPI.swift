import Accounts
import Platform
import Vapor

/// The shop's operator routes under `/api/v1/admin` (administrators): every buyer's orders, and
/// moving one along (as `POST /api/v1/banchan/orders/{id}/status`, which stays).
struct BanchanAdminAPI: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let admin = routes.grouped("api", "v1", "admin")
        admin.get("orders", use: orders)
        admin.post("orders", ":order", "status", use: advance)
    }

    func orders(req: Request) async throws -> CursorPage<OrderResponse> {
        _ = try req.requireAdmin()
        let status = try req.query[String.self, at: "status"].map { raw in
            guard let status = OrderStatus(rawValue: raw) else { throw AppError.badRequest("invalid_field", ["field": "status"]) }
            return status
        }
        let (orders, next) = try await req.banchan.allOrders(status: status, day: req.query[String.self, at: "day"], page: try CursorPageRequest(from: req))
        let gateway = req.application.paymentGateway?.name
        return CursorPage(items: orders.map { OrderResponse($0, gateway: gateway) }, nextCursor: next)
    }

    func advance(req: Request) async throws -> OrderResponse {
        let admin = try req.requireAdmin()
        let next = try req.decodeJSON(BanchanAPI.StatusBody.self).status
        let order = try await req.banchan.advance(try req.orderIDParameter(), to: next, by: admin.id)
        return OrderResponse(order, gateway: req.application.paymentGateway?.name, refund: try await req.banchan.refundState(ofOrder: order.id))
    }
}
