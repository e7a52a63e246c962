import Accounts
import Fluent
import Foundation
import Platform

extension AccountService {
    /// A new access token for the session a refresh token belongs to, the refresh token left as it
    /// is: the LookForRealBurger app keeps its login's refresh token for good (it never stores the
    /// one a refresh returns), so on its routes a refresh token lives until it expires. Our own
    /// API rotates (docs/DECISIONS.md). `session` is the session of the access token presented
    /// with it: another session's refresh token is 403 `refresh_token_mismatch`. Only sessions the
    /// app's own login made (`appWithFixedRefresh`) refresh so: any other session's token would
    /// escape the reuse detection of rotation (403 `refresh_token_mismatch` too).
    func accessTokenWithoutRotation(_ presented: String, session sessionID: UUID, now: Date = Date()) async throws -> String {
        guard let token = try await RefreshToken.query(on: database).filter(\.$tokenHash == SecureRandom.sha256Hex(presented)).first(),
              token.usedAt == nil, let session = try await AuthSession.find(token.$session.id, on: database), session.revokedAt == nil
        else { throw AppError(.unauthorized, "invalid_refresh_token") }
        guard token.$session.id == sessionID, session.kind == .appWithFixedRefresh else { throw AppError(.forbidden, "refresh_token_mismatch") }
        guard token.expiresAt > now else { throw AppError(.unauthorized, "refresh_token_expired") }
        return try await accessTokens.sign(userID: session.$user.id, sessionID: sessionID, now: now)
    }
}
