import Accounts
import Fluent
import Platform
import Vapor

/// "Forgot password" by a code to the phone a person verified for mates
/// (`AccountService+PhoneReset` owns the routes and the new password; this owns the codes). A
/// reset code is a row of `mates_verification_codes` with its own purpose, so it cannot verify
/// anything and a verification code cannot reset a password; both count against the number's
/// and the account's limits of one a minute and five a day, and against the hourly SMS budget.
struct MatesPasswordResetCodes: PasswordResetCodes {
    func isOffered(_ app: Application) -> Bool {
        app.settings.mates.offersPhoneCodes
    }

    var codeMinutes: Int { Int(MatesService.codeLifetime / 60) }

    func normalizedPhone(_ raw: String, app: Application) throws -> String {
        guard let phone = try? MatesRules.normalizedDestination(raw, channel: .phone) else { throw AppError.invalid("invalid_phone") }
        guard MatesRules.phoneIsIn(app.settings.mates.phoneCountries, phone) else { throw AppError.invalid("phone_country_unsupported") }
        return phone
    }

    func sendCode(to phone: String, language: Language, clientKey: String, app: Application) async throws {
        try await MatesService(database: app.db, application: app).sendPasswordResetCode(to: phone, language: language, clientKey: clientKey)
    }

    func claimCode(_ code: String, phone: String, app: Application) async throws -> UUID {
        try await MatesService(database: app.db, application: app).claimPasswordResetCode(code, phone: phone)
    }
}

extension MatesService {
    /// A reset code to `phone` when it is the verified number of an account that may sign in by
    /// a password. A number nobody verified, a suspended account, an app's linked sign-in (the
    /// 새싹 스터디 apps sign in by Firebase: no password to reset), a limit reached or the SMS
    /// budget spent sends nothing and says nothing (the asker has had the answer); only a failed
    /// delivery throws, so the queue tries again.
    func sendPasswordResetCode(to phone: String, language: Language, clientKey: String) async throws {
        let destinationHash = Self.destinationHash(phone, channel: .phone)
        guard let userID = try await store.holder(ofDestination: destinationHash),
              let user = try await AccountStore(database: database, application: application).user(userID), user.suspendedAt == nil,
              !AccountRules.isUnreadableAddress(user.email)
        else { return }
        guard case .success(let slot) = try await application.codeBudgets.reserveChannel(.phone, logger: application.logger) else { return }
        let translator = application.translator, language = user.language ?? language
        do {
            let issued = try await issueCode(.passwordReset, channel: .phone, to: phone, destinationHash: destinationHash, user: userID,
                                             clientKey: clientKey, now: now) { code, minutes in
                (translator.text("mates.reset_code.text", language, ["code": code, "minutes": minutes]),
                 translator.text("mates.reset_code.subject", language))
            }
            if issued == nil {
                await slot.release()
                application.logger.info("mates: a password reset code was not sent: the number had its codes for now")
            }
        } catch {
            await slot.release()
            throw error
        }
    }

    /// Uses the newest reset code sent to `phone` (five tries, five minutes): the account it was
    /// for. Every failure, a number nobody verified included, is the same 422 `reset_code_invalid`,
    /// after the same reads.
    func claimPasswordResetCode(_ rawCode: String, phone: String) async throws -> UUID {
        let now = self.now
        let invalid = AppError.invalid("reset_code_invalid")
        guard let code = try? MatesRules.normalizedCode(rawCode) else { throw invalid }
        let destinationHash = Self.destinationHash(phone, channel: .phone)
        let holder = try await store.holder(ofDestination: destinationHash)
        // A number nobody holds reads a code too, of nobody, so both answers take the same reads.
        guard let row = try await store.newestCode(for: holder ?? UUID(), destinationHash: destinationHash, purpose: .passwordReset),
              let holder, row.usedAt == nil, row.expiresAt > now, row.attempts < Self.codeAttempts
        else { throw invalid }
        guard SecureRandom.constantTimeEquals(SecureRandom.sha256Hex(destinationHash + ":" + code), row.codeHash) else {
            _ = try await store.countWrongTry(row.id, maximum: Self.codeAttempts)
            throw invalid
        }
        guard try await store.takeCode(row.id, at: now) else { throw invalid }
        return holder
    }
}
