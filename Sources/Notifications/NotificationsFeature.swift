import Accounts
import Messaging
package import Fluent
import Metrics
package import Platform
package import Vapor

/// The shared inbox, plugged in like a feature: its table and its routes.
package enum NotificationsFeature: Feature {
    package static let migrations: [any Migration] = [CreateNotifications(), AddNotificationEventCount(), CreatePushTables(), AddPushSubscriptionSession(),
                                                      AddPushSubscriptionRefusals(), AddPushAccountPreference()]
    package static var settingsSections: [any SettingsSection.Type] { [PushSettings.self] }

    package static func configure(_ app: Application, settings: Settings) async throws {
        app.pushKeys = PushKeys(settings: settings.push)
        app.pushLimits = PushLimits(shared: app.sharedBudgets)
        AppMetrics.countersStartAtZero(["whatweeat_push_sent_total", "whatweeat_push_failed_total", "whatweeat_push_removed_total",
                                        "whatweeat_app_push_sent_total", "whatweeat_app_push_failed_total", "whatweeat_app_push_removed_total"])
        // Each inbox entry is pushed to the recipient's browsers and app installs, from the durable work queue.
        PushDeliveries.register(in: app)
        AppPushes.register(in: app)
        // Made now, while the site starts (reads while serving must not be the first use).
        _ = app.appDeviceSources
        var appPush: FCMSender?
        if !settings.push.fcmAccounts.isEmpty {
            let client = WebPushSender.makeClient(on: app.eventLoopGroup)
            app.lifecycle.use(HTTPClientShutdown(client: client))
            appPush = FCMSender(accounts: settings.push.fcmAccounts, apiURL: settings.push.fcmAPIURL, client: client, now: app.siteClock)
        }
        app.notificationsEnvironment = NotificationsEnvironment(now: app.siteClock, events: app.events, logger: app.logger, unreadCounts: UnreadCounts(),
                                                                pushQueue: app.workQueue, appPush: appPush)
        app.readinessDetail("app_push") { app in
            let projects = app.notificationsEnvironment.appPush?.accounts.keys.sorted() ?? []
            return projects.isEmpty ? "off: no FCM_SERVICE_ACCOUNTS, nothing is sent to the apps" : "fcm: " + projects.joined(separator: ", ")
        }
        // A sign-in from a new device: an entry (and a push, by the `account` switch) in case it was not them.
        app.newDeviceSignIns.listen { app, signIn in
            try await NotificationStore(database: app.db, application: app).post(NotificationDraft(
                recipient: signIn.userID, actor: nil, service: "accounts", kind: "account_new_device", subjectID: signIn.sessionID,
                link: "/me#devices", excerpt: signIn.device))
        }
        let keepRead = Double(settings.retention.readNotificationsDays) * 86_400
        app.dailyPrune.register("read_notifications") { app, now in
            try await NotificationStore(database: app.db, application: app).pruneRead(before: now - keepRead)
        }
        // Inboxes changed on any instance are counted afresh here too.
        app.unreadCounts.follow(app)
        // The inboxes' first pages show their actors' names and pictures: an account's change,
        // announced to every instance by the session cache, makes them read again.
        app.follow(SessionCache.topic) { app, message in
            if case .user = SessionCache.Change(message: message) { app.unreadCounts.forgetFirstPages() }
        }
        // A deleted account's words leave every inbox with it (its name goes with the account's row).
        app.accountRemovals.register(beforeDelete: { [weak app] user, transaction in
            let recipients = try await NotificationStore.forgetWords(ofDeleted: user, on: transaction)
            guard let app else { return }
            let store = NotificationStore(database: app.db, application: app)
            for recipient in recipients { await store.announceChange(for: recipient) }
        })
    }

    package static func routes(_ routes: FeatureRoutes) throws {
        try routes.api.register(collection: NotificationsAPI())
        try routes.api.register(collection: PushAPI())
        try routes.web.register(collection: NotificationsPages())
        try routes.web.register(collection: NotificationSettingsPages())
    }
}
