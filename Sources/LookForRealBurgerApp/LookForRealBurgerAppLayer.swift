import Platform

/// The LookForRealBurger app's LSLP `/v1` routes (`BurgerMapCompatRoutes`), on the burger map and
/// the accounts; `LSLP_API_KEYS` turns them on.
package enum LookForRealBurgerAppLayer: Feature {
    package static let settingsSections: [any SettingsSection.Type] = [LookForRealBurgerAppSettings.self]

    package static func routes(_ routes: FeatureRoutes) throws {
        try routes.open.register(collection: BurgerMapCompatRoutes())
    }
}
