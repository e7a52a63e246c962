package import Platform
import Vapor

/// The 배민찬 app's own routes (`BanchanCompatRoutes`), on the shop.
package enum BanchanAppLayer: Feature {
    package static func routes(_ routes: FeatureRoutes) throws {
        try routes.open.register(collection: BanchanCompatRoutes())
    }
}
