import Accounts
package import Fluent
import Messaging
import Payments
package import Platform
package import Vapor

/// Mates (새싹 스터디): people nearby who want the same study or meal find each other, ask, match,
/// chat live, then review each other; faces and backgrounds come from the App Store.
/// docs/MATES.md describes the states and the rules.
package enum MatesFeature: Feature {
    package static let settingsSections: [any SettingsSection.Type] = [MatesSettings.self]
    package static let migrations: [any Migration] = [CreateMates(), AddCodePurpose()]
    package static let syntheticData: (any SyntheticDataGenerator)? = MatesSyntheticGenerator()
    package static let homeCard: HomeCard? = HomeCard(position: 3, emoji: "🤝", key: "mates", path: MatesPath.home())

    package static func configure(_ app: Application, settings: Settings) async throws {
        app.matesEnvironment = MatesEnvironment(clock: app.siteClock, events: app.events, logger: app.logger)
        app.matesLimits = MatesLimits(shared: app.sharedBudgets)
        AppMetrics.countersStartAtZero(["whatweeat_mates_matches_total"])
        AppMetrics.countersStartAtZero(["whatweeat_code_budget_exhausted_total"], label: "channel", values: ["sms", "email"])
        // The console's mates parts (who is suspended, on how many reports, under which name) are
        // kept until a profile announcement or an account change moves the match pages' version.
        let moderationVersion: AdminParts<TodayGroup>.Version = { app in app.matesEnvironment.matchPageViews.current }
        app.adminModeration.register(version: moderationVersion, MatesModerationPages.section)
        app.adminToday.register(version: moderationVersion) { req in
            let suspended = try await req.mates.store.suspensionCount()
            return (req.t("admin.today.mates"), [
                TodayFigure(label: req.t("admin.today.suspended"), value: String(suspended), path: AdminConsole.Tab.moderation.path + "#moderation-mates",
                            needsAttention: suspended > 0),
            ])
        }
        app.codeSender = try makeCodeSender(app, settings: settings.mates)
        app.codeBudgets = CodeBudgets(settings: settings.mates, shared: app.sharedBudgets)
        app.passwordResetCodes = MatesPasswordResetCodes()
        // The daily budgets count a day of codes: never pruned younger.
        let keepCodes = Double(max(1, settings.retention.codesDays)) * 86_400
        app.dailyPrune.register("verification_codes") { app, now in
            try await MatesStore(database: app.db, application: app).pruneCodes(before: now - keepCodes)
        }
        app.appStoreVerifier = try makeAppStoreVerifier(settings.mates.appStore, clock: app.matesEnvironment.now)
        MatesStore.follow(app)
        app.receivedCommentsMemory = PersonMemory(topic: "mates.received-comments", lifetime: 300)
        app.receivedCommentsMemory.follow(app)
        MatesAccountRemoval.register(app)
        // A chat line nobody read in time becomes the conversation's inbox entry.
        MatesService.handleChatNotices(in: app)
        app.lifecycle.use(PeriodicJob("stopped searches nobody renewed", every: .seconds(300)) { app in
            try await MatesService(database: app.db, application: app).expireSearches()
        })
    }

    package static func routes(_ routes: FeatureRoutes) throws {
        try routes.api.register(collection: MatesAPI())
        try routes.web.register(collection: MatesPages())
        try routes.web.register(collection: MatesModerationPages())
    }

    /// Phones by text message when `SMS_URL` names a provider, email by SMTP when `SMTP_URL` is set;
    /// otherwise the server log (a development server; a production one offers no channel that
    /// cannot reach anyone: `MatesSettings.offersPhoneCodes`).
    static func makeCodeSender(_ app: Application, settings: MatesSettings) throws -> any CodeSender {
        let log = LogCodeSender(logger: app.logger)
        var email: any CodeSender = log, phone: any CodeSender = log
        if app.mailDelivery == .smtp { email = MailCodeSender(mail: app.mail) }
        if let sms = settings.sms { phone = SMSCodeSender(sms, application: app) }
        return ChannelCodeSender(phone: phone, email: email)
    }

    static func makeAppStoreVerifier(_ setting: MatesSettings.AppStore, clock: @escaping Now) throws -> (any AppStoreTransactionVerifier)? {
        switch setting {
        case .none: return nil
        case .test: return TestAppStoreVerifier(clock: clock)
        case let .apple(rootCertificatePath, bundleID, environments):
            return StoreKitTransactionVerifier(root: try StoreKitTransactionVerifier.loadRoot(path: rootCertificatePath),
                                               bundleID: bundleID, environments: environments)
        }
    }
}

extension Application {
    private struct ReceivedCommentsMemoryKey: StorageKey { typealias Value = PersonMemory<[String]> }

    /// The review comments each person received, which their own mates pages show on every view
    /// (`MatesService.receivedComments`).
    var receivedCommentsMemory: PersonMemory<[String]> {
        get { configured(ReceivedCommentsMemoryKey.self) }
        set { storage[ReceivedCommentsMemoryKey.self] = newValue }
    }

    private struct AppStoreVerifierKey: StorageKey { typealias Value = any AppStoreTransactionVerifier }

    /// Nil when purchases are off (production without `APPSTORE_ROOT_CERT`).
    var appStoreVerifier: (any AppStoreTransactionVerifier)? {
        get { storage[AppStoreVerifierKey.self] }
        set { storage[AppStoreVerifierKey.self] = newValue }
    }
}
