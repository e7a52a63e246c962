import Fluent
import SQLKit
import Vapor

/// A fresh access token and the refresh token that replaces it.
public struct TokenPair: Content, Equatable {
    public let accessToken: String
    public let refreshToken: String
    /// Seconds until the access token expires.
    public let expiresIn: Int
    public let tokenType: String
}

/// Everything the API and the web pages do with accounts, in one place, so both follow the same
/// rules. Handlers validate the shape of a request; this checks the rules and writes.
struct AccountService {
    let database: any Database
    let settings: Settings
    let accessTokens: AccessTokens
    let passwords: PasswordHasher
    let files: any FileStorage

    init(request: Request) {
        self.database = request.db
        self.settings = request.application.settings
        self.accessTokens = request.application.accessTokens
        self.passwords = request.application.passwordHasher
        self.files = request.application.files
    }

    // MARK: Sign up and availability

    func emailAvailable(_ rawEmail: String) async throws -> Bool {
        let email = try Self.validEmail(rawEmail)
        return try await User.query(on: database).filter(\.$email == email).count() == 0
    }

    func signUp(email rawEmail: String, password: String, nickname rawNickname: String, role: Role = .user) async throws -> User {
        let email = try Self.validEmail(rawEmail)
        if let violation = AccountRules.passwordViolation(password) {
            throw AppError.invalid(violation, ["min": String(AccountRules.passwordMinLength)])
        }
        let nickname = try Self.validNickname(rawNickname)
        try await ensureAvailable(email: email, nickname: nickname, exceptUser: nil)

        let user = User(email: email, passwordHash: try await passwords.hash(password), nickname: nickname, role: role)
        do {
            try await user.create(on: database)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            // Someone took the email or nickname between our check and the insert.
            try await ensureAvailable(email: email, nickname: nickname, exceptUser: nil)
            throw AppError.conflict("email_taken")
        }
        return user
    }

    // MARK: Log in

    /// Checks the password, with the per-email failure throttle. Unknown emails cost the same
    /// time as wrong passwords and count as failures, so neither reveals whether an account exists.
    func authenticate(email rawEmail: String, password: String, now: Date = Date()) async throws -> User {
        let email = AccountRules.normalizeEmail(rawEmail)
        let throttle = LoginThrottle(maxFailures: settings.maxLoginFailures, window: settings.loginFailureWindow)
        let windowStart = now.addingTimeInterval(-settings.loginFailureWindow)
        let failures = try await LoginFailure.query(on: database)
            .filter(\.$email == email).filter(\.$failedAt > windowStart).all().map(\.failedAt)
        if let wait = throttle.retryAfter(failures: failures, now: now) {
            throw AppError(.tooManyRequests, "too_many_login_attempts", arguments: ["minutes": String((wait + 59) / 60)],
                           headers: ["Retry-After": String(wait)])
        }

        let user = try await User.query(on: database).filter(\.$email == email).first()
        let matches = try await passwords.verify(password, hash: user?.passwordHash)
        guard let user, matches else {
            try await LoginFailure(email: email, failedAt: now).create(on: database)
            try await LoginFailure.query(on: database).filter(\.$email == email).filter(\.$failedAt <= windowStart).delete()
            throw AppError(.unauthorized, "invalid_credentials")
        }
        try await LoginFailure.query(on: database).filter(\.$email == email).delete()
        return user
    }

    // MARK: API sessions (refresh-token families)

    func startAPISession(for user: User, userAgent: String?, now: Date = Date()) async throws -> TokenPair {
        let userID = try user.requireID()
        let session = AuthSession(userID: userID, kind: .api, userAgent: userAgent, expiresAt: now.addingTimeInterval(settings.refreshTokenTTL))
        let refresh = SecureRandom.token()
        try await database.transaction { transaction in
            try await session.create(on: transaction)
            try await RefreshToken(sessionID: try session.requireID(), tokenHash: SecureRandom.sha256Hex(refresh),
                                   expiresAt: now.addingTimeInterval(settings.refreshTokenTTL)).create(on: transaction)
        }
        return try await tokenPair(userID: userID, sessionID: try session.requireID(), refreshToken: refresh, now: now)
    }

