import Accounts
package import Fluent
import Foundation
package import Messaging
import NIOConcurrencyHelpers
package import Platform
import Vapor

/// `/api/v1/push`: the server's VAPID key for `pushManager.subscribe`, a browser's subscription
/// kept and forgotten, and what the person wants pushed.
struct PushAPI: RouteCollection {
    struct PublicKey: Content { let publicKey: String }

    /// `PushSubscription.toJSON()`.
    struct SubscriptionBody: Content {
        struct Keys: Content { let p256dh, auth: String }
        let endpoint: String
        /// Milliseconds since 1970, or null (most browsers).
        let expirationTime: Double?
        let keys: Keys
    }

    struct EndpointBody: Content { let endpoint: String }

    func boot(routes: any RoutesBuilder) throws {
        let push = routes.grouped("api", "v1", "push")
        push.get("vapid-public-key", use: publicKey)
        push.post("subscriptions", use: subscribe)
        push.delete("subscriptions", use: unsubscribe)
        push.get("preferences", use: preferences)
        push.put("preferences", use: setPreferences)
    }

    func publicKey(req: Request) async throws -> PublicKey {
        PublicKey(publicKey: try await req.application.pushKeys.vapid(req.db, now: req.application.notificationsEnvironment.now()).publicKey)
    }

    func subscribe(req: Request) async throws -> Response {
        let user = try req.requireUser().requireID()
        // A refused request gives its slot back (`withSlot`): only subscriptions kept count.
        return try await req.application.pushLimits.subscriptions.withSlot(user.uuidString, code: "too_many_push_subscriptions") {
            let body = try req.decodeJSON(SubscriptionBody.self)
            guard req.application.settings.push.accepts(body.endpoint) else { throw AppError.invalid("invalid_push_endpoint") }
            guard let keys = PushSubscriptionKeys(p256dh: body.keys.p256dh, auth: body.keys.auth) else { throw AppError.invalid("invalid_push_keys") }
            let expiresAt = body.expirationTime.map { Date(timeIntervalSince1970: $0 / 1000) }
            guard try await PushStore(database: req.db).subscribe(user, session: req.signedInAccount?.session, endpoint: body.endpoint, keys: keys,
                                                                  expiresAt: expiresAt, now: req.application.notificationsEnvironment.now())
            else { throw AppError.conflict("push_endpoint_taken") }
            return Response(status: .created)
        }
    }

    func unsubscribe(req: Request) async throws -> Response {
        let user = try req.requireUser().requireID()
        let body = try req.decodeJSON(EndpointBody.self)
        try await PushStore(database: req.db).unsubscribe(user, endpoint: body.endpoint)
        return Response(status: .noContent)
    }

    func preferences(req: Request) async throws -> PushPreferences {
        try await PushStore(database: req.db).preferences(of: try req.requireUser().requireID())
    }

    func setPreferences(req: Request) async throws -> PushPreferences {
        let user = try req.requireUser().requireID()
        return try await req.application.pushLimits.preferences.withSlot(user.uuidString, code: "too_many_push_preference_changes") {
            // The five switches are required (the contract's `PUT`); `hideText` and `account` keep their values when absent.
            var preferences = try req.decodeJSON(PushPreferences.self)
            let store = PushStore(database: req.db)
            if preferences.hideText == nil || preferences.account == nil {
                let stored = try await store.preferences(of: user)
                preferences.hideText = preferences.hideText ?? stored.hideText
                preferences.account = preferences.account ?? stored.account
            }
            try await store.setPreferences(preferences, of: user, now: req.application.notificationsEnvironment.now())
            return preferences
        }
    }
}

/// What one account may change of its pushes in an hour: every write a person can repeat has a rate
/// (each subscription is a browser the server will call for every entry; on PostgreSQL counted in
/// the shared table, so instances share them). Above what a person does (ten browsers, a few tabs
/// each, signing in again; a settings page toggled), below a script.
package struct PushLimits: Sendable {
    /// `POST /api/v1/push/subscriptions` kept.
    package let subscriptions: RateLimiter
    /// `PUT /api/v1/push/preferences`.
    package let preferences: RateLimiter

    package init(subscriptions: RateLimiter, preferences: RateLimiter) {
        self.subscriptions = subscriptions
        self.preferences = preferences
    }

    package init(shared: SharedBudgets?) {
        self.init(subscriptions: RateLimiter(name: "push_subscriptions", limit: 40, window: 3600, shared: shared),
                  preferences: RateLimiter(name: "push_preferences", limit: 60, window: 3600, shared: shared))
    }
}

extension PushPreferences: Content {}

/// The VAPID key, read once: from `VAPID_PRIVATE_KEY`, or the one kept in the database (made by the
/// first instance that needed it).
package final class PushKeys: Sendable {
    private let settings: PushSettings
    private let made = NIOLockedValueBox<VAPID?>(nil)

    package init(settings: PushSettings) { self.settings = settings }

    /// The server's VAPID key; `now` dates the key when it is first made and stored.
    package func vapid(_ database: any Database, now: Date) async throws -> VAPID {
        if let known = made.withLockedValue({ $0 }) { return known }
        let text: String
        if let configured = settings.vapidPrivateKey { text = configured } else { text = try await PushStore(database: database).vapidKey(now: now) }
        guard let key = VAPID.privateKey(fromText: text) else { throw Abort(.internalServerError, reason: "the stored VAPID key cannot be read") }
        let vapid = VAPID(privateKey: key, subject: settings.vapidSubject)
        made.withLockedValue { $0 = vapid }
        return vapid
    }
}

extension Application {
    private struct PushKeysKey: StorageKey { typealias Value = PushKeys }
    private struct PushLimitsKey: StorageKey { typealias Value = PushLimits }

    /// Made in the feature's `configure`; a test may set others.
    package var pushLimits: PushLimits {
        get { configured(PushLimitsKey.self) }
        set { storage[PushLimitsKey.self] = newValue }
    }

    package var pushKeys: PushKeys {
        get { configured(PushKeysKey.self) }
        set { storage[PushKeysKey.self] = newValue }
    }
}
