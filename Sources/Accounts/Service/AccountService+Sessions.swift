package import Fluent
import Platform
import SQLKit
package import Vapor

/// Sessions: API refresh-token families (start, rotate, revoke, the retry window) and browser
/// sessions, each remembered in `SessionCache` and announced when it ends (`SessionEnd`).
extension AccountService {
    // MARK: API sessions (refresh-token families)

    package func startAPISession(for user: User, userAgent: String?, kind: AuthSession.Kind = .api) async throws -> TokenPair {
        let now = environment.now()
        let userID = try user.requireID()
        let refresh = SecureRandom.token()
        let agent = userAgent?.truncated(toBytes: 512)
        let seenBefore = try await store.sessionUserAgents(of: userID)
        let session = try await store.startSession(userID: userID, kind: kind, userAgent: agent,
                                                   expiresAt: now.addingTimeInterval(settings.refreshTokenTTL), refreshHash: SecureRandom.sha256Hex(refresh))
        await tellIfNewDevice(userID: userID, session: session, userAgent: agent, seenBefore: seenBefore)
        return try await tokenPair(userID: userID, sessionID: session, refreshToken: refresh, now: now)
    }

    /// A sign-in whose user agent none of the account's kept sessions had, on an account that had
    /// signed in before, is a new device (`NewDeviceSignIns`).
    private func tellIfNewDevice(userID: UUID, session: UUID, userAgent: String?, seenBefore: [String?]) async {
        guard !seenBefore.isEmpty, !seenBefore.contains(userAgent) else { return }
        await application.newDeviceSignIns.announce(
            NewDeviceSignIn(userID: userID, sessionID: session, device: AccountRules.deviceLabel(userAgent: userAgent)), app: application)
    }

    /// Rotates a refresh token. A token can be used once; presenting it again revokes its whole
    /// family, so a stolen copy and the real one cannot both live on. The one exception is a retry
    /// within `RefreshOutcome.retryWindow` seconds (two racing requests of one app, or a retry
    /// after a lost answer): it gets a new access token and the *same* successor, sealed on the
    /// used row, so the family stays one chain and the user stays signed in.
    package func refresh(_ presented: String) async throws -> TokenPair {
        let now = environment.now()
        let hash = SecureRandom.sha256Hex(presented)
        let next = SecureRandom.token()
        let sealed = try Self.seal(next, key: sealKey)

        enum Result { case rotated(TokenPair), failed(AppError), reused(session: UUID) }
        let ttl = settings.refreshTokenTTL
        let result: Result = try await store.transaction { store in
            // Claim the token with one conditional write; of two racing requests only one gets the row.
            guard let claimed = try await store.claimRefreshToken(hash: hash, at: now, sealedSuccessor: sealed) else {
                guard let known = try await store.refreshToken(hash: hash) else {
                    return .failed(AppError(.unauthorized, "invalid_refresh_token"))
                }
                if let retried = try await answerRetry(of: known, in: store, now: now) { return .rotated(retried) }
                try await store.revokeSession(known.sessionID, at: now)
                return .reused(session: known.sessionID)
            }
            guard let session = try await store.session(claimed.sessionID) else {
                return .failed(AppError(.unauthorized, "invalid_refresh_token"))
            }
            switch RefreshOutcome.evaluate(usedAt: nil, expiresAt: claimed.expiresAt, familyRevokedAt: session.revokedAt, now: now) {
            case .revoked, .reuseDetected, .retryOfRotation:
                return .failed(AppError(.unauthorized, "invalid_refresh_token"))
            case .expired:
                return .failed(AppError(.unauthorized, "refresh_token_expired"))
            case .rotate:
                try await store.rotate(session: claimed.sessionID, toTokenHash: SecureRandom.sha256Hex(next), expiresAt: now.addingTimeInterval(ttl))
                return .rotated(try await tokenPair(userID: session.userID, sessionID: claimed.sessionID, refreshToken: next, now: now))
            }
        }
        switch result {
        case .rotated(let pair): return pair
        // Thrown after the transaction commits, so a detected reuse stays revoked.
        case .failed(let error): throw error
        case .reused:
            // The family's revocation was announced once the transaction committed.
            throw AppError(.unauthorized, "refresh_token_reused")
        }
    }

