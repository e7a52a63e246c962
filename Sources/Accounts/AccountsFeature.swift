package import Fluent
import Media
import Messaging
package import Platform
package import Vapor

/// Accounts: sign-up, login, API tokens and browser sessions, the profile. Every other feature
/// signs people in through it.
package enum AccountsFeature: Feature {
    /// `SMTP_URL`: the mail every feature sends (reset links here, codes in Mates).
    package static let settingsSections: [any SettingsSection.Type] = [MailSettings.self]

    package static let migrations: [any Migration] = [
        CreateUsers(), CreateAuthSessions(), CreateRefreshTokens(), CreateLoginFailures(), AddRefreshTokenSuccessor(),
        RecomputeNicknameKeys(),
        // The platform's table of per-address budgets shared by instances (the accounts' are its first users).
        CreateRateLimitSlots(),
        // The platform's count of each account's stored bytes (uploads of every feature).
        CreateStorageUsage(),
        // ...and the bytes young accounts uploaded per network and day.
        CreateStorageNetworkDays(),
        // The uploaded files, when they are kept in the database (`UPLOAD_STORAGE`).
        DatabaseFileStorage.Create(),
        // The platform's durable work queue (`WorkQueue`), which every feature may hand work to.
        CreateWorkItems(),
        // The platform's audit log (`AuditLog`): what operators did, written by each feature.
        CreateAuditLog(),
        AddAccountSuspension(),
        // The platform's daily tallies of failures (`DailyTallies`), which the console's today page reads.
        CreateDailyTallies(),
        // The work queue's once-per-key items (a conversation's one pending unread check).
        AddWorkItemOnceKey(),
        // Mailed links (a password reset).
        CreateAccountLinks(),
        AddSessionLastSeen(),
        // The platform's record of chores' last runs (`DailyPrune` runs on one instance a day).
        CreateMaintenanceRuns(),
        AddAccountLinkEmail(),
        // The platform's record of what administrators were shown of people's data (`AccessRecords`).
        CreateAccessRecords(),
    ]

    package static func configure(_ app: Application, settings: Settings) async throws {
        // Nickname keys are Unicode's confusables skeleton: its data is read once, before any name.
        Confusables.use(try Confusables.load(root: app.directory.workingDirectory))
        try app.configureMail(settings.mail)
        AppMetrics.countersStartAtZero(["whatweeat_email_changes_total", "whatweeat_email_changes_undone_total", "whatweeat_password_reset_requests_total",
                                        "whatweeat_password_reset_mails_total", "whatweeat_password_resets_total"])
        let passwords = try BcryptHasher(cost: settings.bcryptCost)
        app.passwordHasher = passwords  // the shipped apps' joins hash with it too
        app.lifecycle.use(PasswordHasherLifecycle(hasher: passwords))
        app.accountsEnvironment = AccountsEnvironment(now: app.siteClock, events: app.events, logger: app.logger, passwords: passwords,
                                                      limits: AccountLimits(settings: settings, shared: app.sharedBudgets))
        app.lifecycle.use(StorageQuota.pruneJob())
        app.lifecycle.use(DailyTallies.pruneJob())
        app.dailyTallyChanges.follow(app)
        AccountService.registerResetMail(in: app)
        AccountService.registerResetCodes(in: app)
        let retention = settings.retention, day: TimeInterval = 86_400
        app.dailyPrune.register("sessions") { app, now in
            try await AccountStore(database: app.db, application: app).pruneSessions(endedBefore: now - Double(retention.sessionsDays) * day)
        }
        app.dailyPrune.register("login_failures") { app, now in
            try await AccountStore(database: app.db, application: app).pruneLoginFailures(before: now - Double(retention.loginFailuresDays) * day)
        }
        app.dailyPrune.register("reset_links") { app, now in
            try await AccountStore(database: app.db, application: app).pruneLinks(before: now - Double(retention.codesDays) * day)
        }
        app.accessRecordWriter = AccessRecordWriter()
        app.dailyPrune.register("access_records") { app, now in try await AccessRecords(database: app.db).prune(now: now) }
        app.lifecycle.use(DailyPrune.job())
        // Accounts changed and sessions ended on any instance are forgotten here too.
        app.follow(SessionCache.topic) { app, message in
            if let change = SessionCache.Change(message: message) { app.sessionCache.apply(change) }
        }
        app.fileReferences.register { key, database in
            try await AccountStore.profileImageUses(fileKey: key, on: database)
        }
    }

    package static func routes(_ routes: FeatureRoutes) throws {
        try routes.api.register(collection: AccountsAPI())
        try routes.api.register(collection: AdminAuditAPI())
        try routes.web.register(collection: AccountPages())
        try routes.web.register(collection: BrowserAPIToken())
        try routes.web.register(collection: AdminConsolePages())
        try routes.web.register(collection: AdminPeoplePages())
    }
}
