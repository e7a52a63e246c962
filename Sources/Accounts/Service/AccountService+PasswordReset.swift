package import Fluent
import Messaging
import Metrics
package import Platform
import Vapor

/// "Forgot password": a link by mail, single use, 30 minutes, kept only as a hash.
///
/// A request is answered the same whether or not the address has an account, in the same time:
/// the request itself only checks the address's shape and the network's budget and queues the
/// work (`resetMailKind`); the queue looks the account up, makes the link and sends the mail. The
/// inbox's own budget (`AccountLimits.resetMailsPerInbox`) is spent there too, silently.
extension AccountService {
    /// How long a reset link works.
    package static let passwordResetLifetime: TimeInterval = 30 * 60
    static let resetMailKind = "accounts.password_reset_mail"

    /// What the queue needs to send one reset mail.
    struct ResetMailRequest: Codable {
        let email: String
        /// The language of the page that asked (the account's own setting wins).
        let language: Language
    }

    /// `POST /api/v1/auth/password-reset`: 202 for any well-formed address (422 otherwise); 429
    /// past the network's budget; 503 `mail_unavailable` on a production server without mail.
    package func requestPasswordReset(email rawEmail: String, language: Language) async throws {
        let email = try Self.validEmail(rawEmail)
        guard application.mailDelivery != .none else { throw AppError(.serviceUnavailable, "mail_unavailable") }
        try await limits.passwordResets.reserve(client, code: "too_many_password_resets")
        try await application.workQueue.enqueue(Self.resetMailKind, ResetMailRequest(email: email, language: language), on: database)
        Counter(label: "whatweeat_password_reset_requests_total").increment()
    }

    /// The queue's part: the link, if the address is an account that may sign in, and its mail.
    static func sendResetMail(_ request: ResetMailRequest, app: Application) async throws -> WorkOutcome {
        let limits = app.accountLimits
        guard case .success = try await limits.resetMailsPerInbox.tryReserve(EmailInbox.key(request.email)) else {
            app.logger.info("accounts: a reset link was not sent: the inbox had its hour's links")
            return .done
        }
        let store = AccountStore(database: app.db, application: app)
        // Unknown, suspended, or an app's linked sign-in (no password, an address nobody reads): no mail.
        guard let user = try await store.user(email: request.email), user.suspendedAt == nil,
              !AccountRules.isUnreadableAddress(request.email) else { return .done }
        let link = try await makeResetLink(for: user, store: store, publicURL: app.settings.publicURL, now: app.workQueue.clock())
        let language = user.language ?? request.language
        let translator = app.translator
        let arguments = ["nickname": user.nickname, "link": link, "minutes": String(Int(passwordResetLifetime / 60))]
        try await app.mail.send(MailMessage(to: user.email, subject: translator.text("mail.password_reset.subject", language, [:]),
                                            text: translator.text("mail.password_reset.body", language, arguments)))
        Counter(label: "whatweeat_password_reset_mails_total").increment()
        return .done
    }

    /// A fresh reset link for `user` (earlier unused ones keep working until they expire or one is used).
    static func makeResetLink(for user: User, store: AccountStore, publicURL: String, now: Date) async throws -> String {
        let token = SecureRandom.token()
        try await store.createLink(for: try user.requireID(), purpose: .passwordReset, tokenHash: SecureRandom.sha256Hex(token),
                                   expiresAt: now.addingTimeInterval(passwordResetLifetime), at: now)
        return publicURL + "/reset-password?token=" + token  // no trailing slash (Settings)
    }

    /// Where a reset link stands, for the page that opens it: nil when it can set a password.
    package func resetLinkProblem(_ token: String) async throws -> AppError? {
        let now = environment.now()
        do {
            _ = try await usableLink(token, purpose: .passwordReset, now: now)
            return nil
        } catch let error as AppError {
            return error
        }
    }

    /// `POST /api/v1/auth/password-reset/confirm`: the new password (the usual rules) by a link
    /// that works; every session of the account ends (tokens, cookies, live sockets, on every
    /// instance) and the login failures of its address are forgotten. The account, for the caller
    /// to sign in on this device.
    package func confirmPasswordReset(token: String, password: String) async throws -> User {
        let now = environment.now()
        let (link, user) = try await usableLink(token, purpose: .passwordReset, now: now)
        try Self.requireAcceptablePassword(password)
        let hash = try await passwords.hash(password)
        guard try await store.resetPassword(of: user, toHash: hash, usingLink: link.id, at: now) != nil else {
            throw AppError(.gone, "reset_link_used")
        }
        try await store.forgetLoginFailures(email: user.email)
        Counter(label: "whatweeat_password_resets_total").increment()
        return user
    }

    // MARK: Operators

    /// An operator's reset link for `user` — mailed to them (the console's "send a reset link")
    /// or handed to the operator to pass on (`whatweeat user reset-password`) — audited. A
    /// suspended account gets none (403 `account_suspended`: lift the suspension first); mail on a
    /// production server without it is 503 `mail_unavailable`. The link.
    @discardableResult
    package func operatorResetLink(for user: User, by admin: UUID?, mailing: Bool) async throws -> String {
        let now = environment.now()
        guard user.suspendedAt == nil else {
            throw AppError(.forbidden, "account_suspended", arguments: ["reason": user.suspensionReason ?? ""])
        }
        if mailing, application.mailDelivery == .none { throw AppError(.serviceUnavailable, "mail_unavailable") }
        let link = try await Self.makeResetLink(for: user, store: store, publicURL: settings.publicURL, now: now)
        try await AuditLog(database: database).record(AuditEntry(
            actorID: admin, action: "accounts.password.reset_link", subjectType: "account", subjectID: try user.requireID().uuidString,
            before: nil, after: ["sent": mailing ? "mail" : "operator"], at: now))
        if mailing {
            try await mail(to: user.email, user: user, kind: "password_reset",
                           arguments: ["link": link, "minutes": String(Int(Self.passwordResetLifetime / 60))])
        }
        return link
    }

    /// An operator sets the password (the usual rules; `whatweeat user reset-password --password`):
    /// every session of the account ends, audited in the same transaction.
    package func operatorSetPassword(of user: User, to password: String, by admin: UUID?) async throws {
        let now = environment.now()
        guard user.suspendedAt == nil else {
            throw AppError(.forbidden, "account_suspended", arguments: ["reason": user.suspensionReason ?? ""])
        }
        try Self.requireAcceptablePassword(password)
        try await store.changePassword(of: user, toHash: try await passwords.hash(password), keeping: nil, at: now, audit: AuditEntry(
            actorID: admin, action: "accounts.password.set", subjectType: "account", subjectID: try user.requireID().uuidString,
            before: nil, after: ["sessions": "ended"], at: now))
        try await store.forgetLoginFailures(email: user.email)
    }

    /// Registers the queue's handler (at start-up).
    static func registerResetMail(in app: Application) {
        app.workQueue.register(resetMailKind) { app, item in
            do {
                return try await sendResetMail(try item.decode(ResetMailRequest.self), app: app)
            } catch {
                return .failed(reason: "\(error)", after: 60)
            }
        }
    }
}