    /// The answer to a retried rotation: the successor already handed out (if it is still the
    /// family's live token) with a fresh access token; nil when this is a reuse to punish.
    private func answerRetry(of used: RefreshTokenRow, in store: AccountStore, now: Date) async throws -> TokenPair? {
        guard let session = try await store.session(used.sessionID),
              RefreshOutcome.evaluate(usedAt: used.usedAt, expiresAt: used.expiresAt, familyRevokedAt: session.revokedAt,
                                      now: now, retryWindow: RefreshOutcome.retryWindow) == .retryOfRotation,
              let sealed = used.sealedSuccessor, let successor = Self.unseal(sealed, key: sealKey),
              let live = try await store.refreshToken(hash: SecureRandom.sha256Hex(successor)),
              live.usedAt == nil, live.sessionID == used.sessionID, session.expiresAt > now
        else { return nil }
        return try await tokenPair(userID: session.userID, sessionID: session.id, refreshToken: successor, now: now)
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
    package func accessTokenWithoutRotation(_ presented: String, session sessionID: UUID) async throws -> String {
        let now = environment.now()
        guard let token = try await store.refreshToken(hash: SecureRandom.sha256Hex(presented)),
              token.usedAt == nil, let session = try await store.session(token.sessionID), session.revokedAt == nil
        else { throw AppError(.unauthorized, "invalid_refresh_token") }
        guard token.sessionID == sessionID, session.kind == .appWithFixedRefresh else { throw AppError(.forbidden, "refresh_token_mismatch") }
        guard token.expiresAt > now else { throw AppError(.unauthorized, "refresh_token_expired") }
        return try await accessTokens.sign(userID: session.userID, sessionID: sessionID, now: now)
    }

    func revokeSession(_ sessionID: UUID) async throws {
        let now = environment.now()
        try await store.revokeSession(sessionID, at: now)
    }

    /// The user an access token's session names: from memory when remembered (`SessionCache`),
    /// else read (and remembered); nil once revoked, expired or withdrawn.
    func signedInUser(session sessionID: UUID, userID: UUID) async throws -> User? {
        try await Self.signedInUser(session: sessionID, userID: userID, sessions: sessions, store: store, now: environment.now())
    }

    /// Whether a session is still live, for work outside a request: a push goes only to a browser
    /// whose session has not ended (signed out on a shared computer, it hears nothing more).
    package static func sessionIsLive(_ sessionID: UUID, of userID: UUID, in app: Application) async throws -> Bool {
        try await signedInUser(session: sessionID, userID: userID, sessions: app.sessionCache,
                               store: AccountStore(database: app.db, application: app), now: app.accountsEnvironment.now()) != nil
    }

    private static func signedInUser(session sessionID: UUID, userID: UUID, sessions: SessionCache, store: AccountStore, now: Date) async throws -> User? {
        if let user = sessions.user(session: sessionID, userID: userID, now: now) { return user }
        let generation = sessions.generation
        guard let (session, user) = try await store.liveSession(sessionID, of: userID, now: now) else { return nil }
        sessions.remember(session: sessionID, expiresAt: session.expiresAt, user: user, readAt: generation, now: now)
        return user
    }

    private func tokenPair(userID: UUID, sessionID: UUID, refreshToken: String, now: Date) async throws -> TokenPair {
        TokenPair(
            accessToken: try await accessTokens.sign(userID: userID, sessionID: sessionID, now: now),
            refreshToken: refreshToken, expiresIn: Int(accessTokens.lifetime), tokenType: "Bearer"
        )
    }

    // MARK: Browser sessions

    /// Starts a cookie session; returns the cookie value (only its hash is stored).
    func startWebSession(for user: User, userAgent: String?) async throws -> (token: String, expiresAt: Date) {
        let now = environment.now()
        let token = SecureRandom.token()
        let expiresAt = now.addingTimeInterval(settings.refreshTokenTTL)
        let userID = try user.requireID(), agent = userAgent?.truncated(toBytes: 512)
        let seenBefore = try await store.sessionUserAgents(of: userID)
        let session = try await store.startSession(userID: userID, kind: .web, userAgent: agent, expiresAt: expiresAt,
                                                   cookieHash: SecureRandom.sha256Hex(token))
        await tellIfNewDevice(userID: userID, session: session, userAgent: agent, seenBefore: seenBefore)
        return (token, expiresAt)
    }

    /// The live browser session a cookie names, with its user: from memory when a recent page
    /// read it (`SessionCache`, forgotten on logout and withdrawal on every instance), else one
    /// query. A remembered session needs no service (nor its database handle, which costs a page
    /// request more than the lookup): most page requests end at the first lines.
    static func webSession(cookieToken: String, for request: Request) async throws -> (session: UUID, user: User)? {
        let environment = request.application.accountsEnvironment
        let now = environment.now()
        let cookieHash = SecureRandom.sha256Hex(cookieToken)
        if let remembered = environment.sessions.webSession(cookieHash: cookieHash, now: now) { return remembered }
        return try await request.accounts.readWebSession(cookieHash: cookieHash, now: now)
    }

    private func readWebSession(cookieHash: String, now: Date) async throws -> (session: UUID, user: User)? {
        let generation = sessions.generation
        guard let (session, user) = try await store.liveWebSession(cookieHash: cookieHash, now: now) else { return nil }
        sessions.remember(session: session.id, expiresAt: session.expiresAt, user: user, cookieHash: cookieHash, readAt: generation, now: now)
        return (session.id, user)
    }
}
