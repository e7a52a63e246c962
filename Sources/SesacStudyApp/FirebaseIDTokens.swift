import _CryptoExtras
import Accounts
public import AsyncHTTPClient
import Crypto
package import Foundation
import Logging
import Mates
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import Platform
import SocketIO
import SwiftASN1
public import Vapor
import X509

/// What a verified Firebase ID token says.
public struct FirebaseIdentity: Sendable, Equatable {
    /// The Firebase user id (`sub`).
    public let uid: String
    /// The Firebase project the token was issued for (`aud`).
    public let projectID: String
    public let phoneNumber: String?
    public let email: String?
    /// `firebase.sign_in_provider`: `phone`, `password`, `google.com`, `custom`, …
    public let signInProvider: String?

    public init(uid: String, projectID: String, phoneNumber: String?, email: String?, signInProvider: String?) {
        self.uid = uid
        self.projectID = projectID
        self.phoneNumber = phoneNumber
        self.email = email
        self.signInProvider = signInProvider
    }
}

/// Why a Firebase ID token was refused. All but `certificatesUnavailable` are the client's
/// fault and should be answered 401; `certificatesUnavailable` means Google's certificates could
/// not be had (never fetched, or the last good copy is over a day stale), so the token may well be
/// good: answer 503 (with `Retry-After`), so the app retries instead of signing the user out.
public enum FirebaseTokenError: Error, Equatable, Sendable {
    /// No verifier is configured (`FIREBASE_PROJECT_IDS` unset).
    case disabled
    /// Not a compact JWS (three base64url parts, JSON header and payload), or over the size limit.
    case malformed
    /// The header's `alg` is not exactly `RS256`.
    case unsupportedAlgorithm
    /// The header's `kid` names none of Google's current certificates.
    case unknownKey
    case badSignature
    case expired
    /// `iat`, `auth_time` or `nbf` lies in the future.
    case notYetValid
    case wrongAudience
    case wrongIssuer
    /// `sub` missing, empty or longer than 128 characters.
    case missingSubject
    case certificatesUnavailable
}

/// Checks Firebase Auth ID tokens.
public protocol FirebaseTokenVerifying: Sendable {
    func verify(_ token: String) async throws(FirebaseTokenError) -> FirebaseIdentity
}

/// Verifies Firebase Auth ID tokens the way Google documents it ("Verify ID tokens using a
/// third-party JWT library"), offline but for the certificates:
///
/// 1. the token is a compact JWS of at most 16 KB; its header says `alg: RS256` (nothing else,
///    never `none`, never an HMAC keyed by a public key) and a `kid`;
/// 2. `kid` names one of the certificates Google publishes at `certificatesURL`, and the RS256
///    (PKCS #1 v1.5, SHA-256) signature over `header.payload` verifies with that certificate's key;
/// 3. `exp` is in the future, `iat`, `auth_time` (and `nbf` if present) are not, each with five
///    minutes of clock skew; `aud` is one of our project ids and `iss` is
///    `https://securetoken.google.com/<aud>`; `sub` (the uid) is 1–128 characters.
///
/// The certificates are cached for the `max-age` of their `Cache-Control` (less any `Age`; an hour
/// without one, at least a minute, at most a day) and fetched once for all concurrent callers. A
/// `kid` not among fresh certificates (Google rotated its keys) fetches again early at most once a
/// minute. Past their max-age, certificates that hold the token's `kid` still answer at once while
/// a fetch runs in the background; they keep serving while fetches fail, until a day past their
/// max-age. After a failure the next attempt waits ten seconds; each attempt may take five.
/// Tokens are never logged.
public final class FirebaseIDTokenVerifier: FirebaseTokenVerifying {
    public static let googleCertificatesURL = "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
    static let maximumTokenBytes = 16 * 1024
    static let clockSkew: TimeInterval = 5 * 60
    static let defaultCacheLifetime: TimeInterval = 3600
    static let cacheLifetimeRange: ClosedRange<TimeInterval> = 60...(24 * 3600)
    /// How long expired certificates keep serving while fetches fail.
    static let staleLimit: TimeInterval = 24 * 3600
    /// An unknown `kid` fetches early at most this often.
    static let earlyRefetchInterval: TimeInterval = 60
    static let retryAfterFailure: TimeInterval = 10
    static let fetchTimeout: TimeAmount = .seconds(5)

