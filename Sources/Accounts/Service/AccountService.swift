package import Fluent
package import Media
import NIOConcurrencyHelpers
package import Platform
import SQLKit
public import Vapor

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
package struct AccountService {
    package let database: any Database
    /// Accounts, sign-in failures, sessions and refresh tokens: every statement about them.
    let store: AccountStore
    package let settings: Settings
    package let accessTokens: AccessTokens
    package let files: any FileStorage
    package let quota: StorageQuota
    package let fileReferences: FileReferences
    package let removals: AccountRemovals
    let sealKey: SymmetricKey
    /// Who is asking (its network, as budgets count it), and the budgets that bound what one
    /// network can make us do.
    package let client: ClientNetwork
    /// The clock, the hasher, the budgets and the memories (`AccountsEnvironment`): every act reads `now` once.
    let environment: AccountsEnvironment
    var passwords: BcryptHasher { environment.passwords }
    package var limits: AccountLimits { environment.limits }
    /// Remembered sessions; every change that ends a session or alters an account forgets it.
    package var sessions: SessionCache { environment.sessions }
    package var events: any EventBus { environment.events }
    package let application: Application

    package init(request: Request) {
        self.application = request.application
        // One handle: `request.db` makes a new one on every read, and every signed-in page asks here.
        let database = request.db
        self.database = database
        self.store = AccountStore(database: database, application: request.application)
        self.settings = request.application.settings
        self.accessTokens = request.application.accessTokens
        self.files = request.application.files
        self.quota = request.application.storageQuota
        self.fileReferences = request.application.fileReferences
        self.removals = request.application.accountRemovals
        self.sealKey = request.application.keys.refreshSuccessor
        self.client = request.clientNetwork
        self.environment = request.application.accountsEnvironment
    }

    // MARK: Sign up and availability

    /// Throttled per network: it answers whether an account exists.
    package func emailAvailable(_ rawEmail: String) async throws -> Bool {
        let email = try Self.validEmail(rawEmail)
        try await limits.emailLookups.reserve(client)
        return try await !store.emailTaken(email)
    }

    /// `minimumPasswordLength` is ours unless a shipped app's route keeps its original server's.
    package func signUp(email rawEmail: String, password: String, nickname rawNickname: String, role: Role = .user,
                        minimumPasswordLength: Int = AccountRules.passwordMinLength) async throws -> User {
        let email = try Self.validEmail(rawEmail)
        try Self.requireAcceptablePassword(password, minimumLength: minimumPasswordLength)
        let nickname = try Self.validNickname(rawNickname)
        try await ensureAvailable(email: email, nickname: nickname, exceptUser: nil)
        // A sign-up costs a bcrypt hash: one network gets a budget of them (logins have their own).
        try await limits.signUps.reserve(client)

        let user = User(email: email, passwordHash: try await passwords.hash(password), nickname: nickname, role: role)
        do {
            try await store.create(user)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            // Someone took the email or nickname between our check and the insert.
            try await ensureAvailable(email: email, nickname: nickname, exceptUser: nil)
            throw AppError.conflict("email_taken")
        }
        return user
    }

    /// An account for someone who signs in elsewhere (a 새싹 스터디 app's Firebase sign-in): the
    /// nickname checked as for any sign-up, an address under `.invalid` that no mail reaches, and
    /// the hash of a password nobody knows, so the account cannot log in by password. Not saved:
    /// the caller saves it with what links it, in one transaction.
    package func accountWithoutPassword(nickname rawNickname: String, emailKey: String) async throws -> User {
        let nickname = try Self.validNickname(rawNickname)
        try await ensureAvailable(email: nil, nickname: nickname, exceptUser: nil)
        try await limits.signUps.reserve(client)
        let email = "app-" + String(SecureRandom.sha256Hex(emailKey).prefix(32)) + "@linked-sign-in.invalid"
        return User(email: email, passwordHash: try await passwords.hash(SecureRandom.token()), nickname: nickname)
    }

    // MARK: Log in

    /// Checks the password, with the per-email failure throttle and the per-network login budget.
    /// Unknown emails cost the same time as wrong passwords and count as failures, so neither
    /// reveals whether an account exists.
    ///
    /// The attempt is written down as a failure *before* bcrypt runs and the window is counted
    /// after, so parallel guesses each see the ones before them: at most `maxLoginFailures`
    /// reach bcrypt in a window, however many arrive at once. A refused attempt takes its row
    /// back; a wrong password keeps it; the right one clears the email's failures.
    package func authenticate(email rawEmail: String, password: String) async throws -> User {
        let now = environment.now()
        let email = AccountRules.normalizeEmail(rawEmail)
        try await limits.logins.reserve(client)
        let windowStart = now.addingTimeInterval(-settings.loginFailureWindow)
        let attempt = try await store.recordLoginAttempt(email: email, at: now)
        let recent = try await store.loginFailures(email: email, after: windowStart)
        if recent.count > settings.maxLoginFailures {
            try await store.deleteLoginAttempt(attempt)
            let throttle = LoginThrottle(maxFailures: settings.maxLoginFailures, window: settings.loginFailureWindow)
            let others = recent.filter { $0.id != attempt }.map(\.failedAt)
            let wait = throttle.retryAfter(failures: others, now: now) ?? 1
            throw AppError(.tooManyRequests, "too_many_login_attempts", arguments: ["minutes": String((wait + 59) / 60)],
                           headers: ["Retry-After": String(wait)])
        }

        let user = try await store.user(email: email)
        let matches = try await passwords.verify(password, hash: user?.passwordHash)
        guard let user, matches else {
            try await store.forgetLoginFailures(email: email, upTo: windowStart)
            throw AppError(.unauthorized, "invalid_credentials")
        }
        try await store.forgetLoginFailures(email: email)
        // The right password, so saying why is no hint to a stranger.
        if user.suspendedAt != nil {
            throw AppError(.forbidden, "account_suspended", arguments: ["reason": user.suspensionReason ?? ""])
        }
        return user
    }

    // MARK: Profile

    package func updateProfile(_ user: User, nickname rawNickname: String?, language: Language?) async throws -> User {
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
            try await store.save(user)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw AppError.conflict("nickname_taken")
        }
        return user
    }

    static let maxProfileImageBytes = 5 * 1024 * 1024

    func setProfileImage(_ user: User, data: Data, from network: String) async throws -> User {
        guard !data.isEmpty else { throw AppError.badRequest("empty_upload") }
        guard data.count <= Self.maxProfileImageBytes else {
            throw AppError(.payloadTooLarge, "image_too_large", arguments: ["max": "5 MB"])
        }
        // Pictures lose their EXIF/XMP (a phone's GPS position) and comments before they are stored.
        let image: CleanImage
        do { image = try ImageCleaner.clean(data, allowing: Set(ImageType.allCases)) } catch { throw error.appError() }
        let stored = image.data, type = image.type
        let userID = try user.requireID()
        // The new picture counts against the account's storage from now; the old one stops counting.
        let uploader = StorageQuota.Uploader(account: userID, accountCreatedAt: user.createdAt, network: network)
        try await quota.reserve(stored.count, by: uploader, on: database, now: environment.now())
        let previous = user.profileImageKey
        do {
            user.profileImageKey = try await files.save(stored, as: type)
            try await store.save(user)
        } catch {
            await quota.giveBack(stored.count, by: uploader, on: database, now: environment.now())
            throw error
        }
        await quota.release(await files.byteCount(of: previous), for: userID, on: database)
        try await deleteFileIfUnused(previous)
        return user
    }

    func removeProfileImage(_ user: User) async throws -> User {
        let previous = user.profileImageKey
        user.profileImageKey = nil
        try await store.save(user)
        await quota.release(await files.byteCount(of: previous), for: try user.requireID(), on: database)
        try await deleteFileIfUnused(previous)
        return user
    }

    /// Changes the password after checking the current one (403 `wrong_password`; each check is a
    /// bcrypt, so it spends the network's login budget). Every other session of the account ends —
    /// its refresh tokens, its access tokens and its live sockets, on every instance — and
    /// `keeping` (the session asking) stays signed in.
    func changePassword(_ user: User, current: String, new: String, keeping session: UUID?) async throws {
        let now = environment.now()
        try Self.requireAcceptablePassword(new)
        try await limits.logins.reserve(client)
        guard try await passwords.verify(current, hash: user.passwordHash) else { throw AppError(.forbidden, "wrong_password") }
        try await store.changePassword(of: user, toHash: try await passwords.hash(new), keeping: session, at: now)
    }

    /// Withdraws the account: the user row goes, and with it (by cascade) every session and
    /// refresh token, so all of its tokens stop working at once. Other features settle what they
    /// keep about the account in the same transaction (`AccountRemovals`).
    package func withdraw(_ user: User, password: String) async throws {
        guard try await passwords.verify(password, hash: user.passwordHash) else {
            throw AppError(.forbidden, "wrong_password")
        }
        try await remove(user)
    }

    /// Deletes an account and everything of it, each feature's part first (`AccountRemovals`).
    /// The caller has made sure the owner asked for it.
    /// `audit`: an operator's entry, written in the deletion's transaction.
    package func remove(_ user: User, audit: AuditEntry? = nil) async throws {
        let imageKey = user.profileImageKey
        let userID = try user.requireID()
        let handlers = removals.all
        try await store.remove(user, settling: handlers, audit: audit)
        for handler in handlers { try await handler.afterDelete(userID, database) }
        try await quota.forget(userID, on: database)
        try await deleteFileIfUnused(imageKey)
    }

    // MARK: Helpers

    private func deleteFileIfUnused(_ key: String?) async throws {
        try await files.deleteIfUnused(key, on: database, references: fileReferences)
    }

    /// Every reason a sign-up would be refused, field by field (`email`, `nickname`, `password`),
    /// so the sign-up page can say them all at once rather than one per try. Empty: `signUp` may go.
    package func signUpProblems(email rawEmail: String, password: String, nickname rawNickname: String) async throws -> [String: AppError] {
        var problems: [String: AppError] = [:]
        do {
            let email = try Self.validEmail(rawEmail)
            if try await store.emailTaken(email) { problems["email"] = AppError.conflict("email_taken") }
        } catch let error as AppError { problems["email"] = error }
        do {
            let nickname = try Self.validNickname(rawNickname)
            if try await store.nicknameTaken(key: AccountRules.nicknameKey(nickname), except: nil) { problems["nickname"] = AppError.conflict("nickname_taken") }
        } catch let error as AppError { problems["nickname"] = error }
        do { try Self.requireAcceptablePassword(password) } catch let error as AppError { problems["password"] = error }
        return problems
    }

    private func ensureAvailable(email: String?, nickname: String, exceptUser: UUID?) async throws {
        if let email, try await store.emailTaken(email) { throw AppError.conflict("email_taken") }
        if try await store.nicknameTaken(key: AccountRules.nicknameKey(nickname), except: exceptUser) { throw AppError.conflict("nickname_taken") }
    }

    /// 422 with the rule a new password breaks (`AccountRules.passwordViolation`), the same wherever one is chosen.
    static func requireAcceptablePassword(_ password: String, minimumLength: Int = AccountRules.passwordMinLength) throws {
        if let violation = AccountRules.passwordViolation(password, minimumLength: minimumLength) {
            throw AppError.invalid(violation, ["min": String(minimumLength)])
        }
    }

    static func validEmail(_ raw: String) throws -> String {
        let email = AccountRules.normalizeEmail(raw)
        // The limit openapi.yaml states is on the address as sent, before trimming.
        guard raw.unicodeScalars.count <= AccountRules.emailMaxLength else { throw AppError.invalid("invalid_email") }
        if let violation = AccountRules.emailViolation(email) { throw AppError.invalid(violation) }
        return email
    }

    static func validNickname(_ raw: String) throws -> String {
        let nickname = AccountRules.normalizeNickname(raw)
        // openapi.yaml's maxLength (code points, as sent) is the byte limit: an emoji counts as one
        // character but is several code points (👩‍🍳 three).
        let violation = raw.unicodeScalars.count > AccountRules.nicknameMaxBytes ? "invalid_nickname_length" : AccountRules.nicknameViolation(nickname)
        if let violation {
            throw AppError.invalid(violation, ["min": "\(AccountRules.nicknameLength.lowerBound)", "max": "\(AccountRules.nicknameLength.upperBound)"])
        }
        return nickname
    }
}

