import Platform
import Vapor

/// `/api/v1/banchan/addresses`: the signed-in account's saved delivery addresses (at most ten; one
/// is the default checkout starts from). A device without an account gets 401.
struct BanchanAddressesAPI: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let addresses = routes.grouped("api", "v1", "banchan", "addresses")
        addresses.get(use: list)
        addresses.post(use: create)
        addresses.put(":address", use: change)
        addresses.delete(":address", use: remove)
    }

    func list(req: Request) async throws -> CursorPage<AddressResponse> {
        // Ten at most: one page, whose `nextCursor` is always null.
        CursorPage(items: try await req.banchan.addresses(of: try req.shopOwner()).map(AddressResponse.init), nextCursor: nil)
    }

    func create(req: Request) async throws -> Response {
        let input = try req.decodeJSON(AddressInput.self)
        let saved = try await req.banchan.saveAddress(try input.checked(), of: try req.shopOwner(), makeDefault: input.isDefault ?? false)
        return try await AddressResponse(saved).encodeResponse(status: .created, for: req)
    }

    func change(req: Request) async throws -> AddressResponse {
        let input = try req.decodeJSON(AddressInput.self)
        return AddressResponse(try await req.banchan.changeAddress(try req.addressIDParameter(), of: try req.shopOwner(), to: try input.checked(),
                                                                   makeDefault: input.isDefault ?? false))
    }

    func remove(req: Request) async throws -> HTTPStatus {
        try await req.banchan.removeAddress(try req.addressIDParameter(), of: try req.shopOwner())
        return .noContent
    }
}

extension Request {
    /// The address named by `:address`; anything not a UUID is an unknown address (404).
    func addressIDParameter() throws -> UUID {
        guard let raw = parameters.get("address"), let id = UUID(uuidString: raw) else { throw AppError.notFound("address_not_found") }
        return id
    }
}
