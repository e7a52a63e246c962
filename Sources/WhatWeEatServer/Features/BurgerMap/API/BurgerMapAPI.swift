import Fluent
import Vapor

/// `/api/v1/burger-map/*`. Reads are public; every write needs a signed-in account.
struct BurgerMapAPI: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let map = routes.grouped("api", "v1", "burger-map")
        map.get("places", use: places)
        map.post("places", use: addPlace)
        map.get("places", ":place", use: place)
    }

    // MARK: Places

    /// `?bbox=minLon,minLat,maxLon,maxLat` (pins, or clusters past 200) or `?near=lat,lon`
    /// (nearest first, with distances); `q` narrows either to names and addresses holding it.
    func places(req: Request) async throws -> PlacesResponse {
        let query = try req.query.decode(PlacesQuery.self)
        let text = try query.searchText()
        switch (query.bbox, query.near) {
        case (let bbox?, nil):
            let box: BoundingBox
            do { box = try BoundingBox(parsing: bbox) } catch { throw BurgerMapService.appError(error) }
            switch try await req.burgerMap.places(in: box, matching: text) {
            case .pins(let places): return PlacesResponse(items: places.map(PlaceResponse.init), clusters: [])
            case .clusters(let clusters): return PlacesResponse(items: [], clusters: clusters)
            }
        case (nil, let near?):
            let point = try query.coordinate(near)
            let limit = try query.nearLimit()
            let places = try await req.burgerMap.places(near: point, limit: limit, matching: text)
            return PlacesResponse(items: places.map(PlaceResponse.init), clusters: [])
        case (nil, nil): throw AppError.badRequest("missing_area")
        case (_?, _?): throw AppError.badRequest("ambiguous_area")
        }
    }

    func addPlace(req: Request) async throws -> Response {
        let user = try req.requireUser()
        let body = try req.decodeJSON(PlaceBody.self)
        let point: Coordinate
        do { point = try Coordinate(lat: body.lat, lon: body.lon) } catch { throw BurgerMapService.appError(error) }
        let (place, created) = try await req.burgerMap.addPlace(name: body.name, address: body.address, at: point,
                                                              phone: body.phone, by: try user.requireID())
        return try await PlaceResponse(PlaceSummary(place: place, distanceMeters: nil)).encodeResponse(status: created ? .created : .ok, for: req)
    }

    func place(req: Request) async throws -> PlaceResponse {
        guard let id = req.parameters.get("place").flatMap(UUID.init(uuidString:)) else { throw AppError.notFound("place_not_found") }
        return PlaceResponse(PlaceSummary(place: try await req.burgerMap.place(id), distanceMeters: nil))
    }
}
