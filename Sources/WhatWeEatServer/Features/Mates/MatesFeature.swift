import Fluent
import Vapor

/// Mates (새싹 스터디): people nearby who want the same study or meal find each other, ask, match,
/// chat live, then review each other; faces and backgrounds come from the App Store.
/// docs/MATES.md describes the states and the rules.
enum MatesFeature: Feature {
    static let migrations: [any Migration] = [CreateMates(), CreateMatesAppUsers(), CreateMatesAppNetworks()]
    static let homeCard: HomeCard? = HomeCard(position: 3, emoji: "🤝", key: "mates", path: MatesPages.Tab.home.path)

    static func configure(_ app: Application, settings: Settings) async throws {
        app.codeSender = try makeCodeSender(app, settings: settings.mates)
        app.appStoreVerifier = try makeAppStoreVerifier(settings.mates.appStore)
        // The 새싹 스터디 apps' sign-in; nil (every `/v1` call 401) without FIREBASE_PROJECT_IDS.
        app.firebaseTokens = FirebaseIDTokenVerifier.make(app, settings: settings.firebase)
        app.appSightings = AppSightings()
        SearchingIndex.follow(app)
        MatesAccountRemoval.register(app)
        app.lifecycle.use(PeriodicJob("stopped searches nobody renewed", every: .seconds(300)) { app in
            try await MatesService(database: app.db, application: app).expireSearches()
        })
    }

    static func routes(_ routes: FeatureRoutes) throws {
        try routes.api.register(collection: MatesAPI())
        try routes.web.register(collection: MatesPages())
        try routes.open.register(collection: MatesCompatRoutes())
        SocketIOServer(handler: MatesCompatSocket(), feature: "mates").register(on: routes.open)
    }

    static func makeCodeSender(_ app: Application, settings: Settings.MatesSettings) throws -> any CodeSender {
        let log = LogCodeSender(logger: app.logger)
        guard let url = settings.smtpURL else { return log }
        return SMTPCodeSender(mailer: SMTPMailer(configuration: try SMTPConfiguration(url: url), eventLoopGroup: app.eventLoopGroup), phones: log)
    }

    static func makeAppStoreVerifier(_ setting: Settings.MatesSettings.AppStore) throws -> (any AppStoreTransactionVerifier)? {
        switch setting {
        case .none: return nil
        case .test: return TestAppStoreVerifier()
        case let .apple(rootCertificatePath, bundleID, environments):
            return StoreKitTransactionVerifier(root: try StoreKitTransactionVerifier.loadRoot(path: rootCertificatePath),
                                               bundleID: bundleID, environments: environments)
        }
    }
}

extension Application {
    private struct AppStoreVerifierKey: StorageKey { typealias Value = any AppStoreTransactionVerifier }

    /// Nil when purchases are off (production without `APPSTORE_ROOT_CERT`).
    var appStoreVerifier: (any AppStoreTransactionVerifier)? {
        get { storage[AppStoreVerifierKey.self] }
        set { storage[AppStoreVerifierKey.self] = newValue }
    }
}
