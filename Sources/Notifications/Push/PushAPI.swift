import Accounts
import Fluent
import Foundation
import Messaging
import NIOConcurrencyHelpers
import Platform
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
        PublicKey(publicKey: try await req.application.pushKeys.vapid(req.db).publicKey)
    }

    func subscribe(req: Request) async throws -> Response {
        let user = try req.requireUser().requireID()
        let body = try req.decodeJSON(SubscriptionBody.self)
        guard req.application.settings.push.accepts(body.endpoint) else { throw AppError.invalid("invalid_push_endpoint") }
        guard let keys = PushSubscriptionKeys(p256dh: body.keys.p256dh, auth: body.keys.auth) else { throw AppError.invalid("invalid_push_keys") }
        let expiresAt = body.expirationTime.map { Date(timeIntervalSince1970: $0 / 1000) }
        guard try await PushStore(database: req.db).subscribe(user, session: req.signedInAccount?.session, endpoint: body.endpoint, keys: keys,
                                                              expiresAt: expiresAt, now: Date())
        else { throw AppError.conflict("push_endpoint_taken") }
        return Response(status: .created)
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
        // The five switches are required (the contract's `PUT`); `hideText` keeps its value when absent.
        var preferences = try req.decodeJSON(PushPreferences.self)
        let store = PushStore(database: req.db)
        if preferences.hideText == nil { preferences.hideText = try await store.preferences(of: user).hideText }
        try await store.setPreferences(preferences, of: user, now: Date())
        return preferences
    }
}

extension PushPreferences: Content {}

/// The VAPID key, read once: from `VAPID_PRIVATE_KEY`, or the one kept in the database (made by the
/// first instance that needed it).
package final class PushKeys: Sendable {
    private let settings: PushSettings
    private let made = NIOLockedValueBox<VAPID?>(nil)

    package init(settings: PushSettings) { self.settings = settings }

    package func vapid(_ database: any Database) async throws -> VAPID {
        if let known = made.withLockedValue({ $0 }) { return known }
        let text: String
        if let configured = settings.vapidPrivateKey { text = configured } else { text = try await PushStore(database: database).vapidKey(now: Date()) }
        guard let key = VAPID.privateKey(fromText: text) else { throw Abort(.internalServerError, reason: "the stored VAPID key cannot be read") }
        let vapid = VAPID(privateKey: key, subject: settings.vapidSubject)
        made.withLockedValue { $0 = vapid }
        return vapid
    }
}

extension Application {
    private struct PushKeysKey: StorageKey { typealias Value = PushKeys }

    package var pushKeys: PushKeys {
        get { configured(PushKeysKey.self) }
        set { storage[PushKeysKey.self] = newValue }
    }
}
