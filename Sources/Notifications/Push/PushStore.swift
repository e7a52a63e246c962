import Accounts
import Fluent
import Foundation
import Messaging
import Platform
import SQLKit
import Vapor

/// What a person wants pushed, by kind of event; everything on until they say otherwise.
package struct PushPreferences: Codable, Sendable, Equatable {
    package var chat = true, requests = true, social = true, orders = true, groupGames = true
    /// Show "a new message from 미나" rather than the message itself (a lock screen others see).
    /// Optional only in a `PUT` that leaves it as it was; stored and answered, it is there.
    package var hideText: Bool? = false

    package init() {}
}

/// A browser's subscription as the store keeps it.
package struct PushSubscriptionRow: Sendable, Equatable {
    package let id: UUID
    package let userID: UUID
    package let endpoint: String
    package let keys: PushSubscriptionKeys
    /// Nil for one made before sessions were kept with subscriptions.
    package var sessionID: UUID? = nil
}

/// The one owner of the push tables: `push_subscriptions` (where each browser of a person is
/// reached), `push_preferences` (what they want pushed) and `push_keys` (the VAPID key every
/// instance signs with, when `VAPID_PRIVATE_KEY` does not give one). Nothing about them is kept in
/// memory but the key, which never changes once made, so a write has nothing to announce.
package struct PushStore {
    static let subscriptions = "push_subscriptions", preferences = "push_preferences", keys = "push_keys"
    /// A person's browsers kept at most: the oldest goes when a new one subscribes past it.
    static let subscriptionsPerPerson = 20

    enum SubscriptionColumn: String, TableColumn {
        case id, userID = "user_id", endpoint, p256dh, auth, expiresAt = "expires_at", createdAt = "created_at"
        /// The sign-in it was made under: when that ends (signed out), the browser hears nothing more.
        case sessionID = "session_id"
    }

    enum PreferenceColumn: String, TableColumn {
        case userID = "user_id", chat, requests, social, orders, groupGames = "group_games", hideText = "hide_text", updatedAt = "updated_at"
    }

    enum KeyColumn: String, TableColumn {
        case id, privateKey = "private_key", createdAt = "created_at"
    }

    /// The one row of `push_keys`.
    static let keyRow = UUID(uuidString: "00000000-0000-0000-0000-0000000000a1")!

    let database: any Database
    private var sql: any SQLDatabase { database.sql }

    package init(database: any Database) { self.database = database }

    // MARK: Subscriptions

    /// Keeps a browser's subscription for `user`. An endpoint names one browser: subscribed again
    /// (new keys, or another person signed in there) it is replaced, never doubled.
    package func subscribe(_ user: UUID, session: UUID?, endpoint: String, keys: PushSubscriptionKeys, expiresAt: Date?, now: Date) async throws {
        try await database.transaction { database in
            let sql = database.sql
            try await sql.delete(from: Self.subscriptions).where(SubscriptionColumn.endpoint, .equal, SQLBind(endpoint)).run()
            try await sql.insert(into: Self.subscriptions)
                .columns(SubscriptionColumn.id, .userID, .endpoint, .p256dh, .auth, .expiresAt, .createdAt, .sessionID)
                .values(SQLBind(UUID()), SQLBind(user), SQLBind(endpoint), SQLBind(keys.p256dh.base64URLEncodedString()),
                        SQLBind(keys.auth.base64URLEncodedString()), SQLBind(expiresAt), SQLBind(now), SQLBind(session))
                .run()
            // Past the cap, the person's oldest browsers go.
            let kept = try await sql.select().column(SubscriptionColumn.id).from(Self.subscriptions)
                .where(SubscriptionColumn.userID, .equal, SQLBind(user))
                .orderBy(SubscriptionColumn.createdAt, .descending).limit(Self.subscriptionsPerPerson)
                .all(decodingColumn: SubscriptionColumn.id, as: UUID.self)
            try await sql.delete(from: Self.subscriptions).where(SubscriptionColumn.userID, .equal, SQLBind(user))
                .where(SubscriptionColumn.id, .notIn, SQLBind.group(kept)).run()
        }
    }

    /// Forgets `user`'s subscription at `endpoint` (another's is left alone).
    package func unsubscribe(_ user: UUID, endpoint: String) async throws {
        try await sql.delete(from: Self.subscriptions).where(SubscriptionColumn.userID, .equal, SQLBind(user))
            .where(SubscriptionColumn.endpoint, .equal, SQLBind(endpoint)).run()
    }

    /// Forgets a subscription the push service says is gone (404, 410).
    package func remove(_ id: UUID) async throws {
        try await sql.delete(from: Self.subscriptions).where(SubscriptionColumn.id, .equal, SQLBind(id)).run()
    }

    /// A person's browsers, newest first.
    package func subscriptions(of user: UUID) async throws -> [PushSubscriptionRow] {
        try await sql.select().columns(SubscriptionColumn.allCases).from(Self.subscriptions)
            .where(SubscriptionColumn.userID, .equal, SQLBind(user)).orderBy(SubscriptionColumn.createdAt, .descending)
            .all().compactMap(Self.subscription(from:))
    }

    /// One subscription by its id.
    package func subscription(_ id: UUID) async throws -> PushSubscriptionRow? {
        try await sql.select().columns(SubscriptionColumn.allCases).from(Self.subscriptions)
            .where(SubscriptionColumn.id, .equal, SQLBind(id)).first().flatMap(Self.subscription(from:))
    }

    private static func subscription(from row: any SQLRow) throws -> PushSubscriptionRow? {
        guard let keys = PushSubscriptionKeys(p256dh: try row.decode(column: SubscriptionColumn.p256dh, as: String.self),
                                              auth: try row.decode(column: SubscriptionColumn.auth, as: String.self)) else { return nil }
        return PushSubscriptionRow(id: try row.decode(column: SubscriptionColumn.id, as: UUID.self),
                                   userID: try row.decode(column: SubscriptionColumn.userID, as: UUID.self),
                                   endpoint: try row.decode(column: SubscriptionColumn.endpoint, as: String.self), keys: keys,
                                   sessionID: try row.decode(column: SubscriptionColumn.sessionID, as: UUID?.self))
    }

    // MARK: Preferences

    package func preferences(of user: UUID) async throws -> PushPreferences {
        guard let row = try await sql.select().columns(PreferenceColumn.allCases).from(Self.preferences)
            .where(PreferenceColumn.userID, .equal, SQLBind(user)).first() else { return PushPreferences() }
        var preferences = PushPreferences()
        preferences.chat = try row.decode(column: PreferenceColumn.chat, as: Bool.self)
        preferences.requests = try row.decode(column: PreferenceColumn.requests, as: Bool.self)
        preferences.social = try row.decode(column: PreferenceColumn.social, as: Bool.self)
        preferences.orders = try row.decode(column: PreferenceColumn.orders, as: Bool.self)
        preferences.groupGames = try row.decode(column: PreferenceColumn.groupGames, as: Bool.self)
        preferences.hideText = try row.decode(column: PreferenceColumn.hideText, as: Bool.self)
        return preferences
    }

    package func setPreferences(_ preferences: PushPreferences, of user: UUID, now: Date) async throws {
        try await database.transaction { database in
            try await database.sql.delete(from: Self.preferences).where(PreferenceColumn.userID, .equal, SQLBind(user)).run()
            try await database.sql.insert(into: Self.preferences)
                .columns(PreferenceColumn.userID, .chat, .requests, .social, .orders, .groupGames, .hideText, .updatedAt)
                .values(SQLBind(user), SQLBind(preferences.chat), SQLBind(preferences.requests), SQLBind(preferences.social),
                        SQLBind(preferences.orders), SQLBind(preferences.groupGames), SQLBind(preferences.hideText ?? false), SQLBind(now))
                .run()
        }
    }

    // MARK: The VAPID key

    /// The key kept in the database, made by the first instance that asks: every instance behind
    /// the proxy signs with it (a subscription is bound to one key).
    package func vapidKey(now: Date) async throws -> String {
        if let kept = try await readKey() { return kept }
        let made = VAPID(privateKey: .init(), subject: "").privateKeyText
        // Two instances starting at once: the first insert wins, both read it back.
        try await sql.insert(into: Self.keys).columns(KeyColumn.id, .privateKey, .createdAt)
            .values(SQLBind(Self.keyRow), SQLBind(made), SQLBind(now)).ignoringConflicts().run()
        guard let kept = try await readKey() else { throw Abort(.internalServerError, reason: "the VAPID key was not stored") }
        return kept
    }

    private func readKey() async throws -> String? {
        try await sql.select().column(KeyColumn.privateKey).from(Self.keys).where(KeyColumn.id, .equal, SQLBind(Self.keyRow))
            .first(decodingColumn: KeyColumn.privateKey, as: String.self)
    }
}