/// The per-network budgets of the account routes (`NetworkBudget`: an IPv4 address or an IPv6
/// /64, with a /48 budget ten times larger; shared by the instances on PostgreSQL). Sign-ups and
/// logins each cost a bcrypt and have a budget each, `AUTH_ATTEMPTS_PER_MINUTE` (60): a class of
/// 40 behind one school NAT signs up in the same minute, and then logs in, without a refusal.
package struct AccountLimits: Sendable {
    let signUps: NetworkBudget
    package let logins: NetworkBudget
    /// `email-available` look-ups (the LookForRealBurger app asks once before each join).
    let emailLookups: NetworkBudget
    /// Password-reset requests per network (answered 429 beyond it: that says nothing of accounts).
    let passwordResets: NetworkBudget
    /// Reset mails per inbox (`EmailInbox.key`): beyond it a request is answered as
    /// always and no mail goes, so nobody can fill a stranger's inbox.
    let resetMailsPerInbox: RateLimiter

    package init(settings: Settings, shared: SharedBudgets?) {
        let perMinute = settings.limits.passwordChecksPerMinute
        signUps = NetworkBudget(name: "sign_ups", limit: perMinute, window: 60, shared: shared)
        logins = NetworkBudget(name: "logins", limit: perMinute, window: 60, shared: shared)
        emailLookups = NetworkBudget(name: "email_lookups", limit: perMinute, window: 60, shared: shared)
        passwordResets = NetworkBudget(name: "password_resets", limit: settings.limits.passwordResetsPerHour, window: 3600, shared: shared)
        resetMailsPerInbox = RateLimiter(name: "password_reset_mails", limit: 3, window: 3600, shared: shared)
    }
}

extension Request {
    package var accounts: AccountService { AccountService(request: self) }
}
