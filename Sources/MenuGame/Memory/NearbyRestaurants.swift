import Foundation
package import Platform

/// Kakao Local's answers to "restaurants for this menu around here", kept per menu and ~500 m
/// square for ten minutes (everyone in a class near one another shares one), with a budget of
/// Kakao look-ups per network. Nil `kakao`: no `KAKAO_REST_API_KEY`, nothing is asked.
package final class NearbyRestaurants: Sendable {
    let kakao: KakaoLocal?
    let budget: NetworkBudget
    private let kept = BoundedMemory<String, Kept>(name: "menu_game_nearby", capacity: 4_096)
    static let lifetime: TimeInterval = 600

    struct Kept: Sendable {
        let places: [KakaoPlace]
        let fetchedAt: Date
    }

    init(kakao: KakaoLocal?, budget: NetworkBudget) {
        self.kakao = kakao
        self.budget = budget
    }

    /// What Kakao said of `key` less than ten minutes before `now`.
    func places(for key: String, now: Date) -> [KakaoPlace]? {
        kept.values(for: [key], where: { now.timeIntervalSince($0.fetchedAt) < Self.lifetime }).found[key]?.places
    }

    func keep(_ places: [KakaoPlace], for key: String, at now: Date) {
        kept.keep(Kept(places: places, fetchedAt: now), for: key, stale: { now.timeIntervalSince($0.fetchedAt) >= Self.lifetime })
    }
}