/// The push tables.
struct CreatePushTables: NamedMigration {
    func prepare(on database: any Database) async throws {
        typealias Subscription = PushStore.SubscriptionColumn
        typealias Preference = PushStore.PreferenceColumn
        try await database.schema(PushStore.subscriptions).id()
            .field(Subscription.userID.fieldKey, .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .fields([(Subscription.endpoint, .string), (.p256dh, .string), (.auth, .string), (.createdAt, .datetime)])
            .fields([(Subscription.expiresAt, .datetime)], optional: true)
            .unique(on: Subscription.endpoint.fieldKey)
            .create()
        try await database.sql.create(index: "push_subscriptions_user").on(PushStore.subscriptions).column(Subscription.userID).run()
        try await database.schema(PushStore.preferences)
            .field(Preference.userID.fieldKey, .uuid, .identifier(auto: false), .references(User.schema, "id", onDelete: .cascade))
            .fields([(Preference.chat, .bool), (.requests, .bool), (.social, .bool), (.orders, .bool), (.groupGames, .bool), (.hideText, .bool),
                     (.updatedAt, .datetime)])
            .create()
        try await database.schema(PushStore.keys).id().fields([(PushStore.KeyColumn.privateKey, .string), (.createdAt, .datetime)]).create()
    }

    func revert(on database: any Database) async throws {
        for table in [PushStore.keys, PushStore.preferences, PushStore.subscriptions] { try await database.schema(table).delete() }
    }
}

/// Each subscription remembers the sign-in it was made under.
struct AddPushSubscriptionSession: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(PushStore.subscriptions).field(PushStore.SubscriptionColumn.sessionID.fieldKey, .uuid).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(PushStore.subscriptions).deleteField(PushStore.SubscriptionColumn.sessionID.fieldKey).update()
    }
}
