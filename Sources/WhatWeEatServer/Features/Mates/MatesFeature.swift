import Vapor

/// Mates (새싹 스터디): people nearby for a study or a meal. Not built yet: only its home card.
enum MatesFeature: Feature {
    static let homeCard: HomeCard? = HomeCard(position: 3, emoji: "🤝", key: "mates", path: nil)

    static func routes(_ routes: FeatureRoutes) throws {}
}
