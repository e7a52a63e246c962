import Fluent
import Foundation
import Platform
import SQLKit

/// Sessions (`auth_sessions`: an API refresh-token family, a browser's cookie, a LookForRealBurger
/// app login) and their refresh tokens (`refresh_tokens`, kept only as SHA-256). The rules of
/// rotation, reuse and retries are `AccountService`'s; the statements and the announcements of
/// sessions that end are here.
extension AccountStore {
    enum SessionColumn: String, TableColumn {
        case id, userID = "user_id", kind
        /// SHA-256 of the browser's session cookie (web sessions only).
        case webTokenHash = "web_token_hash"
        case userAgent = "user_agent", expiresAt = "expires_at", revokedAt = "revoked_at", createdAt = "created_at"
    }

    enum RefreshColumn: String, TableColumn {
        case id, sessionID = "session_id", tokenHash = "token_hash", expiresAt = "expires_at", usedAt = "used_at"
        /// The token that replaced this one, sealed with the refresh-successor key; set on rotation.
        case sealedSuccessor = "sealed_successor"
        case createdAt = "created_at"
    }

    static var sessionsTable: SQLIdentifier { SQLIdentifier(AuthSession.schema) }
    static var refreshTokens: SQLIdentifier { SQLIdentifier(RefreshToken.schema) }

    // MARK: Reading

    func session(_ id: UUID) async throws -> SessionRow? {
        try await AuthSession.find(id, on: database).map(SessionRow.init)
    }

    func refreshToken(hash: String) async throws -> RefreshTokenRow? {
        try await RefreshToken.query(on: database).filter(\.$tokenHash == hash).first().map(RefreshTokenRow.init)
    }

    /// The live session `id` with its user, if it is `userID`'s: one query (the session joined with
    /// its user); nil once revoked, expired or withdrawn.
    func liveSession(_ id: UUID, of userID: UUID, now: Date) async throws -> (session: SessionRow, user: User)? {
        guard let session = try await AuthSession.query(on: database)
            .join(User.self, on: \AuthSession.$user.$id == \User.$id)
            .filter(\.$id == id).filter(\.$revokedAt == nil).filter(\.$expiresAt > now)
            .first(),
            session.$user.id == userID
        else { return nil }
        return (SessionRow(session), try session.joined(User.self))
    }

    /// The live browser session whose cookie hashes to `cookieHash`, with its user.
    func liveWebSession(cookieHash: String, now: Date) async throws -> (session: SessionRow, user: User)? {
        guard let session = try await AuthSession.query(on: database)
            .join(User.self, on: \AuthSession.$user.$id == \User.$id)
            .filter(\.$webTokenHash == cookieHash)
            .filter(\.$revokedAt == nil).filter(\.$expiresAt > now)
            .first()
        else { return nil }
        return (SessionRow(session), try session.joined(User.self))
    }

    // MARK: Writing

    /// Starts a session: with `refreshHash`, an API family and its first refresh token (one
    /// transaction); with `cookieHash`, a browser's. Its id.
    func startSession(userID: UUID, kind: AuthSession.Kind, userAgent: String?, expiresAt: Date,
                      refreshHash: String? = nil, cookieHash: String? = nil) async throws -> UUID {
        let session = AuthSession(userID: userID, kind: kind, webTokenHash: cookieHash, userAgent: userAgent, expiresAt: expiresAt)
        try await database.writeTransaction { transaction in
            try await session.create(on: transaction)
            if let refreshHash {
                try await RefreshToken(sessionID: try session.requireID(), tokenHash: refreshHash, expiresAt: expiresAt).create(on: transaction)
            }
        }
        return try session.requireID()
    }

    /// Marks the unused refresh token `hash` used, sealing its successor on it, with one
    /// conditional write: of two racing requests only one gets the row. Its session and expiry;
    /// nil when it was used already or never was.
    func claimRefreshToken(hash: String, at time: Date, sealedSuccessor: String) async throws -> (sessionID: UUID, expiresAt: Date)? {
        struct Claimed: Decodable { let session_id: UUID; let expires_at: Date }
        let claimed = try await sql.update(Self.refreshTokens)
            .set(SQLIdentifier(RefreshColumn.usedAt), to: SQLBind(time))
            .set(SQLIdentifier(RefreshColumn.sealedSuccessor), to: SQLBind(sealedSuccessor))
            .where(SQLIdentifier(RefreshColumn.tokenHash), .equal, SQLBind(hash))
            .where(SQLIdentifier(RefreshColumn.usedAt), .is, SQLLiteral.null)
            .returning(SQLIdentifier(RefreshColumn.sessionID), SQLIdentifier(RefreshColumn.expiresAt))
            .first(decoding: Claimed.self)
        return claimed.map { ($0.session_id, $0.expires_at) }
    }

