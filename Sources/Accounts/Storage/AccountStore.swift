import Fluent
import Foundation
import Platform
import SQLKit

/// The columns of `users`, each named once (the model's keys are these), and the one way other
/// stores read an account: its public face (nickname and picture) joined to their own rows.
///
/// The accounts' writes — sign-up, profile, picture, password, withdrawal — are `AccountService`'s
/// (with its sessions), which announces each on `SessionCache.topic`; nothing else writes `users`
/// but the synthetic data sets, through `insertSynthetic`.
package enum AccountStore {
    package enum Column {
        package static let id = "id"
        static let email = "email"
        static let passwordHash = "password_hash"
        static let nickname = "nickname"
        static let nicknameKey = "nickname_key"
        package static let role = "role"
        static let language = "language"
        static let profileImageKey = "profile_image_key"
        package static let createdAt = "created_at"
        static let updatedAt = "updated_at"
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

    /// When an account was made (how old it is decides what it may do at first); nil when there is none.
    package static func createdAt(of id: UUID, on database: any Database) async throws -> Date? {
        try await database.sql.select().column(Column.createdAt).from(User.schema).where(SQLIdentifier(Column.id), .equal, SQLBind(id)).first()?
            .decode(column: Column.createdAt, as: Date?.self)
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
