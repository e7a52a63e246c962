package import Foundation
import NIOConcurrencyHelpers
import Platform
package import XCTVapor

/// A small HTTP server answering Kakao Local's keyword search (`GET /v2/local/search/keyword.json`)
/// with the documented JSON: the places it was given, filtered by the query's words and the radius
/// around `x`,`y`, nearest first. It refuses a request without `Authorization: KakaoAK {key}` (401,
/// as Kakao does) and records every request's query, so a test sees what was asked and how often.
package final class FakeKakaoLocal: Sendable {
    package struct Place: Sendable {
        package let id: String, name: String, category: String, phone: String, address: String, roadAddress: String
        package let lat: Double, lon: Double

        package init(id: String, name: String, category: String = "음식점 > 한식", phone: String = "", address: String, roadAddress: String = "",
                     lat: Double, lon: Double) {
            self.id = id
            self.name = name
            self.category = category
            self.phone = phone
            self.address = address
            self.roadAddress = roadAddress
            self.lat = lat
            self.lon = lon
        }
    }

    package let app: Application
    package let url: String
    package let key: String
    private let places: [Place]
    private let asked = NIOLockedValueBox<[[String: String]]>([])
    private let failing = NIOLockedValueBox<Bool>(false)

    private init(app: Application, url: String, key: String, places: [Place]) {
        self.app = app
        self.url = url
        self.key = key
        self.places = places
    }

    package static func start(key: String = "fakekakaorestkey0123", places: [Place]) async throws -> FakeKakaoLocal {
        let app = try await Application.make(.testing)
        let port = try freePort()
        let fake = FakeKakaoLocal(app: app, url: "http://127.0.0.1:\(port)", key: key, places: places)
        app.get("v2", "local", "search", "keyword.json") { [fake] req async throws -> Response in try fake.search(req) }
        app.get("v2", "local", "search", "address.json") { [fake] req async throws -> Response in try fake.searchAddress(req) }
        try await app.server.start(address: .hostname("127.0.0.1", port: port))
        return fake
    }

    package func stop() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    /// Every search so far: its query parameters.
    package var requests: [[String: String]] { asked.withLockedValue { $0 } }

    /// Answers 500 from now on (or again 200).
    package func fail(_ on: Bool) { failing.withLockedValue { $0 = on } }

    /// The address search: the places whose address or road address contains the query, as
    /// Kakao's address documents (`address_name`, `road_address.address_name`, `x`, `y`).
    private func searchAddress(_ req: Request) throws -> Response {
        guard req.headers.first(name: .authorization) == "KakaoAK \(key)" else {
            return Response(status: .unauthorized, body: .init(string: #"{"errorType":"AccessDeniedError","message":"wrong appKey"}"#))
        }
        let query = req.query[String.self, at: "query"] ?? ""
        asked.withLockedValue { $0.append(["address": query]) }
        if failing.withLockedValue({ $0 }) { return Response(status: .internalServerError) }
        let documents: [[String: Any]] = places.filter { !query.isEmpty && ($0.address.contains(query) || $0.roadAddress.contains(query)) }.map { place in
            ["address_name": place.address, "address_type": "REGION_ADDR", "x": String(place.lon), "y": String(place.lat),
             "road_address": place.roadAddress.isEmpty ? NSNull() : ["address_name": place.roadAddress] as [String: Any]]
        }
        let body: [String: Any] = ["meta": ["total_count": documents.count, "pageable_count": documents.count, "is_end": true], "documents": documents]
        return Response(status: .ok, headers: ["Content-Type": "application/json;charset=UTF-8"],
                        body: .init(data: try JSONSerialization.data(withJSONObject: body)))
    }

    private func search(_ req: Request) throws -> Response {
        guard req.headers.first(name: .authorization) == "KakaoAK \(key)" else {
            return Response(status: .unauthorized, body: .init(string: #"{"errorType":"AccessDeniedError","message":"wrong appKey"}"#))
        }
        var parameters: [String: String] = [:]
        for name in ["query", "category_group_code", "x", "y", "radius", "sort", "size"] { parameters[name] = req.query[String.self, at: name] }
        asked.withLockedValue { $0.append(parameters) }
        if failing.withLockedValue({ $0 }) { return Response(status: .internalServerError) }
        guard let query = parameters["query"], let x = parameters["x"].flatMap(Double.init), let y = parameters["y"].flatMap(Double.init) else {
            return Response(status: .badRequest, body: .init(string: #"{"errorType":"MissingParameter","message":"query"}"#))
        }
        let center = Coordinate(unchecked: y, x)
        let radius = parameters["radius"].flatMap(Double.init) ?? 20_000
        let found = places.map { ($0, Coordinate(unchecked: $0.lat, $0.lon).distanceMeters(to: center)) }
            .filter { $0.1 <= radius && $0.0.name.contains(query) }.sorted { $0.1 < $1.1 }.prefix(15)
        let documents: [[String: String]] = found.map { place, distance in
            ["id": place.id, "place_name": place.name, "category_name": place.category, "category_group_code": "FD6", "category_group_name": "음식점",
             "phone": place.phone, "address_name": place.address, "road_address_name": place.roadAddress, "x": String(place.lon), "y": String(place.lat),
             "place_url": "http://place.map.kakao.com/\(place.id)", "distance": String(Int(distance))]
        }
        let body: [String: Any] = ["meta": ["total_count": documents.count, "pageable_count": documents.count, "is_end": true], "documents": documents]
        return Response(status: .ok, headers: ["Content-Type": "application/json;charset=UTF-8"],
                        body: .init(data: try JSONSerialization.data(withJSONObject: body)))
    }
}
