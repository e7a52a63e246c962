import Accounts
package import Fluent
import Media
package import Platform
package import Vapor

/// The burger map (LookForRealBurger): places on a map, found by box, by distance or by name;
/// photo reviews with likes, bookmarks, comments and reports; marks, follows and feeds.
/// docs/BURGER_MAP.md describes the model; the LookForRealBurger app's own LSLP routes are
/// `BurgerMapCompatRoutes`.
package enum BurgerMapFeature: Feature {
    package static let migrations: [any Migration] = [CreateBurgerPlaces(), CreateBurgerReviews(), CreatePlaceSearch(), AddReviewTimelineIndex(),
                                                    AddAppPlaceKeysAndDonations(), AddReportDismissals(), AddPlaceVerification()]
    package static let homeCard: HomeCard? = HomeCard(position: 2, emoji: "🍔", key: "burger_map", path: MapPath.map())

    package static let seeders: [any Seeder] = [BurgerPlacesSeeder()]
    package static var settingsSections: [any SettingsSection.Type] { [KakaoLocalSettings.self, PostcodeSettings.self] }
    package static let syntheticData: (any SyntheticDataGenerator)? = BurgerMapSyntheticGenerator()

    package static func configure(_ app: Application, settings: Settings) async throws {
        // The map's one environment: clock, bus, log, files, memories and budgets (`BurgerMapEnvironment`).
        app.burgerMapEnvironment = BurgerMapEnvironment.make(for: app)
        // The map's kept answers, values and pages name people (a review's author, a person's page):
        // a changed account (a nickname, a picture) on any instance makes them again, so it shows at once.
        app.followAccountChanges { app, _ in app.burgerMapCache.invalidate() }
        app.placeGeocoder = PlaceGeocoder(kakao: KakaoLocal(settings: settings.kakao, client: app.client),
                                          budget: NetworkBudget(name: "burger_map_geocode", limit: PlaceGeocoder.lookupsPerNetworkPerMinute, window: 60,
                                                                shared: app.sharedBudgets, clock: app.siteClock))
        AppMetrics.countersStartAtZero(["whatweeat_burger_reviews_written_total"])
        // The console's map parts are kept until a moderation write or a content write (titles,
        // names) moved one of these, here or on another instance.
        let moderationVersion: AdminParts<TodayGroup>.Version = { app in
            app.burgerMapEnvironment.moderation.current &+ app.burgerMapCache.generation
        }
        app.burgerMapEnvironment.moderation.follow(app)
        app.adminModeration.register(version: moderationVersion, BurgerMapModerationPages.section)
        app.adminToday.register(version: moderationVersion) { req in
            let store = req.burgerMap.store
            let reviews = try await store.reviewsAwaitingDecision(), suggestions = try await store.suggestionCount()
            let tab = AdminConsole.Tab.moderation.path
            return (req.t("admin.today.map"), [
                TodayFigure(label: req.t("admin.today.reports_waiting"), value: String(reviews), path: tab + "#moderation-reviews", needsAttention: reviews > 0),
                TodayFigure(label: req.t("admin.today.suggestions_waiting"), value: String(suggestions), path: tab + "#moderation-suggestions",
                            needsAttention: suggestions > 0),
            ])
        }
        app.fileReferences.register { key, database in
            try await BurgerMapStore.photoUses(fileKey: key, on: database)
        }
        PlaceIndex.follow(app)
        BurgerMapAccountRemoval.register(app)
        // Photos uploaded for a review that was never posted go after a day.
        app.lifecycle.use(PeriodicJob("deleted photos no review took", every: .seconds(600)) { app in
            try await BurgerMapService(database: app.db, application: app).deleteAbandonedPhotos()
        })
    }

    package static func routes(_ routes: FeatureRoutes) throws {
        try routes.api.register(collection: BurgerMapAPI())
        try routes.open.register(collection: BurgerMapImages())
        try routes.web.register(collection: BurgerMapPages())
        try routes.web.register(collection: BurgerMapModerationPages())
    }
}
