import Accounts
package import Fluent
import FluentSQL
import Foundation
package import Messaging
import Platform
import SQLKit
import Vapor

/// What a person wants pushed, by kind of event; everything on until they say otherwise.
package struct PushPreferences: Codable, Sendable, Equatable {
    package var chat = true, requests = true, social = true, orders = true, groupGames = true
    /// Show "a new message from 미나" rather than the message itself (a lock screen others see).
    /// Optional only in a `PUT` that leaves it as it was; stored and answered, it is there.
    package var hideText: Bool? = false
    /// Notices about the account itself (a sign-in from a new device). Optional in a `PUT` that
    /// leaves it as it was (added after the five switches); stored and answered, it is there.
    package var account: Bool? = true

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
    /// The push service's refusals in a row (a success or subscribing again resets it).
    package var refusals = 0
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
        /// Refusals in a row by the push service (`PushDeliveries`): past a few, it is forgotten.
        case refusals
    }

    enum PreferenceColumn: String, TableColumn {
        case userID = "user_id", chat, requests, social, orders, groupGames = "group_games", hideText = "hide_text", updatedAt = "updated_at"
        case account
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

    /// Keeps a browser's subscription for `user`, in one statement that states the rule: an endpoint
    /// names one browser, so subscribed again it is brought up to date, never doubled — by the
    /// account that holds it (new keys), or by another account presenting that browser's own keys
    /// (another person signed in there). False, and nothing changed, when another account names an
    /// endpoint it holds without its keys: an endpoint seen somewhere is not a way to take it over.
    package func subscribe(_ user: UUID, session: UUID?, endpoint: String, keys: PushSubscriptionKeys, expiresAt: Date?, now: Date) async throws -> Bool {
        try await database.writeTransaction { database in
            let sql = database.sql
            typealias C = SubscriptionColumn
            let table = SQLIdentifier(Self.subscriptions)
            let kept = try await sql.raw("""
                INSERT INTO \(table) (\(ident: C.id), \(ident: C.userID), \(ident: C.endpoint), \(ident: C.p256dh), \(ident: C.auth),
                                      \(ident: C.expiresAt), \(ident: C.createdAt), \(ident: C.sessionID))
                VALUES (\(bind: UUID()), \(bind: user), \(bind: endpoint), \(bind: keys.p256dh.base64URLEncodedString()),
                        \(bind: keys.auth.base64URLEncodedString()), \(bind: expiresAt), \(bind: now), \(bind: session))
                ON CONFLICT (\(ident: C.endpoint)) DO UPDATE SET
                    \(ident: C.userID) = excluded.\(ident: C.userID), \(ident: C.p256dh) = excluded.\(ident: C.p256dh),
                    \(ident: C.auth) = excluded.\(ident: C.auth), \(ident: C.expiresAt) = excluded.\(ident: C.expiresAt),
                    \(ident: C.createdAt) = excluded.\(ident: C.createdAt), \(ident: C.sessionID) = excluded.\(ident: C.sessionID),
                    \(ident: C.refusals) = 0
                WHERE \(table).\(ident: C.userID) = excluded.\(ident: C.userID)
                   OR (\(table).\(ident: C.p256dh) = excluded.\(ident: C.p256dh) AND \(table).\(ident: C.auth) = excluded.\(ident: C.auth))
                RETURNING \(ident: C.id)
                """).all()
            guard !kept.isEmpty else { return false }
            // Past the cap, the person's oldest browsers go.
            let newest = try await sql.select().column(SubscriptionColumn.id).from(Self.subscriptions)
                .where(SubscriptionColumn.userID, .equal, SQLBind(user))
                .orderBy(SubscriptionColumn.createdAt, .descending).limit(Self.subscriptionsPerPerson)
                .all(decodingColumn: SubscriptionColumn.id, as: UUID.self)
            try await sql.delete(from: Self.subscriptions).where(SubscriptionColumn.userID, .equal, SQLBind(user))
                .where(SubscriptionColumn.id, .notIn, SQLBind.group(newest)).run()
            return true
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

    /// Counts one more refusal in a row by the subscription's push service; returns how many now
    /// (0 when it is gone).
    package func refused(_ id: UUID) async throws -> Int {
        typealias C = SubscriptionColumn
        return try await sql.raw("""
            UPDATE \(ident: Self.subscriptions) SET \(ident: C.refusals) = \(ident: C.refusals) + 1 WHERE \(ident: C.id) = \(bind: id)
            RETURNING \(ident: C.refusals)
            """).first(decodingColumn: C.refusals.rawValue, as: Int.self) ?? 0
    }

    /// The push service took a message: the refusals in a row start again from none.
    package func accepted(_ id: UUID) async throws {
        try await sql.update(Self.subscriptions).set(SubscriptionColumn.refusals, to: SQLBind(0))
            .where(SubscriptionColumn.id, .equal, SQLBind(id)).run()
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
                                   sessionID: try row.decode(column: SubscriptionColumn.sessionID, as: UUID?.self),
                                   refusals: try row.decode(column: SubscriptionColumn.refusals, as: Int.self))
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
        preferences.account = try row.decode(column: PreferenceColumn.account, as: Bool?.self) ?? true
        return preferences
    }

    /// Writes the person's preferences in one statement (an upsert: two saves at once never collide).
    package func setPreferences(_ preferences: PushPreferences, of user: UUID, now: Date) async throws {
        typealias C = PreferenceColumn
        let written: [(C, any SQLExpression)] = [
            (.userID, SQLBind(user)), (.chat, SQLBind(preferences.chat)), (.requests, SQLBind(preferences.requests)),
            (.social, SQLBind(preferences.social)), (.orders, SQLBind(preferences.orders)), (.groupGames, SQLBind(preferences.groupGames)),
            (.hideText, SQLBind(preferences.hideText ?? false)), (.account, SQLBind(preferences.account ?? true)), (.updatedAt, SQLBind(now)),
        ]
        try await sql.insert(into: Self.preferences).columns(written.map { SQLIdentifier($0.0) as any SQLExpression }).values(written.map(\.1))
            .onConflict(with: [SQLIdentifier(C.userID)] as [any SQLExpression]) { conflict in
                written.dropFirst().reduce(conflict) { $0.set(excludedValueOf: SQLIdentifier($1.0) as any SQLExpression) }
            }
            .run()
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

/// The switch for notices about the account itself (issue 57: a sign-in from a new device).
struct AddPushAccountPreference: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(PushStore.preferences).fields([(PushStore.PreferenceColumn.account, .bool)], optional: true).update()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw("ALTER TABLE \(ident: PushStore.preferences) DROP COLUMN \(ident: PushStore.PreferenceColumn.account.rawValue)").run()
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


/// Each subscription counts its push service's refusals in a row (issue 56: one refused for good
/// was kept, and tried, for ever).
struct AddPushSubscriptionRefusals: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(PushStore.subscriptions)
            .field(PushStore.SubscriptionColumn.refusals.fieldKey, .int, .required, .sql(.default(0))).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(PushStore.subscriptions).deleteField(PushStore.SubscriptionColumn.refusals.fieldKey).update()
    }
}
