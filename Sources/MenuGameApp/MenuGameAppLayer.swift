package import Platform
import Vapor

/// The 우리뭐먹지 app's own routes (`MenuGameCompatRoutes`), on the menu game. Removing this line
/// from `Features.all` and this target takes them away and leaves the game.
package enum MenuGameAppLayer: Feature {
    package static func routes(_ routes: FeatureRoutes) throws {
        try routes.open.register(collection: MenuGameCompatRoutes())
    }
}
