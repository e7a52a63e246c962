package import JWTKit
public import Vapor

/// Claims of a short-lived access token: who (`sub`), which session family (`sid`), until when.
struct AccessClaims: JWTPayload {
    var sub: SubjectClaim
    var sid: String
    var iat: IssuedAtClaim
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}

/// The same claims read without checking `exp`: for a refresh that presents the expired token.
struct AccessClaimsAnyTime: JWTPayload {
    var sub: SubjectClaim
    var sid: String
    var iat: IssuedAtClaim
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Signs and verifies access tokens (HS256 with the access-token key derived from `JWT_SECRET`,
/// see `ServerKeys`; never the secret itself).
public struct AccessTokens: Sendable {
    package let keys: JWTKeyCollection
    public let lifetime: TimeInterval
    /// Tokens already verified, with what they say: a client sends the same token on every call
    /// for its whole lifetime, and decoding its JSON and checking its MAC again was 4 % of a light
    /// API answer. Keyed by the whole token, so only the very bytes that were verified match.
    private let verified = VerifiedTokens()

    public static func make(key: SymmetricKey, lifetime: TimeInterval) async -> AccessTokens {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(key: key), digestAlgorithm: .sha256)
        return AccessTokens(keys: keys, lifetime: lifetime)
    }

    init(keys: JWTKeyCollection, lifetime: TimeInterval) {
        self.keys = keys
        self.lifetime = lifetime
    }

    package func sign(userID: UUID, sessionID: UUID, now: Date) async throws -> String {
        let claims = AccessClaims(
            sub: .init(value: userID.uuidString), sid: sessionID.uuidString,
            iat: .init(value: now), exp: .init(value: now.addingTimeInterval(lifetime))
        )
        return try await keys.sign(claims)
    }

    package enum Failure: Error { case expired, invalid }

    /// The (user, session) a token names, after checking signature and expiry.
    package func verify(_ token: String, now: Date) async throws(Failure) -> (userID: UUID, sessionID: UUID) {
        if let known = verified.claims(of: token) {
            guard known.expiresAt > now else { throw .expired }
            return (known.userID, known.sessionID)
        }
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
        verified.remember(token, VerifiedTokens.Claims(userID: userID, sessionID: sessionID, expiresAt: claims.exp.value))
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

/// What verified tokens said (`AccessTokens.verify`), at most `capacity` of them; a full memory
/// starts over (each token is verified again once).
private final class VerifiedTokens: Sendable {
    struct Claims: Sendable {
        let userID: UUID
        let sessionID: UUID
        let expiresAt: Date
    }

    static let capacity = 20_000
    private let known = BoundedMemory<String, Claims>(name: "verified_access_tokens", capacity: capacity)

    func claims(of token: String) -> Claims? { known[token] }

    func remember(_ token: String, _ claims: Claims) { known.keep(claims, for: token) }
}
