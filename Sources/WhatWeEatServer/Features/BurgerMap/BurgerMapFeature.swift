import Vapor

/// The burger map (LookForRealBurger). Until it is built, `/map` is an empty state that keeps the
/// menu game's "find restaurants nearby" search.
enum BurgerMapFeature: Feature {
    static let homeCard: HomeCard? = HomeCard(position: 2, emoji: "🍔", key: "burger_map", path: nil)

    static func routes(_ routes: FeatureRoutes) throws {
        try routes.web.register(collection: BurgerMapPages())
    }
}
