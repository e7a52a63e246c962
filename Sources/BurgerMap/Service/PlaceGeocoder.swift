import Foundation
package import Platform
package import Vapor

/// Where an address typed for a new place is, from Kakao Local's address search when
/// `KAKAO_REST_API_KEY` is set (the write page then moves the pin there for the writer to
/// confirm); without a key the pin the writer places is the place's position. Each network has
/// `lookupsPerNetworkPerMinute` look-ups (a class adding places at once fits; a script does not).
package struct PlaceGeocoder: Sendable {
    package static let lookupsPerNetworkPerMinute = 120
    /// An address shorter than this is not worth asking about; longer than the field allows is refused.
    package static let addressLength = 2...120

    package let kakao: KakaoLocal?
    let budget: NetworkBudget

    /// `kakao` in the answer: `ok` (asked; `match` when Kakao knows the address), `off` (no key),
    /// `busy` (this network's budget is spent) or `unavailable` (Kakao did not answer).
    package enum Outcome: String, Codable, Sendable { case ok, off, busy, unavailable }

    func locate(_ address: String, network: ClientNetwork, now: Date, logger: Logger) async throws -> (Outcome, KakaoAddress?) {
        guard let kakao else { return (.off, nil) }
        guard case .success = try await budget.tryReserve(network, now: now) else { return (.busy, nil) }
        do {
            return (.ok, try await kakao.address(address))
        } catch {
            logger.warning("Kakao Local's address search did not answer", metadata: ["error": "\(error)"])
            return (.unavailable, nil)
        }
    }
}

extension Application {
    private struct PlaceGeocoderKey: StorageKey { typealias Value = PlaceGeocoder }

    package var placeGeocoder: PlaceGeocoder {
        get { configured(PlaceGeocoderKey.self) }
        set { storage[PlaceGeocoderKey.self] = newValue }
    }
}
