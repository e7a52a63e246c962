package import Fluent
import Mates
import Notifications
package import Platform
import SocketIO
package import Vapor

/// The 새싹 스터디 apps' `/v1` routes and their Socket.IO chat (`MatesCompatRoutes`,
/// `MatesCompatSocket`), on mates: Firebase ID tokens sign them in (`FIREBASE_PROJECT_IDS`).
package enum SesacStudyAppLayer: Feature {
    package static let settingsSections: [any SettingsSection.Type] = [FirebaseSettings.self]
    package static let migrations: [any Migration] = [CreateMatesAppUsers(), CreateMatesAppNetworks(), AddMatesAppUserSocketCookie()]

    package static func configure(_ app: Application, settings: Settings) async throws {
        // The apps' sign-in; nil (every `/v1` call 401) without FIREBASE_PROJECT_IDS.
        app.firebaseTokens = FirebaseIDTokenVerifier.make(app, settings: settings.firebase)
        app.appSightings = AppSightings()
        app.appSocketCookies = AppSocketCookies()
        app.appUIDMemory = PersonMemory(topic: "sesac.app-uids", lifetime: 300)
        app.appUIDMemory.follow(app)
        app.appAccounts = AppAccounts()
        app.appAccounts.follow(app)
        // The apps' installs take the inbox's pushes through FCM (`FCM_SERVICE_ACCOUNTS`): the
        // token each sent (`FCMtoken`, `update_fcm_token`) in its uid's Firebase project, with the
        // other person's uid for the app to open the chat.
        app.appDeviceSources.register(AppDeviceSource(name: "sesac", devices: { app, account in
            try await AppUserStore(database: app.db).pushTokens(ofAccount: account).map {
                AppDevice(source: "sesac", reference: $0.uid, project: $0.project, token: $0.token)
            }
        }, data: { app, entry in
            guard let actor = entry.actor?.id, let uid = try await AppUserStore(database: app.db).newestUIDs(of: [actor])[actor] else { return [:] }
            return ["uid": uid]
        }, forget: { app, device in
            try await AppUserStore(database: app.db).forgetPushToken(uid: device.reference, ifStill: device.token)
        }))
        // The networks a uid called from are read for a day, then forgotten.
        app.lifecycle.use(PeriodicJob("forgot the apps' networks older than a day", every: .seconds(600)) { app in
            try await SesacAppService(database: app.db, application: app).pruneAppSightings()
        })
        // An account that goes takes its app uids' networks with it.
        app.accountRemovals.register(beforeDelete: { user, database in
            try await SesacAppService.forgetAppSightings(ofAccount: user, on: database)
        }, afterDelete: { [weak app] user, _ in
            guard let app else { return }
            await app.appUIDMemory.forget(user, announcingOn: app.events)
            await app.appAccounts.forgetEveryone(announcingOn: app.events)
        })
    }

    package static func routes(_ routes: FeatureRoutes) throws {
        try routes.open.register(collection: MatesCompatRoutes())
        SocketIOServer(handler: MatesCompatSocket(), feature: "mates", host: LiveSocketHost()).register(on: routes.open)
    }
}

extension Application {
    private struct AppUIDMemoryKey: StorageKey { typealias Value = PersonMemory<String> }

    /// The uid the apps know each account by (`SesacAppService.appUIDs`).
    var appUIDMemory: PersonMemory<String> {
        get { configured(AppUIDMemoryKey.self) }
        set { storage[AppUIDMemoryKey.self] = newValue }
    }
}
