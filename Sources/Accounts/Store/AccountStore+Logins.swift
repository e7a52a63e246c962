import Fluent
import Foundation
import Platform
import SQLKit

/// The sign-in throttle's rows (`login_failures`): each attempt written down before bcrypt runs,
/// counted within the window, taken back or cleared (`AccountService.authenticate`). Shared by
/// every instance through the database, so nothing in memory follows them.
extension AccountStore {
    enum LoginColumn: String, TableColumn {
        case id, email, failedAt = "failed_at"
    }

    /// An attempt as written: every column of `login_failures`.
    struct NewAttempt: Encodable {
        typealias CodingKeys = LoginColumn
        let id: UUID, email: String, failedAt: Date
    }

    static var logins: SQLIdentifier { SQLIdentifier(LoginFailure.schema) }

    /// Writes an attempt for `email` as a failure (until it is known not to be one); its id.
    func recordLoginAttempt(email: String, at time: Date) async throws -> UUID {
        let attempt = NewAttempt(id: UUID(), email: email, failedAt: time)
        try await sql.insert(attempt, into: LoginFailure.schema)
        return attempt.id
    }

    /// The failures of `email` after `start`, with their ids.
    func loginFailures(email: String, after start: Date) async throws -> [(id: UUID, failedAt: Date)] {
        try await sql.select().column(LoginColumn.id).column(LoginColumn.failedAt).from(Self.logins)
            .where(SQLIdentifier(LoginColumn.email), .equal, SQLBind(email)).where(SQLIdentifier(LoginColumn.failedAt), .greaterThan, SQLBind(start))
            .all().map { (try $0.decode(column: LoginColumn.id, as: UUID.self), try $0.decode(column: LoginColumn.failedAt, as: Date.self)) }
    }

    /// Takes back one attempt (a refused one does not count).
    func deleteLoginAttempt(_ id: UUID) async throws {
        try await sql.delete(from: Self.logins).where(SQLIdentifier(LoginColumn.id), .equal, SQLBind(id)).run()
    }

    /// Forgets `email`'s failures: all of them (a sign-in that succeeded), or those at or before
    /// `upTo` (out of the window).
    func forgetLoginFailures(email: String, upTo end: Date? = nil) async throws {
        let delete = sql.delete(from: Self.logins).where(SQLIdentifier(LoginColumn.email), .equal, SQLBind(email))
        if let end { delete.where(SQLIdentifier(LoginColumn.failedAt), .lessThanOrEqual, SQLBind(end)) }
        try await delete.run()
    }

    /// Forgets failures older than `cutoff` (each holds the address someone typed). How many went.
    func pruneLoginFailures(before cutoff: Date) async throws -> Int {
        try await sql.delete(from: Self.logins).where(SQLIdentifier(LoginColumn.failedAt), .lessThan, SQLBind(cutoff))
            .returning(SQLIdentifier(LoginColumn.id)).all().count
    }
}
