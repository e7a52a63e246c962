package import Fluent
package import Vapor

/// One part of the app — a service such as the menu game, or the accounts foundation — plugged in
/// by one line in `App/Features.swift`. Everything else about it lives in its own folder
/// (`Features/<Name>/`); `configure`, the routes, the seeders and the home page walk the list.
/// docs/ADDING_A_FEATURE.md is the checklist.
package protocol Feature: Sendable {
    /// The feature's own settings, read from the environment at start-up (`Settings.load`).
    static var settingsSections: [any SettingsSection.Type] { get }
    /// Schema changes, in order. Features migrate in the order of `Features.all`.
    static var migrations: [any Migration] { get }
    /// Catalog loaders, run on every start; each must be idempotent.
    static var seeders: [any Seeder] { get }
    /// The feature's card on the home page; nil for a feature that is not a service.
    static var homeCard: HomeCard? { get }
    /// What `whatweeat seed --synthetic` generates for this feature's benchmarks, if anything.
    static var syntheticData: (any SyntheticDataGenerator)? { get }
    /// Services in application storage, lifecycle handlers, event-bus followers.
    static func configure(_ app: Application, settings: Settings) async throws
    /// Registers the feature's routes on the three groups the app offers.
    static func routes(_ routes: FeatureRoutes) throws
}

extension Feature {
    package static var settingsSections: [any SettingsSection.Type] { [] }
    package static var migrations: [any Migration] { [] }
    package static var seeders: [any Seeder] { [] }
    package static var homeCard: HomeCard? { nil }
    package static var syntheticData: (any SyntheticDataGenerator)? { nil }
    package static func configure(_ app: Application, settings: Settings) async throws {}
}

/// The route groups a feature registers on.
package struct FeatureRoutes {
    /// JSON API under `/api/v1/…`: a bearer token signs the request in when present.
    package let api: any RoutesBuilder
    /// Routes without authentication: the shipped iOS apps' compatibility routes, generated images.
    package let open: any RoutesBuilder
    /// Browser pages: the cookie session signs in, every unsafe method needs the CSRF token, and
    /// `req.browserDevice` is the browser's anonymous device (its cookie set once, on the way out).
    package let web: any RoutesBuilder

    package init(api: any RoutesBuilder, open: any RoutesBuilder, web: any RoutesBuilder) {
        self.api = api
        self.open = open
        self.web = web
    }
}

/// A service's card on the home page.
package struct HomeCard: Sendable {
    /// Cards are shown in this order.
    package let position: Int
    package let emoji: String
    /// Translation keys `service.<key>.name` and `service.<key>.summary`.
    package let key: String
    /// nil while the service's pages are not served: the card then says "coming soon".
    package let path: String?

    package init(position: Int, emoji: String, key: String, path: String?) {
        self.position = position
        self.emoji = emoji
        self.key = key
        self.path = path
    }
}
