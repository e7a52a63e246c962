import Fluent
import Mates
import Platform
import SocketIO
import Vapor

/// The 새싹 스터디 apps' `/v1` routes and their Socket.IO chat (`MatesCompatRoutes`,
/// `MatesCompatSocket`), on mates: Firebase ID tokens sign them in (`FIREBASE_PROJECT_IDS`).
package enum SesacStudyAppLayer: Feature {
    package static let settingsSections: [any SettingsSection.Type] = [FirebaseSettings.self]
    package static let migrations: [any Migration] = [CreateMatesAppUsers(), CreateMatesAppNetworks()]

    package static func configure(_ app: Application, settings: Settings) async throws {
        // The apps' sign-in; nil (every `/v1` call 401) without FIREBASE_PROJECT_IDS.
        app.firebaseTokens = FirebaseIDTokenVerifier.make(app, settings: settings.firebase)
        app.appSightings = AppSightings()
        // The networks a uid called from are read for a day, then forgotten.
        app.lifecycle.use(PeriodicJob("forgot the apps' networks older than a day", every: .seconds(600)) { app in
            try await MatesService(database: app.db, application: app).pruneAppSightings()
        })
        // An account that goes takes its app uids' networks with it.
        app.accountRemovals.register(beforeDelete: { user, database in
            try await MatesService.forgetAppSightings(ofAccount: user, on: database)
        }, afterDelete: { _, _ in })
    }

    package static func routes(_ routes: FeatureRoutes) throws {
        try routes.open.register(collection: MatesCompatRoutes())
        SocketIOServer(handler: MatesCompatSocket(), feature: "mates", host: LiveSocketHost()).register(on: routes.open)
    }
}
