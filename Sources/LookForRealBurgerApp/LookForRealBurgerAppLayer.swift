import Accounts
import BurgerMap
package import Platform
package import Vapor

/// The LookForRealBurger app's LSLP `/v1` routes (`BurgerMapCompatRoutes`), on the burger map and
/// the accounts; `LSLP_API_KEYS` turns them on.
package enum LookForRealBurgerAppLayer: Feature {
    package static let settingsSections: [any SettingsSection.Type] = [LookForRealBurgerAppSettings.self]

    package static func configure(_ app: Application, settings: Settings) async throws {
        app.shopPostFragments = ShopPostFragments(versions: app.placeVersions)
        // A shop names its creator and reviewers: a changed account (a nickname, a picture) makes them again.
        app.followAccountChanges { app, person in
            // The whole map's answer is kept too: it goes with them, so the new name shows at once.
            if app.shopPostFragments.forget(person: person) { app.burgerMapCache.invalidate() }
        }
    }

    package static func routes(_ routes: FeatureRoutes) throws {
        try routes.open.register(collection: BurgerMapCompatRoutes())
    }
}
