package import Fluent
package import Foundation
import NIOConcurrencyHelpers
package import Platform
import SQLKit
import Vapor

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
        /// When a request last came with it (written at most every `SessionSightings.interval`).
        case lastSeenAt = "last_seen_at"
    }

    enum RefreshColumn: String, TableColumn {
        case id, sessionID = "session_id", tokenHash = "token_hash", expiresAt = "expires_at", usedAt = "used_at"
        /// The token that replaced this one, sealed with the refresh-successor key; set on rotation.
        case sealedSuccessor = "sealed_successor"
        case createdAt = "created_at"
    }

    /// A session as started: every column of `auth_sessions`.
    struct NewSession: Encodable {
        typealias CodingKeys = SessionColumn
        let id: UUID, userID: UUID, kind: AuthSession.Kind, webTokenHash: String?, userAgent: String?, expiresAt: Date
        let revokedAt: Date?, createdAt: Date, lastSeenAt: Date?
    }

    /// A refresh token as issued: every column of `refresh_tokens`.
    struct NewRefreshToken: Encodable {
        typealias CodingKeys = RefreshColumn
        let id: UUID, sessionID: UUID, tokenHash: String, expiresAt: Date, usedAt: Date?, sealedSuccessor: String?, createdAt: Date

        init(sessionID: UUID, tokenHash: String, expiresAt: Date, at now: Date) {
            id = UUID()
            self.sessionID = sessionID
            self.tokenHash = tokenHash
            self.expiresAt = expiresAt
            usedAt = nil
            sealedSuccessor = nil
            createdAt = now.wholeMicroseconds
        }
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
        let now = self.now()
        let session = NewSession(id: UUID(), userID: userID, kind: kind, webTokenHash: cookieHash, userAgent: userAgent.map { String($0.prefix(200)) },
                                 expiresAt: expiresAt, revokedAt: nil, createdAt: now.wholeMicroseconds, lastSeenAt: nil)
        try await database.writeTransaction { transaction in
            try await transaction.sql.insert(session, into: AuthSession.schema)
            if let refreshHash {
                try await transaction.sql.insert(NewRefreshToken(sessionID: session.id, tokenHash: refreshHash, expiresAt: expiresAt, at: now),
                                                 into: RefreshToken.schema)
            }
        }
        await devicesChanged(userID)
        return session.id
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
        try await sql.insert(NewRefreshToken(sessionID: id, tokenHash: hash, expiresAt: expiresAt, at: now()), into: RefreshToken.schema)
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
    /// stays), in one transaction (with an operator's `audit` entry); announced once committed.
    /// The sessions it ended.
    @discardableResult
    func changePassword(of user: User, toHash hash: String, keeping kept: UUID?, at time: Date, audit: AuditEntry? = nil) async throws -> [UUID] {
        let userID = try user.requireID()
        user.passwordHash = hash
        let ended: [UUID] = try await database.writeTransaction { transaction in
            try await user.save(on: transaction)
            if let audit { try await AuditLog(database: transaction).record(audit) }
            return try await Self.revokeLiveSessions(of: userID, keeping: kept, at: time, on: transaction.sql)
        }
        await accountChanged(userID)
        await sessionsEnded(ended, forgetting: false)  // the account's change forgot them all
        return ended
    }
}

// MARK: Signed-in devices

extension AccountStore {
    /// A live session as its account's device list shows it.
    struct SessionListing: Sendable {
        let id: UUID
        let kind: AuthSession.Kind
        let userAgent: String?
        let createdAt: Date?
        let lastSeenAt: Date?
        let expiresAt: Date
    }

    /// The account's live sessions, the latest seen first (at most 100): kept per account
    /// (`SessionCache.deviceLists`), those expired since left out.
    func liveSessions(of userID: UUID, now: Date) async throws -> [SessionListing] {
        try await deviceLists.value(for: userID) { try await storedLiveSessions(of: userID, now: now) }
            .filter { $0.expiresAt > now }
    }

    private func storedLiveSessions(of userID: UUID, now: Date) async throws -> [SessionListing] {
        try await sql.select()
            .columns([SessionColumn.id, .kind, .userAgent, .createdAt, .lastSeenAt, .expiresAt])
            .from(Self.sessionsTable)
            .where(SQLIdentifier(SessionColumn.userID), .equal, SQLBind(userID))
            .where(SQLIdentifier(SessionColumn.revokedAt), .is, SQLLiteral.null)
            .where(SQLIdentifier(SessionColumn.expiresAt), .greaterThan, SQLBind(now))
            .orderBy(SQLOrderBy(expression: SQLFunction("COALESCE", args: SQLIdentifier(SessionColumn.lastSeenAt), SQLIdentifier(SessionColumn.createdAt)),
                                direction: SQLDirection.descending))
            .limit(100)
            .all()
            .map { row in
                SessionListing(id: try row.decode(column: SessionColumn.id, as: UUID.self), kind: try row.decode(column: SessionColumn.kind, as: AuthSession.Kind.self),
                               userAgent: try row.decode(column: SessionColumn.userAgent, as: String?.self),
                               createdAt: try row.decode(column: SessionColumn.createdAt, as: Date?.self),
                               lastSeenAt: try row.decode(column: SessionColumn.lastSeenAt, as: Date?.self),
                               expiresAt: try row.decode(column: SessionColumn.expiresAt, as: Date.self))
            }
    }

