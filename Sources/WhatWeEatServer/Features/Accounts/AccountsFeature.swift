import Fluent
import Vapor

/// Accounts: sign-up, login, API tokens and browser sessions, the profile. Every other feature
/// signs people in through it.
enum AccountsFeature: Feature {
    static let migrations: [any Migration] = [
        CreateUsers(), CreateAuthSessions(), CreateRefreshTokens(), CreateLoginFailures(), AddRefreshTokenSuccessor(),
    ]

    static func configure(_ app: Application, settings: Settings) async throws {
        app.passwordHasher = try PasswordHasher(cost: settings.bcryptCost)
        app.lifecycle.use(PasswordHasherLifecycle(hasher: app.passwordHasher))
        app.accountLimits = AccountLimits(settings: settings)
        app.sessionCache = SessionCache()
        app.lifecycle.use(SessionCacheFollower())
        app.fileReferences.register { key, database in
            try await User.query(on: database).filter(\.$profileImageKey == key).count() > 0
        }
    }

    static func routes(_ routes: FeatureRoutes) throws {
        try routes.api.register(collection: AccountsAPI())
        try routes.web.register(collection: AccountPages())
        try routes.web.register(collection: BrowserAPIToken())
    }
}
