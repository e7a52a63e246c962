import Fluent
import Platform
import SQLKit
import Vapor

/// Sessions: API refresh-token families (start, rotate, revoke, the retry window) and browser
/// sessions, each remembered in `SessionCache` and announced when it ends (`SessionEnd`).
extension AccountService {
    // MARK: API sessions (refresh-token families)

    package func startAPISession(for user: User, userAgent: String?, kind: AuthSession.Kind = .api, now: Date = Date()) async throws -> TokenPair {
        let userID = try user.requireID()
        let session = AuthSession(userID: userID, kind: kind, userAgent: userAgent?.truncated(toBytes: 512), expiresAt: now.addingTimeInterval(settings.refreshTokenTTL))
        let refresh = SecureRandom.token()
        try await database.transaction { transaction in
            try await session.create(on: transaction)
            try await RefreshToken(sessionID: try session.requireID(), tokenHash: SecureRandom.sha256Hex(refresh),
                                   expiresAt: now.addingTimeInterval(settings.refreshTokenTTL)).create(on: transaction)
        }
        return try await tokenPair(userID: userID, sessionID: try session.requireID(), refreshToken: refresh, now: now)
    }

    /// Rotates a refresh token. A token can be used once; presenting it again revokes its whole
    /// family, so a stolen copy and the real one cannot both live on. The one exception is a retry
    /// within `RefreshOutcome.retryWindow` seconds (two racing requests of one app, or a retry
    /// after a lost answer): it gets a new access token and the *same* successor, sealed on the
    /// used row, so the family stays one chain and the user stays signed in.
    package func refresh(_ presented: String, now: Date = Date()) async throws -> TokenPair {
        let hash = SecureRandom.sha256Hex(presented)
        let next = SecureRandom.token()
        struct Claimed: Decodable { let session_id: UUID; let expires_at: Date }

        enum Result { case rotated(TokenPair), failed(AppError), reused(session: UUID) }
        let result: Result = try await database.transaction { transaction in
            // Claim the token with one conditional write; of two racing requests only one gets the row.
            let claimed = try await transaction.sql.update(RefreshToken.schema)
                .set("used_at", to: now)
                .set("sealed_successor", to: try Self.seal(next, key: sealKey))
                .where("token_hash", .equal, hash)
                .where("used_at", .is, SQLLiteral.null)
                .returning("session_id", "expires_at")
                .first(decoding: Claimed.self)
            guard let claimed else {
                guard let known = try await RefreshToken.query(on: transaction).filter(\.$tokenHash == hash).first() else {
                    return .failed(AppError(.unauthorized, "invalid_refresh_token"))
                }
                if let retried = try await answerRetry(of: known, on: transaction, now: now) { return .rotated(retried) }
                try await AuthSession.query(on: transaction).filter(\.$id == known.$session.id)
                    .filter(\.$revokedAt == nil).set(\.$revokedAt, to: now).update()
                return .reused(session: known.$session.id)
            }
            guard let session = try await AuthSession.find(claimed.session_id, on: transaction) else {
                return .failed(AppError(.unauthorized, "invalid_refresh_token"))
            }
            switch RefreshOutcome.evaluate(usedAt: nil, expiresAt: claimed.expires_at, familyRevokedAt: session.revokedAt, now: now) {
            case .revoked, .reuseDetected, .retryOfRotation:
                return .failed(AppError(.unauthorized, "invalid_refresh_token"))
            case .expired:
                return .failed(AppError(.unauthorized, "refresh_token_expired"))
            case .rotate:
                try await RefreshToken(sessionID: claimed.session_id, tokenHash: SecureRandom.sha256Hex(next),
                                       expiresAt: now.addingTimeInterval(settings.refreshTokenTTL)).create(on: transaction)
                session.expiresAt = now.addingTimeInterval(settings.refreshTokenTTL)
                try await session.save(on: transaction)
                return .rotated(try await tokenPair(userID: session.$user.id, sessionID: claimed.session_id, refreshToken: next, now: now))
            }
        }
        switch result {
        case .rotated(let pair): return pair
        // Thrown after the transaction commits, so a detected reuse stays revoked.
        case .failed(let error): throw error
        case .reused(let session):
            await sessions.forget(.session(session), announcingOn: events)
            await events.announceSessionEnd(.session(session))
            throw AppError(.unauthorized, "refresh_token_reused")
        }
    }

    /// The answer to a retried rotation: the successor already handed out (if it is still the
    /// family's live token) with a fresh access token; nil when this is a reuse to punish.
    private func answerRetry(of used: RefreshToken, on database: any Database, now: Date) async throws -> TokenPair? {
        guard let session = try await AuthSession.find(used.$session.id, on: database),
              RefreshOutcome.evaluate(usedAt: used.usedAt, expiresAt: used.expiresAt, familyRevokedAt: session.revokedAt,
                                      now: now, retryWindow: RefreshOutcome.retryWindow) == .retryOfRotation,
              let sealed = used.sealedSuccessor, let successor = Self.unseal(sealed, key: sealKey),
              let live = try await RefreshToken.query(on: database).filter(\.$tokenHash == SecureRandom.sha256Hex(successor)).first(),
              live.usedAt == nil, live.$session.id == used.$session.id, session.expiresAt > now
        else { return nil }
        return try await tokenPair(userID: session.$user.id, sessionID: try session.requireID(), refreshToken: successor, now: now)
    }

    static func seal(_ token: String, key: SymmetricKey) throws -> String {
        guard let combined = try AES.GCM.seal(Data(token.utf8), using: key).combined else { throw AppError(.internalServerError, "internal_error") }
        return combined.base64URLEncodedString()
    }