    /// Rotates a refresh token. A token can be used once; presenting it again revokes its whole
    /// family, so a stolen copy and the real one cannot both live on.
    func refresh(_ presented: String, now: Date = Date()) async throws -> TokenPair {
        let hash = SecureRandom.sha256Hex(presented)
        struct Claimed: Decodable { let session_id: UUID; let expires_at: Date }

        enum Result { case rotated(TokenPair), failed(AppError) }
        let result: Result = try await database.transaction { transaction in
            // Both drivers (SQLite, PostgreSQL) are SQL databases.
            let sql = transaction as! any SQLDatabase
            // Claim the token with one conditional write; of two racing requests only one gets the row.
            let claimed = try await sql.update(RefreshToken.schema)
                .set("used_at", to: now)
                .where("token_hash", .equal, hash)
                .where("used_at", .is, SQLLiteral.null)
                .returning("session_id", "expires_at")
                .first(decoding: Claimed.self)
            guard let claimed else {
                guard let known = try await RefreshToken.query(on: transaction).filter(\.$tokenHash == hash).first() else {
                    return .failed(AppError(.unauthorized, "invalid_refresh_token"))
                }
                try await AuthSession.query(on: transaction).filter(\.$id == known.$session.id)
                    .filter(\.$revokedAt == nil).set(\.$revokedAt, to: now).update()
                return .failed(AppError(.unauthorized, "refresh_token_reused"))
            }
            guard let session = try await AuthSession.find(claimed.session_id, on: transaction) else {
                return .failed(AppError(.unauthorized, "invalid_refresh_token"))
            }
            switch RefreshOutcome.evaluate(usedAt: nil, expiresAt: claimed.expires_at, familyRevokedAt: session.revokedAt, now: now) {
            case .revoked, .reuseDetected:
                return .failed(AppError(.unauthorized, "invalid_refresh_token"))
            case .expired:
                return .failed(AppError(.unauthorized, "refresh_token_expired"))
            case .rotate:
                let next = SecureRandom.token()
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
        }
    }

    func revokeSession(_ sessionID: UUID, now: Date = Date()) async throws {
        try await AuthSession.query(on: database).filter(\.$id == sessionID)
            .filter(\.$revokedAt == nil).set(\.$revokedAt, to: now).update()
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
                              userAgent: userAgent, expiresAt: expiresAt).create(on: database)
        return (token, expiresAt)
    }

    func webSession(cookieToken: String, now: Date = Date()) async throws -> (AuthSession, User)? {
        guard let session = try await AuthSession.query(on: database)
            .join(User.self, on: \AuthSession.$user.$id == \User.$id)
            .filter(\.$webTokenHash == SecureRandom.sha256Hex(cookieToken))
            .filter(\.$revokedAt == nil).filter(\.$expiresAt > now)
            .first()
        else { return nil }
        return (session, try session.joined(User.self))
    }

    // MARK: Profile

    func updateProfile(_ user: User, nickname rawNickname: String?, language: Language?) async throws -> User {
        if let rawNickname {
            let nickname = try Self.validNickname(rawNickname)
            if nickname != user.nickname {
                try await ensureAvailable(email: nil, nickname: nickname, exceptUser: user.id)
                user.nickname = nickname
                user.nicknameKey = AccountRules.nicknameKey(nickname)
            }
        }
        if let language { user.language = language }
        do {
            try await user.save(on: database)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw AppError.conflict("nickname_taken")
        }
        return user
    }

    static let maxProfileImageBytes = 5 * 1024 * 1024