    /// Ends the account's live sessions — all of them but `kept`, or only `only` — and announces
    /// their end (their sockets close on every instance). The sessions it ended.
    @discardableResult
    func revokeSessions(of userID: UUID, keeping kept: UUID?, only: UUID? = nil, at time: Date) async throws -> [UUID] {
        let ended: [UUID] = try await database.writeTransaction { transaction in
            try await Self.revokeLiveSessions(of: userID, keeping: kept, only: only, at: time, on: transaction.sql)
        }
        await sessionsEnded(ended)
        return ended
    }

    /// Ends the account's live sessions — all but `kept`, or only `only` — inside the caller's
    /// transaction; the caller announces them once it committed. The sessions it ended.
    static func revokeLiveSessions(of userID: UUID, keeping kept: UUID? = nil, only: UUID? = nil, at time: Date,
                                   on sql: any SQLDatabase) async throws -> [UUID] {
        let select = sql.select().column(SessionColumn.id).from(sessionsTable)
            .where(SQLIdentifier(SessionColumn.userID), .equal, SQLBind(userID))
            .where(SQLIdentifier(SessionColumn.revokedAt), .is, SQLLiteral.null)
        if let only { select.where(SQLIdentifier(SessionColumn.id), .equal, SQLBind(only)) }
        let live = try await select.all(decodingColumn: SessionColumn.id, as: UUID.self).filter { $0 != kept }
        if !live.isEmpty {
            try await sql.update(sessionsTable).set(SQLIdentifier(SessionColumn.revokedAt), to: SQLBind(time))
                .where(SQLIdentifier(SessionColumn.id), .in, SQLBind.group(live)).run()
        }
        return live
    }

    /// Forgets sessions that ended (signed out, or expired) before `cutoff`, with their refresh
    /// tokens, in one transaction. How many sessions went.
    func pruneSessions(endedBefore cutoff: Date) async throws -> Int {
        try await database.writeTransaction { transaction in
            let sql = transaction.sql
            let ended = sql.select().column(SessionColumn.id).from(Self.sessionsTable)
                .where(group: { $0.where(SQLIdentifier(SessionColumn.revokedAt), .lessThan, SQLBind(cutoff))
                    .orWhere(SQLIdentifier(SessionColumn.expiresAt), .lessThan, SQLBind(cutoff)) })
            try await sql.delete(from: Self.refreshTokens)
                .where(SQLIdentifier(RefreshColumn.sessionID), .in, SQLGroupExpression(ended.query)).run()
            return try await sql.delete(from: Self.sessionsTable)
                .where(group: { $0.where(SQLIdentifier(SessionColumn.revokedAt), .lessThan, SQLBind(cutoff))
                    .orWhere(SQLIdentifier(SessionColumn.expiresAt), .lessThan, SQLBind(cutoff)) })
                .returning(SQLIdentifier(SessionColumn.id)).all().count
        }
    }

    /// The user agents of the account's sessions still kept (live or ended within the retention),
    /// at most 200: whether a sign-in comes from a device seen before.
    func sessionUserAgents(of userID: UUID) async throws -> [String?] {
        try await sql.select().column(SessionColumn.userAgent).from(Self.sessionsTable)
            .where(SQLIdentifier(SessionColumn.userID), .equal, SQLBind(userID)).limit(200)
            .all(decodingColumn: SessionColumn.userAgent, as: String?.self)
    }

    /// Notes that a request came with the session.
    func noteSessionSeen(_ id: UUID, at time: Date) async throws {
        try await sql.update(Self.sessionsTable).set(SQLIdentifier(SessionColumn.lastSeenAt), to: SQLBind(time))
            .where(SQLIdentifier(SessionColumn.id), .equal, SQLBind(id)).run()
    }
}

/// When each signed-in device was last seen, for its account's device list: noted as requests
/// come (`Request.signIn`), written at most once per `interval` a session on each instance.
package final class SessionSightings: Sendable {
    package static let interval: TimeInterval = 5 * 60
    private let written = NIOLockedValueBox<[UUID: Date]>([:])

    package init() {}

    /// Whether `session` is due a write at `now` (and, if so, counts it as written).
    func due(_ session: UUID, now: Date) -> Bool {
        written.withLockedValue { written in
            if let last = written[session], now.timeIntervalSince(last) < Self.interval { return false }
            if written.count > 50_000 { written = written.filter { now.timeIntervalSince($0.value) < Self.interval } }
            written[session] = now
            return true
        }
    }
}

extension AccountStore {
    /// Suspends an account (or lifts it, `reason` nil) and, when suspending, ends every live
    /// session of it, in one transaction; announced once committed. The sessions it ended.
    @discardableResult
    package func setSuspension(of user: User, reason: String?, at time: Date, audit: AuditEntry? = nil) async throws -> [UUID] {
        let userID = try user.requireID()
        user.suspendedAt = reason == nil ? nil : time
        user.suspensionReason = reason
        let ended: [UUID] = try await database.writeTransaction { transaction in
            try await user.save(on: transaction)
            if let audit { try await AuditLog(database: transaction).record(audit) }
            guard reason != nil else { return [] }
            return try await Self.revokeLiveSessions(of: userID, at: time, on: transaction.sql)
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

extension Request {
    /// Notes that the signed-in session was used now (a write at most every five minutes a
    /// session; a busy database skips it rather than fail the request).
    func noteSessionSeen(_ session: UUID) async {
        let now = application.accountsEnvironment.now()
        guard application.sessionSightings.due(session, now: now) else { return }
        try? await AccountStore(database: db, application: application).noteSessionSeen(session, at: now)
    }
}