    public let projectIDs: Set<String>
    public let certificatesURL: String
    private let client: HTTPClient
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let state = NIOLockedValueBox(State())
    private let flight = SingleFlight()
    /// Tokens verified already, by their SHA-256, until they expire: an app sends the same token
    /// for up to an hour, and an RSA verification per call cost most of a polled route.
    private let verified = BoundedMemory<SHA256Digest, VerifiedToken>(name: "firebase_id_tokens", capacity: verifiedLimit)
    static let verifiedLimit = 20_000
    private struct VerifiedToken: Sendable {
        let identity: FirebaseIdentity
        let expires: TimeInterval
    }

    public init(projectIDs: Set<String>, certificatesURL: String = googleCertificatesURL, client: HTTPClient,
                logger: Logger, now: @escaping @Sendable () -> Date = Date.init) {
        self.projectIDs = projectIDs
        self.certificatesURL = certificatesURL
        self.client = client
        self.logger = logger
        self.now = now
    }

    /// The verifier the settings ask for, or nil when no project id is configured (feature off).
    package static func make(_ app: Application, settings: FirebaseSettings) -> FirebaseIDTokenVerifier? {
        guard !settings.projectIDs.isEmpty else { return nil }
        return FirebaseIDTokenVerifier(projectIDs: Set(settings.projectIDs), certificatesURL: settings.certificatesURL,
                                       client: app.http.client.shared, logger: app.logger)
    }

    public func verify(_ token: String) async throws(FirebaseTokenError) -> FirebaseIdentity {
        guard token.utf8.count <= Self.maximumTokenBytes else { throw .malformed }
        let bytes = Array(token.utf8)
        let digest = SHA256.hash(data: bytes)
        if let known = verified[digest], now().timeIntervalSince1970 < known.expires + Self.clockSkew {
            return known.identity
        }
        let identity = try await verifyAfresh(bytes)
        let expiredBy = now().timeIntervalSince1970 - Self.clockSkew
        verified.keep(VerifiedToken(identity: identity.identity, expires: identity.expires), for: digest, stale: { $0.expires < expiredBy })
        return identity.identity
    }

