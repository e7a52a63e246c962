import Fluent
import Messaging
import Metrics
package import Platform
import Vapor

/// A new email address: asked for with the password, confirmed from the new inbox (a link, a
/// day), told to the old inbox with a link that puts the old address back for seven days — and
/// ends every session, since whoever changed it may have had the password.
extension AccountService {
    static let emailChangeLifetime: TimeInterval = 24 * 3600
    static let emailUndoLifetime: TimeInterval = 7 * 24 * 3600

    /// `POST /api/v1/me/email`: checks the password (a bcrypt: the network's login budget) and the
    /// address (422, 409 `email_taken` or `same_email`), then mails the new address its link.
    /// 503 `mail_unavailable` where no mail goes; 429 past the network's budget. The address, normalized.
    package func requestEmailChange(_ user: User, to rawEmail: String, password: String) async throws -> String {
        let now = environment.now()
        let email = try Self.validEmail(rawEmail)
        guard email != user.email else { throw AppError.conflict("same_email") }
        guard application.mailDelivery != .none else { throw AppError(.serviceUnavailable, "mail_unavailable") }
        try await limits.logins.reserve(client)
        guard try await passwords.verify(password, hash: user.passwordHash) else { throw AppError(.forbidden, "wrong_password") }
        try await limits.passwordResets.reserve(client, code: "too_many_password_resets")
        guard try await !store.emailTaken(email) else { throw AppError.conflict("email_taken") }
        guard case .success = try await limits.resetMailsPerInbox.tryReserve(EmailInbox.key(email)) else {
            throw AppError(.tooManyRequests, "too_many_password_resets", arguments: ["minutes": "60"], headers: ["Retry-After": "3600"])
        }
        let token = SecureRandom.token()
        try await store.createLink(for: try user.requireID(), purpose: .emailChange, tokenHash: SecureRandom.sha256Hex(token),
                                   expiresAt: now.addingTimeInterval(Self.emailChangeLifetime), email: email, at: now)
        let link = settings.publicURL + "/confirm-email?token=" + token
        try await mail(to: email, user: user, kind: "email_change", arguments: ["link": link, "email": email])
        return email
    }

    /// Following the new inbox's link: the account's address becomes the new one; the old inbox is
    /// told, with its undo link. 404/410 as reset links, 409 `email_taken` if someone took it meanwhile.
    package func confirmEmailChange(token: String) async throws -> User {
        let now = environment.now()
        let (link, user) = try await usableLink(token, purpose: .emailChange, now: now)
        guard let email = link.email else { throw AppError.notFound("reset_link_invalid") }
        let old = user.email
        let undoToken = SecureRandom.token()
        let undo = AccountStore.LinkRow(id: UUID(), userID: link.userID, purpose: .emailUndo, tokenHash: SecureRandom.sha256Hex(undoToken),
                                        expiresAt: now.addingTimeInterval(Self.emailUndoLifetime), usedAt: nil, createdAt: now, email: old)
        guard try await store.changeEmail(of: user, to: email, usingLink: link.id, undo: undo, at: now) else {
            throw AppError(.gone, "reset_link_used")
        }
        Counter(label: "whatweeat_email_changes_total").increment()
        do {
            try await mail(to: old, user: user, kind: "email_changed",
                           arguments: ["link": settings.publicURL + "/undo-email?token=" + undoToken, "email": email])
        } catch {
            // The change stands; the old inbox was not told (logged for the operator).
            application.logger.warning("accounts: the old address was not told of its change: \(error)")
        }
        return user
    }

    /// Following the old inbox's undo link (no sign-in needed: whoever changed it may hold the
    /// account): the old address is back and every session ends.
    package func undoEmailChange(token: String) async throws -> User {
        let now = environment.now()
        let (link, user) = try await usableLink(token, purpose: .emailUndo, now: now)
        guard let email = link.email else { throw AppError.notFound("reset_link_invalid") }
        guard try await store.undoEmailChange(of: user, to: email, usingLink: link.id, at: now) != nil else {
            throw AppError(.gone, "reset_link_used")
        }
        Counter(label: "whatweeat_email_changes_undone_total").increment()
        return user
    }

    /// What a link's page says before anything is done: its address, or why it cannot be used.
    package func emailLinkState(_ token: String, undo: Bool) async throws -> Result<String, AppError> {
        let now = environment.now()
        do {
            let (link, _) = try await usableLink(token, purpose: undo ? .emailUndo : .emailChange, now: now)
            return .success(link.email ?? "")
        } catch let error as AppError {
            return .failure(error)
        }
    }

    /// The link `token` names with its account, if it is of `purpose` and can be used: 404
    /// `reset_link_invalid`, 410 `reset_link_used` / `reset_link_expired`, 403 `account_suspended`.
    func usableLink(_ token: String, purpose: AccountStore.LinkPurpose, now: Date) async throws -> (AccountStore.LinkRow, User) {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 128,
              let link = try await store.link(tokenHash: SecureRandom.sha256Hex(trimmed)), link.purpose == purpose,
              let user = try await store.user(link.userID)
        else { throw AppError.notFound("reset_link_invalid") }
        guard link.usedAt == nil else { throw AppError(.gone, "reset_link_used") }
        guard link.expiresAt > now else { throw AppError(.gone, "reset_link_expired") }
        guard user.suspendedAt == nil else {
            throw AppError(.forbidden, "account_suspended", arguments: ["reason": user.suspensionReason ?? ""])
        }
        return (link, user)
    }

    /// Mails `mail.<kind>.subject` / `.body` in the account's language (503 `mail_unavailable` when it cannot go).
    func mail(to address: String, user: User, kind: String, arguments: [String: String]) async throws {
        let language = user.language ?? .default
        var words = arguments
        words["nickname"] = user.nickname
        do {
            try await application.mail.send(MailMessage(to: address, subject: application.translator.text("mail.\(kind).subject", language, words),
                                                        text: application.translator.text("mail.\(kind).body", language, words)))
        } catch {
            application.logger.warning("accounts: a mail was not sent: \(error)")
            throw AppError(.serviceUnavailable, "mail_unavailable")
        }
    }
}