    /// The family's next refresh token; the session lives until it expires.
    func rotate(session id: UUID, toTokenHash hash: String, expiresAt: Date) async throws {
        try await RefreshToken(sessionID: id, tokenHash: hash, expiresAt: expiresAt).create(on: database)
        try await sql.update(Self.sessionsTable).set(SQLIdentifier(SessionColumn.expiresAt), to: SQLBind(expiresAt))
            .where(SQLIdentifier(SessionColumn.id), .equal, SQLBind(id)).run()
    }

    /// Revokes a session (a second revoke changes nothing) and announces its end.
    func revokeSession(_ id: UUID, at time: Date) async throws {
        try await sql.update(Self.sessionsTable).set(SQLIdentifier(SessionColumn.revokedAt), to: SQLBind(time))
            .where(SQLIdentifier(SessionColumn.id), .equal, SQLBind(id)).where(SQLIdentifier(SessionColumn.revokedAt), .is, SQLLiteral.null).run()
        await sessionsEnded([id])
    }

    /// Writes a new password hash and ends every other live session of the account (`keeping`
    /// stays), in one transaction; announced once committed. The sessions it ended.
    @discardableResult
    func changePassword(of user: User, toHash hash: String, keeping kept: UUID?, at time: Date) async throws -> [UUID] {
        let userID = try user.requireID()
        user.passwordHash = hash
        let ended: [UUID] = try await database.writeTransaction { transaction in
            try await user.save(on: transaction)
            let others = try await transaction.sql.select().column(SessionColumn.id).from(Self.sessionsTable)
                .where(SQLIdentifier(SessionColumn.userID), .equal, SQLBind(userID)).where(SQLIdentifier(SessionColumn.revokedAt), .is, SQLLiteral.null)
                .all(decodingColumn: SessionColumn.id, as: UUID.self).filter { $0 != kept }
            if !others.isEmpty {
                try await transaction.sql.update(Self.sessionsTable).set(SQLIdentifier(SessionColumn.revokedAt), to: SQLBind(time))
                    .where(SQLIdentifier(SessionColumn.id), .in, SQLBind.group(others)).run()
            }
            return others
        }
        await accountChanged(userID)
        await sessionsEnded(ended, forgetting: false)  // the account's change forgot them all
        return ended
    }
}

extension AccountStore {
    /// Suspends an account (or lifts it, `reason` nil) and, when suspending, ends every live
    /// session of it, in one transaction; announced once committed. The sessions it ended.
    @discardableResult
    func setSuspension(of user: User, reason: String?, at time: Date, audit: AuditEntry? = nil) async throws -> [UUID] {
        let userID = try user.requireID()
        user.suspendedAt = reason == nil ? nil : time
        user.suspensionReason = reason
        let ended: [UUID] = try await database.writeTransaction { transaction in
            try await user.save(on: transaction)
            if let audit { try await AuditLog(database: transaction).record(audit) }
            guard reason != nil else { return [] }
            let live = try await transaction.sql.select().column(SessionColumn.id).from(Self.sessionsTable)
                .where(SQLIdentifier(SessionColumn.userID), .equal, SQLBind(userID)).where(SQLIdentifier(SessionColumn.revokedAt), .is, SQLLiteral.null)
                .all(decodingColumn: SessionColumn.id, as: UUID.self)
            if !live.isEmpty {
                try await transaction.sql.update(Self.sessionsTable).set(SQLIdentifier(SessionColumn.revokedAt), to: SQLBind(time))
                    .where(SQLIdentifier(SessionColumn.id), .in, SQLBind.group(live)).run()
            }
            return live
        }
        await accountChanged(userID)
        await sessionsEnded(ended, forgetting: false)
        return ended
    }
}

/// A session as the rules read it.
struct SessionRow: Sendable {
    let id: UUID
    let userID: UUID
    let kind: AuthSession.Kind
    let expiresAt: Date
    let revokedAt: Date?

    init(_ session: AuthSession) {
        id = session.id ?? UUID()
        userID = session.$user.id
        kind = session.kind
        expiresAt = session.expiresAt
        revokedAt = session.revokedAt
    }
}

/// A refresh token as the rules read it.
struct RefreshTokenRow: Sendable {
    let sessionID: UUID
    let expiresAt: Date
    let usedAt: Date?
    let sealedSuccessor: String?

    init(_ token: RefreshToken) {
        sessionID = token.$session.id
        expiresAt = token.expiresAt
        usedAt = token.usedAt
        sealedSuccessor = token.sealedSuccessor
    }
}