    /// The whole check of a token not seen before; the identity with the token's `exp`.
    private func verifyAfresh(_ bytes: [UInt8]) async throws(FirebaseTokenError) -> (identity: FirebaseIdentity, expires: TimeInterval) {
        let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Self.base64URLDecoded(parts[0]),
              let header = try? JSONDecoder().decode(Header.self, from: headerBytes)
        else { throw .malformed }
        guard header.alg == "RS256" else { throw .unsupportedAlgorithm }
        guard let payloadBytes = Self.base64URLDecoded(parts[1]), let signatureBytes = Self.base64URLDecoded(parts[2]),
              !signatureBytes.isEmpty, let claims = try? JSONDecoder().decode(Claims.self, from: payloadBytes)
        else { throw .malformed }
        guard let kid = header.kid, !kid.isEmpty, kid.utf8.count <= 128 else { throw .unknownKey }

        let key = try await publicKey(for: kid)
        let signed = bytes[..<parts[1].endIndex]  // `header.payload`, as sent
        guard key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signatureBytes),
                                   for: SHA256.hash(data: signed), padding: .insecurePKCS1v1_5)
        else { throw .badSignature }

        let now = self.now().timeIntervalSince1970
        guard let exp = claims.exp, let iat = claims.iat, let authTime = claims.auth_time,
              exp.isFinite, iat.isFinite, authTime.isFinite, claims.nbf?.isFinite ?? true
        else { throw .malformed }
        guard now < exp + Self.clockSkew else { throw .expired }
        guard iat <= now + Self.clockSkew, authTime <= now + Self.clockSkew, (claims.nbf ?? now) <= now + Self.clockSkew
        else { throw .notYetValid }
        guard let audience = claims.aud, projectIDs.contains(audience) else { throw .wrongAudience }
        guard claims.iss == "https://securetoken.google.com/\(audience)" else { throw .wrongIssuer }
        guard let uid = claims.sub, !uid.isEmpty, uid.count <= 128 else { throw .missingSubject }
        return (FirebaseIdentity(uid: uid, projectID: audience, phoneNumber: claims.phone_number, email: claims.email,
                                 signInProvider: claims.firebase?.sign_in_provider), exp)
    }

    // MARK: - Tokens

    package struct Header: Decodable {
        package let alg: String
        package let kid: String?
    }

    /// The claims read; times are seconds since 1970.
    package struct Claims: Decodable {
        package struct Firebase: Decodable { package let sign_in_provider: String? }
        package let exp: Double?
        package let iat: Double?
        package let auth_time: Double?
        let nbf: Double?
        package let aud: String?
        package let iss: String?
        package let sub: String?
        package let phone_number: String?
        package let email: String?
        package let firebase: Firebase?
    }

    /// Strict base64url without padding: any other character makes the token malformed.
    static func base64URLDecoded(_ part: ArraySlice<UInt8>) -> Data? {
        guard part.allSatisfy({ byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }), part.count % 4 != 1 else { return nil }
        return Data(base64URLEncoded: String(decoding: part, as: UTF8.self))
    }

    // MARK: - Certificates

    private struct Certificates {
        let keys: [String: _RSA.Signing.PublicKey]
        let freshUntil: Date
    }

    private struct State {
        var certificates: Certificates?
        /// Completed fetch attempts, so a caller that looked before a fetch finished does not fetch again.
        var generation = 0
        var lastEarlyRefetch: Date?
        var retryAfter: Date?
    }

    private enum Lookup {
        /// Certificates within their max-age; the key if the kid is among them.
        case fresh(_RSA.Signing.PublicKey?)
        /// Past their max-age but less than a day: used while a fetch is under way or failing.
        case stale(_RSA.Signing.PublicKey?)
        case missing
    }

    private func lookup(_ kid: String, in state: State, at now: Date) -> Lookup {
        guard let certificates = state.certificates, now < certificates.freshUntil + Self.staleLimit else { return .missing }
        return now < certificates.freshUntil ? .fresh(certificates.keys[kid]) : .stale(certificates.keys[kid])
    }

    private func publicKey(for kid: String) async throws(FirebaseTokenError) -> _RSA.Signing.PublicKey {
        let now = self.now()
        let (found, generation, mayFetch) = state.withLockedValue { state -> (Lookup, Int, Bool) in
            let found = lookup(kid, in: state, at: now)
            switch found {
            case .fresh(.some):
                return (found, state.generation, false)
            case .fresh(nil):
                // Key rotation: one early fetch a minute, the slot taken before the slow work.
                if let last = state.lastEarlyRefetch, now.timeIntervalSince(last) < Self.earlyRefetchInterval {
                    return (found, state.generation, false)
                }
                state.lastEarlyRefetch = now
                return (found, state.generation, true)
            case .stale, .missing:
                return (found, state.generation, state.retryAfter.map { now >= $0 } ?? true)
            }
        }
        switch found {
        case .fresh(let key?):
            return key
        case .stale(let key?):
            // Expired, but the key is there: answer now, fetch for the next callers.
            if mayFetch { Task { await self.refreshOnce(after: generation) } }
            return key
        case .fresh(nil), .stale(nil), .missing:
            if mayFetch { await refreshOnce(after: generation) }
        }
        switch state.withLockedValue({ lookup(kid, in: $0, at: self.now()) }) {
        case .fresh(let key?), .stale(let key?): return key
        case .fresh(nil), .stale(nil): throw .unknownKey
        case .missing: throw .certificatesUnavailable
        }
    }

    /// One fetch for all concurrent callers.
    private func refreshOnce(after generation: Int) async {
        try? await flight.run { [self] in await self.refresh(unlessPast: generation) }
    }

    /// Fetches the certificates, unless a fetch completed since the caller looked.
    private func refresh(unlessPast generation: Int) async {
        guard state.withLockedValue({ $0.generation == generation }) else { return }
        let result: Result<Certificates, FetchFailure>
        do {
            result = .success(try await fetch())
        } catch let failure as FetchFailure {
            result = .failure(failure)
        } catch {
            result = .failure(FetchFailure(reason: "\(error)"))
        }
        let finished = now()
        state.withLockedValue { state in
            state.generation += 1
            switch result {
            case .success(let certificates):
                state.certificates = certificates
                state.retryAfter = nil
            case .failure:
                state.retryAfter = finished + Self.retryAfterFailure
            }
        }
        switch result {
        case .success(let certificates):
            logger.debug("Firebase certificates fetched", metadata: [
                "kids": .string(certificates.keys.keys.sorted().joined(separator: ",")),
                "fresh_until": .string(ISO8601DateFormatter().string(from: certificates.freshUntil)),
            ])
        case .failure(let failure):
            logger.warning("Firebase certificates could not be fetched; the last good ones serve until a day past their expiry",
                           metadata: ["url": .string(certificatesURL), "reason": .string(failure.reason)])
        }
    }

    private struct FetchFailure: Error { let reason: String }

    private func fetch() async throws -> Certificates {
        var request = HTTPClientRequest(url: certificatesURL)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await client.execute(request, timeout: Self.fetchTimeout)
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else { throw FetchFailure(reason: "HTTP \(response.status.code)") }
        guard let pems = try? JSONDecoder().decode([String: String].self, from: body) else {
            throw FetchFailure(reason: "not a JSON object of certificates")
        }
        var keys: [String: _RSA.Signing.PublicKey] = [:]
        for (kid, pem) in pems {
            guard let certificate = try? Certificate(pemEncoded: pem), let key = _RSA.Signing.PublicKey(certificate.publicKey) else {
                logger.warning("Firebase certificate skipped: not an RSA certificate of 2048 bits or more", metadata: ["kid": .string(kid)])
                continue
            }
            keys[kid] = key
        }
        guard !keys.isEmpty else { throw FetchFailure(reason: "no usable certificate among \(pems.count)") }
        let lifetime = Self.cacheLifetime(cacheControl: response.headers["Cache-Control"].joined(separator: ","),
                                          age: response.headers.first(name: "Age"))
        return Certificates(keys: keys, freshUntil: now() + lifetime)
    }

    /// `max-age` less `Age`, an hour without one, clamped to a minute…a day.
    static func cacheLifetime(cacheControl: String, age: String?) -> TimeInterval {
        let maxAge = cacheControl.split(separator: ",").lazy.compactMap { directive -> TimeInterval? in
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int(parts[1]) else { return nil }
            return TimeInterval(seconds)
        }.first
        guard let maxAge else { return defaultCacheLifetime }
        let elapsed = age.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { TimeInterval(max(0, $0)) } ?? 0
        return min(max(maxAge - elapsed, cacheLifetimeRange.lowerBound), cacheLifetimeRange.upperBound)
    }
}

extension Application {
    private struct FirebaseTokensKey: StorageKey { typealias Value = any FirebaseTokenVerifying }

    /// The Firebase ID token verifier, when `FIREBASE_PROJECT_IDS` configures one; nil turns the
    /// routes that need it off (they answer 401).
    public var firebaseTokens: (any FirebaseTokenVerifying)? {
        get { storage[FirebaseTokensKey.self] }
        set { storage[FirebaseTokensKey.self] = newValue }
    }
}
