import Fluent
import Metrics
package import Platform
package import Vapor

/// What proves a person by a code to their phone, for "forgot password". Accounts owns the
/// routes, the network's budget, the queue and the new password; the service that verifies
/// phones (mates: a profile's verified number, its codes table) owns the codes, and registers
/// itself as `Application.passwordResetCodes` at start-up.
package protocol PasswordResetCodes: Sendable {
    /// Whether a code can reach anyone now (an SMS provider is set, or a development server's log).
    func isOffered(_ app: Application) -> Bool
    /// How long a code works, in minutes (for the page that asks for it).
    var codeMinutes: Int { get }
    /// The number as it is kept; 422 `invalid_phone` or `phone_country_unsupported`.
    func normalizedPhone(_ raw: String, app: Application) throws -> String
    /// The queue's part: a code to `phone` if it is the verified number of an account that may
    /// sign in, within that number's limits (kept silently: the asker has had the answer).
    func sendCode(to phone: String, language: Language, clientKey: String, app: Application) async throws
    /// Uses the newest reset code sent to `phone`: the account it was sent for. Every failure is
    /// the same 422 `reset_code_invalid` (wrong, expired, tried five times, a number with no
    /// account), so a guess learns nothing about who has an account. By the codes' own clock.
    func claimCode(_ code: String, phone: String, app: Application) async throws -> UUID
}

/// "Forgot password" by a code to the phone a person verified for mates, where an SMS provider
/// is set: the same shape as the mailed link (`AccountService+PasswordReset`). The request is
/// answered alike for every well-formed number and the queue does the looking up
/// (`phoneResetKind`); the code lives 5 minutes and allows five tries.
extension AccountService {
    static let phoneResetKind = "accounts.password_reset_code"

    /// What the queue needs to send one reset code.
    struct PhoneResetRequest: Codable {
        let phone: String
        let language: Language
        /// The asking network, kept with the code.
        let client: String
    }

    /// `POST /api/v1/auth/password-reset/phone`: 202 for any well-formed number (422 otherwise);
    /// 429 past the network's budget (shared with the mailed links); 503 `sms_unavailable` where
    /// no code can reach a phone.
    package func requestPhoneReset(phone raw: String, language: Language) async throws {
        let codes = try offeredResetCodes()
        let phone = try codes.normalizedPhone(raw, app: application)
        try await limits.passwordResets.reserve(client, code: "too_many_password_resets")
        try await application.workQueue.enqueue(Self.phoneResetKind, PhoneResetRequest(phone: phone, language: language, client: client.key),
                                                on: database)
        Counter(label: "whatweeat_password_reset_requests_total").increment()
    }

    /// `POST /api/v1/auth/password-reset/phone/confirm`: the code and the new password (checked
    /// first, so a weak one costs no try); every session of the account ends and its login
    /// failures are forgotten, as with a link. The account, for the caller to sign in.
    package func confirmPhoneReset(phone raw: String, code: String, password: String) async throws -> User {
        let now = environment.now()
        let codes = try offeredResetCodes()
        let phone = try codes.normalizedPhone(raw, app: application)
        try Self.requireAcceptablePassword(password)
        // A guess at a six-digit code is a guess at a password: the network's sign-in budget counts it.
        try await limits.logins.reserve(client)
        let userID = try await codes.claimCode(code, phone: phone, app: application)
        guard let user = try await store.user(userID) else { throw AppError.invalid("reset_code_invalid") }
        guard user.suspendedAt == nil else {
            throw AppError(.forbidden, "account_suspended", arguments: ["reason": user.suspensionReason ?? ""])
        }
        try await store.changePassword(of: user, toHash: try await passwords.hash(password), keeping: nil, at: now)
        try await store.forgetLoginFailures(email: user.email)
        Counter(label: "whatweeat_password_resets_total").increment()
        return user
    }

    /// How long a reset code works, in minutes.
    package static func phoneResetCodeMinutes(_ app: Application) -> Int {
        app.passwordResetCodes?.codeMinutes ?? 5
    }

    /// Whether "forgot password" offers a code by phone on this server now.
    package static func offersPhoneReset(_ app: Application) -> Bool {
        app.passwordResetCodes?.isOffered(app) ?? false
    }

    private func offeredResetCodes() throws -> any PasswordResetCodes {
        guard let codes = application.passwordResetCodes, codes.isOffered(application) else {
            throw AppError(.serviceUnavailable, "sms_unavailable")
        }
        return codes
    }

    /// Registers the queue's handler (at start-up).
    static func registerResetCodes(in app: Application) {
        app.workQueue.register(phoneResetKind) { app, item in
            do {
                let request = try item.decode(PhoneResetRequest.self)
                guard let codes = app.passwordResetCodes else { return .done }
                try await codes.sendCode(to: request.phone, language: request.language, clientKey: request.client, app: app)
                return .done
            } catch {
                return .failed(reason: "\(error)", after: 30)
            }
        }
    }
}

extension Application {
    private struct PasswordResetCodesKey: StorageKey { typealias Value = any PasswordResetCodes }

    /// Set by the service that verifies phones (mates); nil where none does.
    package var passwordResetCodes: (any PasswordResetCodes)? {
        get { storage[PasswordResetCodesKey.self] }
        set { storage[PasswordResetCodesKey.self] = newValue }
    }
}
