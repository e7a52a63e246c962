package import _CryptoExtras
import Crypto
package import Foundation
import NIOConcurrencyHelpers
import Platform
import SwiftASN1
import X509
package import XCTVapor

/// Google's certificate endpoint for Firebase ID tokens, on a free local port, and a Firebase Auth
/// that mints RS256 ID tokens with the key behind the certificate it serves.
///
///     let firebase = try await FakeFirebase.start()
///     defer { Task { await firebase.stop() } }   // or `await firebase.stop()` at the end
///     app.firebaseTokens = FirebaseIDTokenVerifier(projectIDs: [firebase.projectID],
///         certificatesURL: firebase.certificatesURL, client: app.http.client.shared, logger: app.logger)
///     let token = try firebase.token(uid: "firebase-uid-1")   // send as the `idtoken` header
///
/// `GET /certs` answers `{"<kid>": "-----BEGIN CERTIFICATE-----…"}` with
/// `Cache-Control: public, max-age=<maxAge>` and counts the fetches (`fetchCount`).
package final class FakeFirebase: Sendable {
    package struct SigningKey: Sendable {
        package let kid: String
        package let key: _RSA.Signing.PrivateKey
        package let certificatePEM: String

        package static func make(_ key: _RSA.Signing.PrivateKey) throws -> SigningKey {
            let name = try DistinguishedName { CommonName("securetoken.system.gserviceaccount.com") }
            let certificate = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
                notValidBefore: Date() - 3600, notValidAfter: Date() + 14 * 24 * 3600, issuer: name, subject: name,
                signatureAlgorithm: .sha256WithRSAEncryption, extensions: Certificate.Extensions {}, issuerPrivateKey: .init(key))
            return SigningKey(kid: String(SecureRandom.sha256Hex(SecureRandom.token()).prefix(40)), key: key, certificatePEM: try certificate.serializeAsPEM().pemString)
        }
    }

    /// RSA keys made once per test process and handed out in order: making a 2048-bit key was a
    /// tenth of the CPU of the suites that start a fake. A fake's own keys never repeat (it takes
    /// the next ones), and kids are new each time, so fakes sharing a process stay strangers.
    private static let madeKeys = NIOLockedValueBox<[_RSA.Signing.PrivateKey]>([])

    private static func rsaKey(_ index: Int) throws -> _RSA.Signing.PrivateKey {
        try madeKeys.withLockedValue { keys in
            while keys.count <= index { keys.append(try _RSA.Signing.PrivateKey(keySize: .bits2048)) }
            return keys[index]
        }
    }

    private struct State: Sendable {
        package var current: SigningKey
        /// Which of `madeKeys` a rotation takes next.
        package var nextKey = 2
        /// Served beside `current` after a rotation, as Google does for a while.
        package var previous: SigningKey?
        package var fetchCount = 0
        package var failing = false
    }

    package let app: Application
    package let port: Int
    package let projectID = "sesac-test-project"
    /// The `max-age` the certificates are served with.
    package let maxAge: Int
    private let state: NIOLockedValueBox<State>
    /// Not served: signs tokens that must fail with `badSignature`.
    private let strangerKey: _RSA.Signing.PrivateKey

    package var certificatesURL: String { "http://127.0.0.1:\(port)/certs" }
    package var fetchCount: Int { state.withLockedValue { $0.fetchCount } }
    /// The key tokens are signed with now.
    package var currentKey: SigningKey { state.withLockedValue { $0.current } }

    private init(app: Application, port: Int, maxAge: Int, key: SigningKey) throws {
        self.app = app
        self.port = port
        self.maxAge = maxAge
        self.state = NIOLockedValueBox(State(current: key))
        self.strangerKey = try Self.rsaKey(1)
    }

    package static func start(maxAge: Int = 3600) async throws -> FakeFirebase {
        let app = try await Application.make(.testing)
        app.logger.logLevel = .warning
        let port = try freePort()
        let fake = try FakeFirebase(app: app, port: port, maxAge: maxAge, key: try SigningKey.make(try rsaKey(0)))
        app.get("certs") { _ -> Response in
            let (failing, served) = fake.state.withLockedValue { state -> (Bool, [SigningKey]) in
                state.fetchCount += 1
                return (state.failing, [state.current] + (state.previous.map { [$0] } ?? []))
            }
            guard !failing else { return Response(status: .serviceUnavailable) }
            let body = try JSONEncoder().encode(Dictionary(uniqueKeysWithValues: served.map { ($0.kid, $0.certificatePEM) }))
            return Response(status: .ok, headers: ["Content-Type": "application/json; charset=UTF-8",
                                                   "Cache-Control": "public, max-age=\(fake.maxAge), must-revalidate, no-transform"],
                            body: .init(data: body))
        }
        do {
            try await app.server.start(address: .hostname("127.0.0.1", port: port))
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        return fake
    }

    package func stop() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    /// A new key and kid sign from now on; the old certificate stays served beside it unless
    /// `keepingPrevious` is false.
    package func rotateKeys(keepingPrevious: Bool = true) {
        state.withLockedValue { state in
            let next = try! SigningKey.make(try! Self.rsaKey(state.nextKey))
            state.nextKey += 1
            state.previous = keepingPrevious ? state.current : nil
            state.current = next
        }
    }

    /// While set, `GET /certs` answers 503 (still counted).
    package func setFailing(_ failing: Bool) { state.withLockedValue { $0.failing = failing } }

    /// An ID token as Firebase Auth issues it after a phone sign-in, RS256-signed by the served key.
    package func token(uid: String, phone: String? = "+821012345678", email: String? = nil, project: String? = nil,
               issuedAt: Date = Date(), expiresIn: TimeInterval = 3600, kid: String? = nil) throws -> String {
        try signed(claims: claims(uid: uid, phone: phone, email: email, project: project, issuedAt: issuedAt, expiresIn: expiresIn), kid: kid)
    }

    /// The claims `token` signs, to change one and sign them with `signed(claims:)`.
    package func claims(uid: String, phone: String? = "+821012345678", email: String? = nil, project: String? = nil,
                issuedAt: Date = Date(), expiresIn: TimeInterval = 3600) -> [String: Any] {
        let project = project ?? projectID
        let iat = Int(issuedAt.timeIntervalSince1970)
        var identities: [String: Any] = [:]
        if let phone { identities["phone"] = [phone] }
        if let email { identities["email"] = [email] }
        var claims: [String: Any] = [
            "iss": "https://securetoken.google.com/\(project)", "aud": project, "auth_time": iat, "user_id": uid, "sub": uid,
            "iat": iat, "exp": iat + Int(expiresIn),
            "firebase": ["identities": identities, "sign_in_provider": phone != nil ? "phone" : "password"] as [String: Any],
        ]
        if let phone { claims["phone_number"] = phone }
        if let email { claims["email"] = email; claims["email_verified"] = false }
        return claims
    }

    /// Signs any claims RS256 with the served key (or `key`), under `kid` (default the served one).
    package func signed(claims: [String: Any], kid: String? = nil, key: _RSA.Signing.PrivateKey? = nil) throws -> String {
        let current = currentKey
        let signingInput = Self.encode(["alg": "RS256", "kid": kid ?? current.kid, "typ": "JWT"]) + "." + Self.encode(claims)
        let signature = try (key ?? current.key).signature(for: SHA256.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
        return signingInput + "." + signature.rawRepresentation.base64URLEncodedString()
    }

    /// Same kid as the served certificate, signed by a key that is not behind it.
    package func tokenSignedByAnotherKey(uid: String) throws -> String {
        try signed(claims: claims(uid: uid), key: strangerKey)
    }

    /// `alg: none` with an empty signature.
    package func unsignedToken(uid: String) -> String {
        Self.encode(["alg": "none", "kid": currentKey.kid, "typ": "JWT"]) + "." + Self.encode(claims(uid: uid)) + "."
    }

    /// HS256 keyed by the served public key's PEM (or the certificate's, as published): the
    /// algorithm-confusion forgery that works on verifiers letting the token choose the algorithm.
    package func tokenHMACedWithThePublicKey(uid: String, usingCertificatePEM: Bool = false) -> String {
        let current = currentKey
        let signingInput = Self.encode(["alg": "HS256", "kid": current.kid, "typ": "JWT"]) + "." + Self.encode(claims(uid: uid))
        let secret = usingCertificatePEM ? current.certificatePEM : current.key.publicKey.pemRepresentation
        let mac = HMAC<SHA256>.authenticationCode(for: Data(signingInput.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return signingInput + "." + Data(mac).base64URLEncodedString()
    }

    package static func encode(_ object: [String: Any]) -> String {
        (try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])).base64URLEncodedString()
    }
}
