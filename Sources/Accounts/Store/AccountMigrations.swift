import Fluent
import Foundation
import Platform
import SQLKit

/// Enums are stored as plain strings so SQLite and PostgreSQL share the same schema and
/// adding a case later needs no type migration.
struct CreateUsers: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(User.schema)
            .id()
            .field("email", .string, .required)
            .field("password_hash", .string, .required)
            .field("nickname", .string, .required)
            .field("nickname_key", .string, .required)
            .field("role", .string, .required)
            .field("language", .string)
            .field("profile_image_key", .string)
            .field("created_at", .datetime)
            .field("updated_at", .datetime)
            .unique(on: "email")
            .unique(on: "nickname_key")
            .create()
        // Newest-first listing (admin user list) pages on these.
        try await database.sql.create(index: "users_created_at_id").on(User.schema)
            .column("created_at").column("id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(User.schema).delete()
    }
}

struct CreateAuthSessions: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(AuthSession.schema)
            .id()
            .field("user_id", .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("web_token_hash", .string)
            .field("user_agent", .string)
            .field("expires_at", .datetime, .required)
            .field("revoked_at", .datetime)
            .field("created_at", .datetime)
            .unique(on: "web_token_hash")
            .create()
        try await database.sql.create(index: "auth_sessions_user_id").on(AuthSession.schema)
            .column("user_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(AuthSession.schema).delete()
    }
}

struct CreateRefreshTokens: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(RefreshToken.schema)
            .id()
            .field("session_id", .uuid, .required, .references(AuthSession.schema, "id", onDelete: .cascade))
            .field("token_hash", .string, .required)
            .field("expires_at", .datetime, .required)
            .field("used_at", .datetime)
            .field("created_at", .datetime)
            .unique(on: "token_hash")
            .create()
        try await database.sql.create(index: "refresh_tokens_session_id").on(RefreshToken.schema)
            .column("session_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(RefreshToken.schema).delete()
    }
}

/// The sealed successor of a rotated refresh token, so a retry of the same rotation within a few
/// seconds gets the same answer instead of revoking the family (see `AccountService.refresh`).
struct AddRefreshTokenSuccessor: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(RefreshToken.schema).field("sealed_successor", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(RefreshToken.schema).deleteField("sealed_successor").update()
    }
}

struct CreateLoginFailures: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(LoginFailure.schema)
            .id()
            .field("email", .string, .required)
            .field("failed_at", .datetime, .required)
            .create()
        try await database.sql.create(index: "login_failures_email_failed_at").on(LoginFailure.schema)
            .column("email").column("failed_at").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(LoginFailure.schema).delete()
    }
}

/// Nickname keys became Unicode's confusables skeleton (`AccountRules.nicknameKey`, 2026-11-27):
/// every stored key is computed again. Accounts whose names now look alike keep their names; the
/// older keeps the key and each later one's key is made unique with its id (so a new account still
/// cannot take that look). Two passes, so no row meets another's old key on the way.
struct RecomputeNicknameKeys: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.writeTransaction { transaction in
            let sql = transaction.sql
            let users = try await sql.raw("SELECT id, nickname FROM \(ident: User.schema) ORDER BY created_at, id").all()
            let rows = try users.map { (id: try $0.decode(column: "id", as: UUID.self), nickname: try $0.decode(column: "nickname", as: String.self)) }
            for row in rows {
                try await sql.raw("UPDATE \(ident: User.schema) SET nickname_key = \(bind: "~" + row.id.uuidString) WHERE id = \(bind: row.id)").run()
            }
            var taken: Set<String> = []
            for row in rows {
                var key = AccountRules.nicknameKey(row.nickname)
                if !taken.insert(key).inserted { key += "~" + row.id.uuidString }
                try await sql.raw("UPDATE \(ident: User.schema) SET nickname_key = \(bind: key) WHERE id = \(bind: row.id)").run()
            }
        }
    }

    func revert(on database: any Database) async throws {}

    init() {}
}

/// An operator's suspension of a whole account: when, and the reason the person is told when they
/// try to sign in. One column a statement (SQLite adds one at a time).
struct AddAccountSuspension: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(User.schema).fields([(AccountStore.Column.suspendedAt, .datetime)], optional: true).update()
        try await database.schema(User.schema).fields([(AccountStore.Column.suspensionReason, .string)], optional: true).update()
    }

    func revert(on database: any Database) async throws {
        // Written out: Fluent's SQLite driver leaves a dropped field where it is.
        for column in [AccountStore.Column.suspendedAt, .suspensionReason] {
            try await database.sql.raw("ALTER TABLE \(ident: User.schema) DROP COLUMN \(ident: column.rawValue)").run()
        }
    }

    init() {}
}

/// When each session was last used, for the account's list of signed-in devices.
struct AddSessionLastSeen: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(AuthSession.schema).fields([(AccountStore.SessionColumn.lastSeenAt, .datetime)], optional: true).update()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw("ALTER TABLE \(ident: AuthSession.schema) DROP COLUMN \(ident: AccountStore.SessionColumn.lastSeenAt.rawValue)").run()
    }

    init() {}
}
