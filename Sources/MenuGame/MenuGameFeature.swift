package import Fluent
import Notifications
package import Platform
package import Vapor

/// The menu game (우리뭐먹지): solo and group games, the shipped iOS app's routes, its pages.
package enum MenuGameFeature: Feature {
    package static let migrations: [any Migration] = [CreateMenus(), CreateMenuGroups(), CreateMenuGamePreferencesAndFeedback(), AddSubmissionUserID(), CreateMenuGroupMembers(),
                                                      AddMenuGroupMemberPush()]
    package static let seeders: [any Seeder] = [MenuSeeder()]
    package static let homeCard: HomeCard? = HomeCard(position: 1, emoji: "🎴", key: "menu_game", path: PlayPath.home())

    package static var settingsSections: [any SettingsSection.Type] { [KakaoLocalSettings.self, MenuGameRoomSettings.self] }

    package static func configure(_ app: Application, settings: Settings) async throws {
        // Kakao look-ups a minute a network (answers are kept per menu and square, so a class asks each once).
        let nearby = NearbyRestaurants(kakao: KakaoLocal(settings: settings.kakao, client: app.client),
                                       budget: NetworkBudget(name: "menu_game_nearby", limit: NearbyRules.lookupsPerNetworkPerMinute, window: 60, shared: app.sharedBudgets, clock: app.siteClock))
        app.menuGameEnvironment = MenuGameEnvironment(now: app.siteClock, events: app.events, logger: app.logger, publicURL: settings.publicURL,
                                                      nearby: nearby)
        app.readinessDetail("kakao_local") { app in app.menuGameEnvironment.nearby.kakao == nil ? "off: no KAKAO_REST_API_KEY" : "on" }
        AppMetrics.countersStartAtZero(["whatweeat_menu_groups_closed_total"])
        MenuStore.follow(app)
        // The 우리뭐먹지 app's players take the result's push (`tellAppPlayers`); FCM's "gone" forgets a token.
        app.appDeviceSources.register(AppDeviceSource(name: MenuGameService.appPushSource, devices: { _, _ in [] }, data: { _, _ in [:] },
                                                      forget: { app, device in
            guard let member = UUID(uuidString: device.reference) else { return }
            try await MenuGroupStore(database: app.db).forgetPushToken(ofMember: member, ifStill: device.token)
        }))
        app.savedDislikesMemory.follow(app)
        app.menuGameEnvironment.feedback.follow(app)
        app.lifecycle.use(PeriodicJob("wrote shown menus", every: .seconds(1)) { app in try await app.shownMenus.flush(on: app.db) })
        app.lifecycle.use(ShownMenusFlush())
        app.pinMisses = GuessLimiter(name: "menu_game_pins", limit: 20, window: 60, clock: app.siteClock)
        app.pinMissesPerNetwork = GuessLimiter(name: "menu_game_pins_network", limit: 200, window: 60, clock: app.siteClock)
        let rooms = app.settings.menuGameRooms
        app.roomsPerNetwork = NetworkBudget(name: "menu_game_rooms", limit: rooms.perNetwork, window: MenuGameRoomSettings.window, shared: app.sharedBudgets)
        app.roomsPerHost = RateLimiter(name: "menu_game_rooms_host", limit: rooms.perDevice, window: MenuGameRoomSettings.window, shared: app.sharedBudgets)
        // Rooms that are over give their PIN back, and the PIN space's use is on `/metrics`.
        app.lifecycle.use(PeriodicJob("forgot finished menu-game rooms", every: .seconds(300)) { app in
            try await MenuGameService.pruneRooms(MenuGroupStore(database: app.db), now: app.menuGameEnvironment.now())
        })
        app.feedbackLimiter = NetworkBudget(name: "menu_game_feedback", limit: 5, window: 600, shared: app.sharedBudgets)
        app.roomEntries = NetworkBudget(name: "menu_game_room", limit: 200, window: 600, shared: app.sharedBudgets)
    }

    package static func routes(_ routes: FeatureRoutes) throws {
        try routes.api.register(collection: MenuGameAPI())
        try routes.api.register(collection: MenuGamePreferencesAPI())
        try routes.open.register(collection: MenuImages())
        try routes.web.register(collection: MenuGamePages())
        try routes.web.register(collection: MenuGameAdminPages())
    }
}

extension Application {
    private struct PINMissesKey: StorageKey { typealias Value = GuessLimiter }
    private struct FeedbackLimiterKey: StorageKey { typealias Value = NetworkBudget }

    /// Failed PIN look-ups per device (20 a minute, then 429): guessing a PIN takes hundreds of
    /// thousands of tries.
    var pinMisses: GuessLimiter {
        get { configured(PINMissesKey.self) }
        set { storage[PINMissesKey.self] = newValue }
    }

    private struct PINMissesPerNetworkKey: StorageKey { typealias Value = GuessLimiter }
    private struct RoomsPerNetworkKey: StorageKey { typealias Value = NetworkBudget }
    private struct RoomsPerHostKey: StorageKey { typealias Value = RateLimiter }

    /// ...and per client network (200 a minute: forty students mistyping, not a script).
    var pinMissesPerNetwork: GuessLimiter {
        get { configured(PINMissesPerNetworkKey.self) }
        set { storage[PINMissesPerNetworkKey.self] = newValue }
    }

    /// Rooms opened per client network: 60 in ten minutes (the PIN space is 900,000).
    var roomsPerNetwork: NetworkBudget {
        get { configured(RoomsPerNetworkKey.self) }
        set { storage[RoomsPerNetworkKey.self] = newValue }
    }

    /// ...and per host (account or device): 10 in ten minutes.
    var roomsPerHost: RateLimiter {
        get { configured(RoomsPerHostKey.self) }
        set { storage[RoomsPerHostKey.self] = newValue }
    }

    /// Feedback notes per client network: 5 in 10 minutes, then 429.
    var feedbackLimiter: NetworkBudget {
        get { configured(FeedbackLimiterKey.self) }
        set { storage[FeedbackLimiterKey.self] = newValue }
    }

    private struct RoomEntriesKey: StorageKey { typealias Value = NetworkBudget }

    /// Entries and renames in group rooms per client network (`PUT …/member`): 200 in 10 minutes,
    /// then 429. Each is announced to everyone in the room (one a few seconds at most, from one
    /// network); a class of 40 sharing one address can each join and rename a few times.
    var roomEntries: NetworkBudget {
        get { configured(RoomEntriesKey.self) }
        set { storage[RoomEntriesKey.self] = newValue }
    }
}
