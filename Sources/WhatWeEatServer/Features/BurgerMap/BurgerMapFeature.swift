import Fluent
import Vapor

/// The burger map (LookForRealBurger): places on a map, found by box, by distance or by name.
/// Reviews, photos, follows and feeds come next (issue 12); until its pages are built, `/map` is
/// an empty state that keeps the menu game's "find restaurants nearby" search.
enum BurgerMapFeature: Feature {
    static let migrations: [any Migration] = [CreateBurgerPlaces()]
    static let homeCard: HomeCard? = HomeCard(position: 2, emoji: "🍔", key: "burger_map", path: nil)

    static func routes(_ routes: FeatureRoutes) throws {
        try routes.api.register(collection: BurgerMapAPI())
        try routes.web.register(collection: BurgerMapPages())
    }
}
