package import Foundation
import Metrics
package import Platform
package import Vapor

/// A place near the person to eat a menu at: one of ours (the burger map's, for a burger menu) or
/// one Kakao Local found.
package struct NearbyPlace: Codable, Sendable, Equatable {
    package let name: String
    package let distanceMeters: Int
    package let address: String
    package let phone: String?
    /// The place's page: ours, or Kakao Map's.
    package let url: String
    package let lat: Double
    package let lon: Double
    /// `burger_map` or `kakao`.
    package let source: String

    package init(name: String, distanceMeters: Int, address: String, phone: String?, url: String, lat: Double, lon: Double, source: String) {
        self.name = name
        self.distanceMeters = distanceMeters
        self.address = address
        self.phone = phone
        self.url = url
        self.lat = lat
        self.lon = lon
        self.source = source
    }
}

/// What Kakao did for a list: answered (`ok`), is not set up (`off`), was not asked because the
/// network's budget is spent (`busy`), or failed (`unavailable`). The list has our places either way.
package enum NearbyKakao: String, Codable, Sendable {
    case ok, off, busy, unavailable
}

package struct NearbyList: Sendable {
    package let places: [NearbyPlace]
    package let kakao: NearbyKakao
}

/// Where another feature's own places come in first (the burger map's, for a burger menu),
/// connected by the server (`Seams`).
package struct OwnPlacesNearby: Sendable {
    package let find: @Sendable (Application, Menu, Coordinate) async throws -> [NearbyPlace]

    package init(find: @escaping @Sendable (Application, Menu, Coordinate) async throws -> [NearbyPlace]) { self.find = find }
}

extension Application {
    private struct OwnPlacesNearbyKey: StorageKey { typealias Value = OwnPlacesNearby }

    /// Nil on a site without the burger map.
    package var ownPlacesNearby: OwnPlacesNearby? {
        get { storage[OwnPlacesNearbyKey.self] }
        set { storage[OwnPlacesNearbyKey.self] = newValue }
    }
}

extension MenuGameService {
    /// The places to eat `menu` at near `point`, nearest first: our own first where the menu is
    /// a burger, then Kakao's restaurants found by the menu's name (one answer per menu and ~500 m
    /// square, kept ten minutes; look-ups within the network's budget). Without Kakao, ours alone.
    package func nearby(_ menu: Menu, at point: Coordinate, network: ClientNetwork) async -> NearbyList {
        var places: [NearbyPlace] = []
        if let own = application.ownPlacesNearby {
            do {
                places = try await own.find(application, menu, point)
            } catch {
                application.logger.warning("our places near a menu could not be read", metadata: ["error": "\(error)"])
            }
        }
        let (kakaoPlaces, outcome) = await kakaoRestaurants(for: menu, near: point, network: network)
        let ours = Set(places.map { "\($0.name)|\(Int($0.lat * 10_000))|\(Int($0.lon * 10_000))" })
        let theirs = kakaoPlaces.map { place in
            NearbyPlace(name: place.name, distanceMeters: Int(place.coordinate.distanceMeters(to: point).rounded()),
                        address: place.roadAddress.isEmpty ? place.address : place.roadAddress, phone: place.phone.isEmpty ? nil : place.phone,
                        url: place.url, lat: place.coordinate.lat, lon: place.coordinate.lon, source: "kakao")
        }.filter { !ours.contains("\($0.name)|\(Int($0.lat * 10_000))|\(Int($0.lon * 10_000))") }.sorted { $0.distanceMeters < $1.distanceMeters }
        return NearbyList(places: Array((places + theirs).prefix(NearbyRules.listSize)), kakao: outcome)
    }

    private func kakaoRestaurants(for menu: Menu, near point: Coordinate, network: ClientNetwork) async -> ([KakaoPlace], NearbyKakao) {
        let nearby = environment.nearby
        guard let kakao = nearby.kakao else { return ([], .off) }
        let now = environment.now()
        let square = NearbyRules.square(of: point)
        let key = menu.id + "|" + square.key
        if let kept = nearby.places(for: key, now: now) { return (kept, .ok) }
        do {
            guard case .success = try await nearby.budget.tryReserve(network, now: now) else {
                Counter(label: "whatweeat_kakao_lookups_total", dimensions: [("outcome", "busy")]).increment()
                return ([], .busy)
            }
            let found = try await kakao.restaurants(matching: menu.name.ko, near: square.middle, radius: NearbyRules.searchRadiusMeters)
            nearby.keep(found, for: key, at: now)
            Counter(label: "whatweeat_kakao_lookups_total", dimensions: [("outcome", "ok")]).increment()
            return (found, .ok)
        } catch {
            Counter(label: "whatweeat_kakao_lookups_total", dimensions: [("outcome", "failed")]).increment()
            application.logger.warning("Kakao Local did not answer", metadata: ["error": "\(error)"])
            return ([], .unavailable)
        }
    }
}