    func setProfileImage(_ user: User, data: Data) async throws -> User {
        guard !data.isEmpty else { throw AppError.badRequest("empty_upload") }
        guard data.count <= Self.maxProfileImageBytes else {
            throw AppError(.payloadTooLarge, "image_too_large", arguments: ["max": "5 MB"])
        }
        guard let type = ImageType.sniff(data) else { throw AppError(.unsupportedMediaType, "unsupported_image_type") }
        let previous = user.profileImageKey
        user.profileImageKey = try await files.save(data, as: type)
        try await user.save(on: database)
        try await deleteFileIfUnused(previous)
        return user
    }

    func removeProfileImage(_ user: User) async throws -> User {
        let previous = user.profileImageKey
        user.profileImageKey = nil
        try await user.save(on: database)
        try await deleteFileIfUnused(previous)
        return user
    }

    /// Withdraws the account: the user row goes, and with it (by cascade) every session and
    /// refresh token, so all of its tokens stop working at once.
    func withdraw(_ user: User, password: String) async throws {
        guard try await passwords.verify(password, hash: user.passwordHash) else {
            throw AppError(.forbidden, "wrong_password")
        }
        let imageKey = user.profileImageKey
        let email = user.email
        try await database.transaction { transaction in
            try await LoginFailure.query(on: transaction).filter(\.$email == email).delete()
            try await user.delete(on: transaction)
        }
        try await deleteFileIfUnused(imageKey)
    }

    // MARK: Helpers

    private func deleteFileIfUnused(_ key: String?) async throws {
        guard let key, try await User.query(on: database).filter(\.$profileImageKey == key).count() == 0 else { return }
        try await files.delete(key: key)
    }

    private func ensureAvailable(email: String?, nickname: String, exceptUser: UUID?) async throws {
        if let email, try await User.query(on: database).filter(\.$email == email).count() > 0 {
            throw AppError.conflict("email_taken")
        }
        var query = User.query(on: database).filter(\.$nicknameKey == AccountRules.nicknameKey(nickname))
        if let exceptUser { query = query.filter(\.$id != exceptUser) }
        if try await query.count() > 0 { throw AppError.conflict("nickname_taken") }
    }

    static func validEmail(_ raw: String) throws -> String {
        let email = AccountRules.normalizeEmail(raw)
        if let violation = AccountRules.emailViolation(email) { throw AppError.invalid(violation) }
        return email
    }

    static func validNickname(_ raw: String) throws -> String {
        let nickname = AccountRules.normalizeNickname(raw)
        if let violation = AccountRules.nicknameViolation(nickname) {
            throw AppError.invalid(violation, ["min": "\(AccountRules.nicknameLength.lowerBound)", "max": "\(AccountRules.nicknameLength.upperBound)"])
        }
        return nickname
    }
}

/// bcrypt on the thread pool, so hashing never blocks an event loop.
public struct PasswordHasher: Sendable {
    let cost: Int
    let threadPool: NIOThreadPool
    /// Compared against when the email is unknown, so that answer takes as long as a wrong password.
    let decoyHash: String

    public init(cost: Int, threadPool: NIOThreadPool) throws {
        self.cost = cost
        self.threadPool = threadPool
        self.decoyHash = try Bcrypt.hash(SecureRandom.token(), cost: cost)
    }

    func hash(_ password: String) async throws -> String {
        try await threadPool.runIfActive { [cost] in try Bcrypt.hash(password, cost: cost) }
    }

    /// False when `hash` is nil, after spending the same time as a real check.
    func verify(_ password: String, hash: String?) async throws -> Bool {
        let target = hash ?? decoyHash
        let matches = try await threadPool.runIfActive { try Bcrypt.verify(password, created: target) }
        return matches && hash != nil
    }
}

extension Application {
    private struct PasswordHasherKey: StorageKey { typealias Value = PasswordHasher }

    public var passwordHasher: PasswordHasher {
        get { configured(PasswordHasherKey.self) }
        set { storage[PasswordHasherKey.self] = newValue }
    }
}

extension Request {
    var accounts: AccountService { AccountService(request: self) }
}
