import JWTKit
import Vapor

/// Claims of a short-lived access token: who (`sub`), which session family (`sid`), until when.
struct AccessClaims: JWTPayload {
    package var sub: SubjectClaim
    package var sid: String
    package var iat: IssuedAtClaim
    package var exp: ExpirationClaim

    package func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

/// The same claims read without checking `exp`: for a refresh that presents the expired token.
struct AccessClaimsAnyTime: JWTPayload {
    package var sub: SubjectClaim
    package var sid: String
    package var iat: IssuedAtClaim
    package var exp: ExpirationClaim

    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Signs and verifies access tokens (HS256 with the access-token key derived from `JWT_SECRET`,
/// see `ServerKeys`; never the secret itself).
public struct AccessTokens: Sendable {
    package let keys: JWTKeyCollection
    public let lifetime: TimeInterval

    public static func make(key: SymmetricKey, lifetime: TimeInterval) async -> AccessTokens {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(key: key), digestAlgorithm: .sha256)
        return AccessTokens(keys: keys, lifetime: lifetime)
    }

    package func sign(userID: UUID, sessionID: UUID, now: Date = Date()) async throws -> String {
        let claims = AccessClaims(
            sub: .init(value: userID.uuidString), sid: sessionID.uuidString,
            iat: .init(value: now), exp: .init(value: now.addingTimeInterval(lifetime))
        )
        return try await keys.sign(claims)
    }

    package enum Failure: Error { case expired, invalid }

    /// The (user, session) a token names, after checking signature and expiry.
    package func verify(_ token: String) async throws(Failure) -> (userID: UUID, sessionID: UUID) {
        let claims: AccessClaims
        do {
            claims = try await keys.verify(token, as: AccessClaims.self)
        } catch let error as JWTError where error.errorType == .claimVerificationFailure {
            throw .expired
        } catch {
            throw .invalid
        }
        guard let userID = UUID(uuidString: claims.sub.value), let sessionID = UUID(uuidString: claims.sid) else {
            throw .invalid
        }
        return (userID, sessionID)
    }

    /// The (user, session) of a token we signed, expired or not. Only for a refresh that also
    /// presents the session's refresh token (the LookForRealBurger app sends its stale access token).
    package func verifyIgnoringExpiry(_ token: String) async throws(Failure) -> (userID: UUID, sessionID: UUID) {
        guard let claims = try? await keys.verify(token, as: AccessClaimsAnyTime.self),
              let userID = UUID(uuidString: claims.sub.value), let sessionID = UUID(uuidString: claims.sid) else { throw .invalid }
        return (userID, sessionID)
    }
}

extension Application {
    private struct AccessTokensKey: StorageKey { typealias Value = AccessTokens }

    public var accessTokens: AccessTokens {
        get { configured(AccessTokensKey.self) }
        set { storage[AccessTokensKey.self] = newValue }
    }
}
