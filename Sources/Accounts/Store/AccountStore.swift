package import Fluent
import Foundation
package import Platform
package import SQLKit
package import Vapor

/// The one owner of the accounts and their sessions — `users`, `login_failures`, `auth_sessions`
/// and `refresh_tokens` — the only code that reads or writes them, naming each column once
/// (`Column`, `LoginColumn`, `SessionColumn`, `RefreshColumn`: the models' keys too). Its statics
/// are the one way other stores read an account: its public face (nickname and picture) joined to
/// their own rows.
///
/// Every write announces what it changed (`accountChanged`, `sessionsEnded`): the remembered
/// sessions and users here and on the other instances (`SessionCache.topic`), and the live sockets
/// of sessions that ended (`SessionEnd`). Inside `transaction` they are recorded (`ChangeLog`) and
/// announced once it committed. `AccountService` holds the rules (passwords, throttles, rotation)
/// and calls the store. The users' statements are here, the sign-in throttle's in
/// `AccountStore+Logins.swift`, the sessions' in `AccountStore+Sessions.swift`.
package struct AccountStore {
    package let database: any Database
    /// The accounts' clock: the time a row this store writes records of itself.
    let now: Now
    private let announcer: Announcer
    /// Inside `transaction`: what changed so far, announced after the commit. Nil outside one.
    private let pending: ChangeLog<Changes>?

    /// What a transaction changed: accounts, and sessions that ended (and whether to forget them).
    struct Changes: Sendable {
        var accounts: [UUID] = []
        var created: [UUID] = []
        var endedSessions: [(id: UUID, forgetting: Bool)] = []
        var endedAccounts: [UUID] = []
    }

    private struct Announcer {
        let sessions: SessionCache
        let events: any EventBus
    }

    package init(database: any Database, environment: AccountsEnvironment) {
        self.database = database
        self.now = environment.now
        self.announcer = Announcer(sessions: environment.sessions, events: environment.events)
        self.pending = nil
    }

    /// The store with the environment `AccountsFeature.configure` made.
    package init(database: any Database, application: Application) {
        self.init(database: database, environment: application.accountsEnvironment)
    }

    private init(database: any Database, now: @escaping Now, announcer: Announcer, pending: ChangeLog<Changes>) {
        self.database = database
        self.now = now
        self.announcer = announcer
        self.pending = pending
    }

    var sql: any SQLDatabase { database.sql }

    /// Runs `work` in one transaction with a store on it; what it changed is announced once it
    /// committed (nothing, when it rolled back).
    func transaction<T: Sendable>(_ work: @escaping @Sendable (AccountStore) async throws -> T) async throws -> T {
        let announcer = announcer, now = now
        let (result, changes) = try await database.writeTransaction(recording: Changes()) { transaction, log in
            try await work(AccountStore(database: transaction, now: now, announcer: announcer, pending: log))
        }
        for account in changes.created { await accountCreated(account) }
        for account in changes.accounts { await accountChanged(account) }
        for ended in changes.endedSessions { await sessionsEnded([ended.id], forgetting: ended.forgetting) }
        for account in changes.endedAccounts { await accountEnded(account) }
        return result
    }

    // MARK: Announcing

    /// An account changed (or went): requests signed in as it read it afresh, on every instance.
    func accountChanged(_ userID: UUID) async {
        if let pending { return pending.record { $0.accounts.append(userID) } }
        await announcer.sessions.forget(.user(userID), announcingOn: announcer.events)
    }

    /// An account was made: the lists of accounts are read again, on every instance.
    func accountCreated(_ userID: UUID) async {
        if let pending { return pending.record { $0.created.append(userID) } }
        await announcer.sessions.forget(.created(userID), announcingOn: announcer.events)
    }

    /// Each account's device list as last read (`SessionCache.deviceLists`).
    var deviceLists: PersonMemory<[SessionListing]> { announcer.sessions.deviceLists }

    /// A session of the account started: its device list is read again, on every instance.
    func devicesChanged(_ userID: UUID) async {
        await announcer.sessions.forget(.devices(userID), announcingOn: announcer.events)
    }

    /// An account went: every live socket of it closes, on every instance.
    func accountEnded(_ userID: UUID) async {
        if let pending { return pending.record { $0.endedAccounts.append(userID) } }
        await announcer.events.announceSessionEnd(.account(userID))
    }

    /// Sessions ended: each is forgotten (unless `forgetting` is false, when the account's change
    /// already forgot them) and its live sockets are closed, on every instance.
    func sessionsEnded(_ ids: [UUID], forgetting: Bool = true) async {
        if let pending { return pending.record { $0.endedSessions += ids.map { ($0, forgetting) } } }
        for id in ids {
            if forgetting { await announcer.sessions.forget(.session(id), announcingOn: announcer.events) }
            await announcer.events.announceSessionEnd(.session(id))
        }
    }

    // MARK: Users

    static var users: SQLIdentifier { SQLIdentifier(User.schema) }

    package func user(_ id: UUID) async throws -> User? {
        try await User.find(id, on: database)
    }

    package func user(email: String) async throws -> User? {
        try await User.query(on: database).filter(\.$email == email).first()
    }

    package func emailTaken(_ email: String) async throws -> Bool {
        try await sql.count(Self.users) { $0.where(SQLIdentifier(Column.email), .equal, SQLBind(email)) } > 0
    }

    /// Whether another account (not `except`) holds a nickname of this key (`AccountRules.nicknameKey`).
    package func nicknameTaken(key: String, except: UUID?) async throws -> Bool {
        try await sql.count(Self.users) { query in
            query.where(SQLIdentifier(Column.nicknameKey), .equal, SQLBind(key))
            if let except { query.where(SQLIdentifier(Column.id), .notEqual, SQLBind(except)) }
            return query
        } > 0
    }

    /// Writes a new account; a taken email or nickname is a constraint failure, the caller's to read.
    /// Announced (inside a transaction, after its commit): the console's lists of people follow it.
    package func create(_ user: User) async throws {
        try await user.create(on: database)
        await accountCreated(try user.requireID())
    }

    /// Writes a changed account and announces it.
    /// Saves the account; with `audit`, the operator's entry is written in the same transaction.
    func save(_ user: User, audit: AuditEntry? = nil) async throws {
        if let audit {
            try await database.writeTransaction { transaction in
                try await user.save(on: transaction)
                try await AuditLog(database: transaction).record(audit)
            }
        } else {
            try await user.save(on: database)
        }
        await accountChanged(try user.requireID())
    }

    /// Accounts newest first (the admins' list).
    func users(_ page: CursorPageRequest) async throws -> (items: [User], nextCursor: String?) {
        try await User.query(on: database).paginate(newestFirst: \.$createdAt, page)
    }

    /// Whether an account's picture is the stored file `key` (files are shared by their SHA-256).
    static func profileImageUses(fileKey key: String, on database: any Database) async throws -> Bool {
        try await database.sql.count(users) { $0.where(SQLIdentifier(Column.profileImageKey), .equal, SQLBind(key)) } > 0
    }

    /// Deletes an account: each feature settles what it keeps about it first (`beforeDelete`, in
    /// the same transaction), its sign-in failures go, and its sessions and tokens by cascade.
    /// Announced once committed: the account changed and every session of it ended.
    func remove(_ user: User, settling handlers: [AccountRemovals.Handler], audit: AuditEntry? = nil) async throws {
        let userID = try user.requireID(), email = user.email
        try await database.writeTransaction { transaction in
            for handler in handlers { try await handler.beforeDelete(userID, transaction) }
            if let audit { try await AuditLog(database: transaction).record(audit) }
            try await transaction.sql.delete(from: Self.logins).where(SQLIdentifier(LoginColumn.email), .equal, SQLBind(email)).run()
            try await transaction.sql.delete(from: Self.users).where(SQLIdentifier(Column.id), .equal, SQLBind(userID)).run()
        }
        await accountChanged(userID)
        await accountEnded(userID)
    }

    package enum Column: String, TableColumn {
        case id, email, passwordHash = "password_hash", nickname, nicknameKey = "nickname_key", role, language
        case profileImageKey = "profile_image_key", createdAt = "created_at", updatedAt = "updated_at"
        case suspendedAt = "suspended_at", suspensionReason = "suspension_reason"
    }

    /// An account as another feature's row shows it.
    package struct JoinedPerson: Sendable, Equatable {
        package let id: UUID
        package let nickname: String
        package let profileImageKey: String?
    }

    /// The two columns `joiningPerson` adds for `role` (`author` → `author_nickname`, `author_image_key`).
    static func nicknameColumn(_ role: String) -> String { role + "_nickname" }
    static func imageColumn(_ role: String) -> String { role + "_image_key" }

    /// The person `joiningPerson(role, …)` joined to this row; nil when the row names nobody or
    /// an account since deleted (a left join that found no row).
    package static func person(_ role: String, id: UUID?, in row: any SQLRow) throws -> JoinedPerson? {
        guard let id, let nickname = try row.decode(column: nicknameColumn(role), as: String?.self) else { return nil }
        return JoinedPerson(id: id, nickname: nickname, profileImageKey: try row.decode(column: imageColumn(role), as: String?.self))
    }

    /// The person an inner `joiningPerson(role, …)` joined: always there.
    package static func person(_ role: String, id: UUID, in row: any SQLRow) throws -> JoinedPerson {
        guard let person = try person(role, id: Optional(id), in: row) else { throw FluentError.missingField(name: nicknameColumn(role)) }
        return person
    }

    /// One account's public face as `joiningPerson(role, …)` names its columns, and `adding`
    /// (`"… AS name"`) about that person (`personID(role)` is the account's id there). Written out:
    /// a person's page reads it on every view.
    package static func selectPerson(_ role: String, id: UUID, adding extra: SQLQueryString? = nil, on sql: any SQLDatabase) -> SQLRawBuilder {
        let alias = accountAlias(role)
        let more: SQLQueryString = extra.map { ", \($0)" } ?? ""
        return sql.raw("""
            SELECT \(ident: alias).\(ident: Column.nickname) AS \(ident: nicknameColumn(role)), \
            \(ident: alias).\(ident: Column.profileImageKey) AS \(ident: imageColumn(role))\(more)
            FROM \(ident: User.schema) \(ident: alias) WHERE \(ident: alias).\(ident: Column.id) = \(bind: id)
            """)
    }

    /// One account's public face, or nil for an account that does not exist (any more).
    package static func person(_ id: UUID, on database: any Database) async throws -> JoinedPerson? {
        guard let row = try await selectPerson("person", id: id, on: database.sql).first() else { return nil }
        let found: JoinedPerson = try person("person", id: id, in: row)
        return found
    }

    /// The account whose id begins with a seed app's 24-hex `objectID` (`ObjectID`); nil when none does.
    package static func person(objectID: String, on database: any Database) async throws -> JoinedPerson? {
        guard let (lower, upper) = ObjectID.range(objectID),
              let id = try await database.sql.select().column(Column.id).from(User.schema)
                .where(SQLIdentifier(Column.id), .greaterThanOrEqual, SQLBind(lower)).where(SQLIdentifier(Column.id), .lessThanOrEqual, SQLBind(upper))
                .limit(1).first()?.decode(column: Column.id, as: UUID.self)
        else { return nil }
        return try await person(id, on: database)
    }

    /// How many accounts were made since `start` (the console's sign-ups).
    package static func signUps(since start: Date, on database: any Database) async throws -> Int {
        try await database.sql.count(SQLIdentifier(User.schema)) { $0.where(SQLIdentifier(Column.createdAt), .greaterThanOrEqual, SQLBind(start)) }
    }

    /// An account as the console's People lists it.
    package struct Listed: Decodable, Sendable, Hashable {
        package let id: UUID
        package let email: String
        package let nickname: String
        package let role: Role
        package let createdAt: Date?
        package let suspendedAt: Date?

        enum CodingKeys: String, CodingKey { case id, email, nickname, role, createdAt = "created_at", suspendedAt = "suspended_at" }
    }

    /// Accounts whose email starts with `query` or whose nickname contains it, case aside (the
    /// console's People), newest first; the newest accounts when `query` is empty.
    package func find(_ query: String, limit: Int = 30) async throws -> [Listed] {
        let select = sql.select().columns([Column.id, Column.email, Column.nickname, Column.role, Column.createdAt, Column.suspendedAt])
            .from(User.schema)
        if !query.isEmpty {
            // LIKE's own characters in what was typed match only themselves.
            let escaped = query.lowercased().replacingOccurrences(of: "!", with: "!!").replacingOccurrences(of: "%", with: "!%")
                .replacingOccurrences(of: "_", with: "!_")
            select.where(SQLQueryString("""
                (LOWER(\(ident: Column.email)) LIKE \(bind: escaped + "%") ESCAPE '!' OR LOWER(\(ident: Column.nickname)) LIKE \(bind: "%" + escaped + "%") ESCAPE '!')
                """))
        }
        // Column by column: decoding 30 rows through `Decodable` was a seventh of the console's list.
        return try await select.orderBy(Column.createdAt, .descending).limit(limit).all().map { row in
            Listed(id: try row.decode(column: Column.id, as: UUID.self), email: try row.decode(column: Column.email, as: String.self),
                   nickname: try row.decode(column: Column.nickname, as: String.self), role: try row.decode(column: Column.role, as: Role.self),
                   createdAt: try row.decode(column: Column.createdAt, as: Date?.self),
                   suspendedAt: try row.decode(column: Column.suspendedAt, as: Date?.self))
        }
    }

    /// How many administrators there are (the last one cannot be demoted or deleted from the console).
    func administratorCount() async throws -> Int {
        try await sql.count(SQLIdentifier(User.schema)) { $0.where(SQLIdentifier(Column.role), .equal, SQLBind(Role.admin.rawValue)) }
    }

    /// When an account was made (how old it is decides what it may do at first); nil when there is none.
    package static func createdAt(of id: UUID, on database: any Database) async throws -> Date? {
        try await database.sql.select().column(Column.createdAt).from(User.schema).where(SQLIdentifier(Column.id), .equal, SQLBind(id)).first()?
            .decode(column: Column.createdAt, as: Date?.self)
    }

    /// The language an account chose (what is written to it when no request is there: a push); nil
    /// when it chose none or there is no such account.
    package static func language(of id: UUID, on database: any Database) async throws -> Language? {
        try await database.sql.select().column(Column.language).from(User.schema).where(SQLIdentifier(Column.id), .equal, SQLBind(id)).first()?
            .decode(column: Column.language, as: String?.self).flatMap(Language.init(rawValue:))
    }

    /// The id of the account `joiningPerson(role, …)` or `selectPerson(role, …)` reads, for
    /// correlated subqueries.
    package static func personID(_ role: String) -> SQLColumn { SQLColumn(Column.id, table: accountAlias(role)) }

    static func accountAlias(_ role: String) -> String { role + "_account" }

    /// The written-out twin of `joiningPerson`, for hot statements written as text (building a
    /// statement from expressions costs more than the read on a page): the columns to select and
    /// the join to add, for the account `personID` names.
    package static func personJoinSQL(_ role: String, on personID: SQLQueryString) -> (columns: SQLQueryString, join: SQLQueryString) {
        let alias = accountAlias(role)
        return ("""
                \(ident: alias).\(ident: Column.nickname) AS \(ident: nicknameColumn(role)), \
                \(ident: alias).\(ident: Column.profileImageKey) AS \(ident: imageColumn(role))
                """,
                "JOIN \(ident: User.schema) \(ident: alias) ON \(ident: alias).\(ident: Column.id) = \(personID)")
    }

    /// One generated account (the synthetic data sets behind the load runs), for `insertSynthetic`.
    package static func syntheticRow(id: UUID, email: String, passwordHash: String, nickname: String, createdAt: Date) -> [any SQLExpression] {
        [SQLBind(id), SQLBind(email), SQLBind(passwordHash), SQLBind(nickname), SQLBind(AccountRules.nicknameKey(nickname)),
         SQLBind(Role.user.rawValue), SQLBind(createdAt)]
    }

    /// Writes generated accounts made by `syntheticRow`, in one statement.
    package static func insertSynthetic(_ rows: [[any SQLExpression]], on sql: any SQLDatabase) async throws {
        try await SyntheticRows.insert(into: User.schema, [Column.id, Column.email, Column.passwordHash, Column.nickname, Column.nicknameKey,
                                                           Column.role, Column.createdAt], rows, on: sql)
    }
}

extension SQLSelectBuilder {
    /// Adds the nickname and picture of the account `personID` names, as `<role>_nickname` and
    /// `<role>_image_key` (read them with `AccountStore.person(role, id:, in:)`). `keepingOrphans`
    /// keeps rows whose column is null or whose account is gone (a left join).
    package func joiningPerson(_ role: String, on personID: SQLColumn, keepingOrphans: Bool = false) -> Self {
        let alias = AccountStore.accountAlias(role)
        return column(SQLColumn(AccountStore.Column.nickname, table: alias), as: AccountStore.nicknameColumn(role))
            .column(SQLColumn(AccountStore.Column.profileImageKey, table: alias), as: AccountStore.imageColumn(role))
            .join(SQLAlias(SQLIdentifier(User.schema), as: SQLIdentifier(alias)), method: keepingOrphans ? SQLJoinMethod.left : SQLJoinMethod.inner,
                  on: SQLColumn(AccountStore.Column.id, table: alias), .equal, personID)
    }
}
