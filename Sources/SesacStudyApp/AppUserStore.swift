package import Fluent
import Foundation
import Mates
import Platform
import SQLKit

/// The one owner of the 새싹 스터디 apps' own tables — `mates_app_users` (a Firebase uid linked to
/// an account) and `mates_app_networks` (the networks each uid called from): the only code that
/// reads or writes them, naming each column once (`UserColumn`, `NetworkColumn`; the model's keys
/// are these). The memories that follow them (`appAccounts`, `appUIDMemory`) are told by the
/// service, which knows which uid and account a write concerns.
package struct AppUserStore {
    let database: any Database

    package init(database: any Database) {
        self.database = database
    }

    enum UserColumn: String, TableColumn {
        case uid, userID = "user_id", projectID = "project_id", phoneNumber = "phone_number", email
        case fcmToken = "fcm_token", birth, study, searchable, createdAccount = "created_account"
        case settledMatchID = "settled_match_id", createdAt = "created_at", socketCookieHandedAt = "socket_cookie_handed_at"
    }

    enum NetworkColumn: String, TableColumn {
        case uid, network, seenAt = "seen_at"
    }

    private var sql: any SQLDatabase { database.sql }
    private var users: SQLIdentifier { SQLIdentifier(MatesAppUser.schema) }
    private var networks: SQLIdentifier { SQLIdentifier(CreateMatesAppNetworks.schema) }

    // MARK: App users

    /// The app user with this uid (the whole row: its writes change several fields).
    package func appUser(_ uid: String) async throws -> MatesAppUser? {
        try await sql.select().columns(UserColumn.allCases).from(users).where(SQLIdentifier(UserColumn.uid), .equal, SQLBind(uid))
            .first(decoding: MatesAppUser.self)
    }

    /// The account a signed-up uid belongs to, or nil.
    func account(ofUID uid: String) async throws -> UUID? {
        try await sql.select().column(SQLIdentifier(UserColumn.userID)).from(users)
            .where(SQLIdentifier(UserColumn.uid), .equal, SQLBind(uid))
            .first(decodingColumn: UserColumn.userID, as: UUID.self)
    }

    /// Each account's newest app uid, for the accounts that have one. Written out: the apps' search
    /// names 100 people each call, and building the models (by reflection) was a fifth of it.
    func newestUIDs(of accounts: [UUID]) async throws -> [UUID: String] {
        var uids: [UUID: String] = [:]
        for chunk in Array(Set(accounts)).chunked(StatementLimits.bindsPerStatement) {
            // Newest last, so the newest uid of an account wins.
            let rows = try await sql.select().column(SQLIdentifier(UserColumn.uid)).column(SQLIdentifier(UserColumn.userID)).from(users)
                .where(SQLIdentifier(UserColumn.userID), .in, SQLBind.group(Array(chunk))).orderBy(UserColumn.createdAt).all()
            for row in rows {
                uids[try row.decode(column: UserColumn.userID, as: UUID.self)] = try row.decode(column: UserColumn.uid, as: String.self)
            }
        }
        return uids
    }

    /// Writes a new app user (inside the sign-up's transaction: pass its database).
    func create(_ appUser: MatesAppUser) async throws {
        try await sql.insert(appUser, into: MatesAppUser.schema)
    }

    /// The installs signed in as `account` that gave a push token: uid, Firebase project, token.
    func pushTokens(ofAccount account: UUID) async throws -> [(uid: String, project: String, token: String)] {
        try await sql.select().column(SQLIdentifier(UserColumn.uid)).column(SQLIdentifier(UserColumn.projectID))
            .column(SQLIdentifier(UserColumn.fcmToken)).from(users)
            .where(SQLIdentifier(UserColumn.userID), .equal, SQLBind(account))
            .where(SQLIdentifier(UserColumn.fcmToken), .notEqual, SQLBind("")).orderBy(UserColumn.uid).all()
            .map { (try $0.decode(column: UserColumn.uid, as: String.self), try $0.decode(column: UserColumn.projectID, as: String.self),
                    try $0.decode(column: UserColumn.fcmToken, as: String.self)) }
    }

    /// Forgets `uid`'s push token if it is still `token` (FCM said it is gone; a newer one the app
    /// sent meanwhile stays). Whether it was forgotten.
    @discardableResult
    func forgetPushToken(uid: String, ifStill token: String) async throws -> Bool {
        try await sql.update(users).set(SQLIdentifier(UserColumn.fcmToken), to: SQLBind(""))
            .where(SQLIdentifier(UserColumn.uid), .equal, SQLBind(uid)).where(SQLIdentifier(UserColumn.fcmToken), .equal, SQLBind(token))
            .returning(SQLIdentifier(UserColumn.uid)).all().count > 0
    }

    /// Writes these columns of the app user's row and no other: its binding cookie and sightings
    /// are noted by every call meanwhile, so a row read at the start of a request is never
    /// written back whole.
    func update(uid: String, _ assignments: [(UserColumn, any Encodable & Sendable)]) async throws {
        guard !assignments.isEmpty else { return }
        let update = sql.update(users)
        for (column, value) in assignments { update.set(SQLIdentifier(column), to: SQLBind(value)) }
        try await update.where(SQLIdentifier(UserColumn.uid), .equal, SQLBind(uid)).run()
    }

    /// Notes that `uid` was handed its binding cookie `at`, unless it was before; true when this
    /// was the first time.
    func noteSocketCookieHanded(uid: String, at now: Date) async throws -> Bool {
        try await sql.update(users).set(UserColumn.socketCookieHandedAt, to: now)
            .where(SQLIdentifier(UserColumn.uid), .equal, SQLBind(uid))
            .where(SQLIdentifier(UserColumn.socketCookieHandedAt), .is, SQLLiteral.null)
            .returning(SQLIdentifier(UserColumn.uid)).all().count > 0
    }

    /// Removes the app user (the account stays).
    func delete(_ appUser: MatesAppUser) async throws {
        try await sql.delete(from: users).where(SQLIdentifier(UserColumn.uid), .equal, SQLBind(appUser.uid)).run()
    }

    // MARK: Networks

    /// Notes that `uid` called from `network` now.
    func noteSighting(uid: String, network: String, at now: Date) async throws {
        try await sql.raw("""
            INSERT INTO \(networks) (\(ident: NetworkColumn.uid), \(ident: NetworkColumn.network), \(ident: NetworkColumn.seenAt))
            VALUES (\(bind: uid), \(bind: network), \(bind: now))
            ON CONFLICT (\(ident: NetworkColumn.uid), \(ident: NetworkColumn.network)) DO UPDATE SET \(ident: NetworkColumn.seenAt) = excluded.\(ident: NetworkColumn.seenAt)
            """).run()
    }

    /// The network `uid` called from most recently after `since`, or nil.
    func latestNetwork(of uid: String, since: Date) async throws -> String? {
        try await sql.select().column(SQLIdentifier(NetworkColumn.network)).from(networks)
            .where(SQLIdentifier(NetworkColumn.uid), .equal, SQLBind(uid))
            .where(SQLIdentifier(NetworkColumn.seenAt), .greaterThan, SQLBind(since))
            .orderBy(NetworkColumn.seenAt, .descending).limit(1)
            .first(decodingColumn: NetworkColumn.network, as: String.self)
    }

    /// Forgets the sightings at or before `cutoff`; returns how many went.
    func pruneSightings(before cutoff: Date) async throws -> Int {
        try await sql.delete(from: networks).where(SQLIdentifier(NetworkColumn.seenAt), .lessThanOrEqual, SQLBind(cutoff))
            .returning(SQLIdentifier(NetworkColumn.uid)).all().count
    }

    /// Forgets every network of `uid`.
    func forgetSightings(uid: String) async throws {
        try await sql.delete(from: networks).where(SQLIdentifier(NetworkColumn.uid), .equal, SQLBind(uid)).run()
    }

    /// Forgets the networks of every app uid of `account` (inside the account's deletion).
    func forgetSightings(ofAccount account: UUID) async throws {
        let uids = sql.select().column(SQLIdentifier(UserColumn.uid)).from(users).where(SQLIdentifier(UserColumn.userID), .equal, SQLBind(account))
        try await sql.delete(from: networks).where(SQLIdentifier(NetworkColumn.uid), .in, SQLGroupExpression(uids.select)).run()
    }
}