    static func unseal(_ sealed: String, key: SymmetricKey) -> String? {
        guard let data = Data(base64URLEncoded: sealed), let box = try? AES.GCM.SealedBox(combined: data),
              let plain = try? AES.GCM.open(box, using: key) else { return nil }
        return String(data: plain, encoding: .utf8)
    }

    /// A new access token for the session a refresh token belongs to, the refresh token left as it
    /// is: the LookForRealBurger app keeps its login's refresh token for good (it never stores the
    /// one a refresh returns), so on its routes a refresh token lives until it expires. Our own
    /// API rotates (docs/DECISIONS.md). `session` is the session of the access token presented
    /// with it: another session's refresh token is 403 `refresh_token_mismatch`. Only sessions the
    /// app's own login made (`appWithFixedRefresh`) refresh so: any other session's token would
    /// escape the reuse detection of rotation (403 `refresh_token_mismatch` too).
    package func accessTokenWithoutRotation(_ presented: String, session sessionID: UUID, now: Date = Date()) async throws -> String {
        guard let token = try await RefreshToken.query(on: database).filter(\.$tokenHash == SecureRandom.sha256Hex(presented)).first(),
              token.usedAt == nil, let session = try await AuthSession.find(token.$session.id, on: database), session.revokedAt == nil
        else { throw AppError(.unauthorized, "invalid_refresh_token") }
        guard token.$session.id == sessionID, session.kind == .appWithFixedRefresh else { throw AppError(.forbidden, "refresh_token_mismatch") }
        guard token.expiresAt > now else { throw AppError(.unauthorized, "refresh_token_expired") }
        return try await accessTokens.sign(userID: session.$user.id, sessionID: sessionID, now: now)
    }

    func revokeSession(_ sessionID: UUID, now: Date = Date()) async throws {
        try await AuthSession.query(on: database).filter(\.$id == sessionID)
            .filter(\.$revokedAt == nil).set(\.$revokedAt, to: now).update()
        await sessions.forget(.session(sessionID), announcingOn: events)
        await events.announceSessionEnd(.session(sessionID))
    }

    /// An account changed: requests signed in as it read it afresh, on every instance.
    func accountChanged(_ userID: UUID) async {
        await sessions.forget(.user(userID), announcingOn: events)
    }

    /// The user an access token's session names: from memory when remembered (`SessionCache`),
    /// else read (and remembered); nil once revoked, expired or withdrawn.
    func signedInUser(session sessionID: UUID, userID: UUID, now: Date = Date()) async throws -> User? {
        if let user = sessions.user(session: sessionID, userID: userID, now: now) { return user }
        let generation = sessions.generation
        guard let (session, user) = try await liveSession(id: sessionID, userID: userID, now: now) else { return nil }
        sessions.remember(session: sessionID, expiresAt: session.expiresAt, user: user, readAt: generation, now: now)
        return user
    }

    /// The live session an access token names, with its user; nil once revoked, expired or withdrawn.
    func liveSession(id sessionID: UUID, userID: UUID, now: Date = Date()) async throws -> (AuthSession, User)? {
        // One query: the session joined with its user (eager loading would take two).
        guard let session = try await AuthSession.query(on: database)
            .join(User.self, on: \AuthSession.$user.$id == \User.$id)
            .filter(\.$id == sessionID).filter(\.$revokedAt == nil).filter(\.$expiresAt > now)
            .first(),
            session.$user.id == userID
        else { return nil }
        return (session, try session.joined(User.self))
    }

    private func tokenPair(userID: UUID, sessionID: UUID, refreshToken: String, now: Date) async throws -> TokenPair {
        TokenPair(
            accessToken: try await accessTokens.sign(userID: userID, sessionID: sessionID, now: now),
            refreshToken: refreshToken, expiresIn: Int(accessTokens.lifetime), tokenType: "Bearer"
        )
    }

    // MARK: Browser sessions

    /// Starts a cookie session; returns the cookie value (only its hash is stored).
    func startWebSession(for user: User, userAgent: String?, now: Date = Date()) async throws -> (token: String, expiresAt: Date) {
        let token = SecureRandom.token()
        let expiresAt = now.addingTimeInterval(settings.refreshTokenTTL)
        try await AuthSession(userID: try user.requireID(), kind: .web, webTokenHash: SecureRandom.sha256Hex(token),
                              userAgent: userAgent?.truncated(toBytes: 512), expiresAt: expiresAt).create(on: database)
        return (token, expiresAt)
    }

    /// The live browser session a cookie names, with its user: from memory when a recent page
    /// read it (`SessionCache`, forgotten on logout and withdrawal on every instance), else one
    /// query.
    func webSession(cookieToken: String, now: Date = Date()) async throws -> (session: UUID, user: User)? {
        let cookieHash = SecureRandom.sha256Hex(cookieToken)
        if let remembered = sessions.webSession(cookieHash: cookieHash, now: now) { return remembered }
        let generation = sessions.generation
        guard let session = try await AuthSession.query(on: database)
            .join(User.self, on: \AuthSession.$user.$id == \User.$id)
            .filter(\.$webTokenHash == cookieHash)
            .filter(\.$revokedAt == nil).filter(\.$expiresAt > now)
            .first()
        else { return nil }
        let user = try session.joined(User.self)
        let id = try session.requireID()
        sessions.remember(session: id, expiresAt: session.expiresAt, user: user, cookieHash: cookieHash, readAt: generation, now: now)
        return (id, user)
    }
}
