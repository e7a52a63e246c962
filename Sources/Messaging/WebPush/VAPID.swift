package import Crypto
package import Foundation
import Platform

/// Voluntary Application Server Identification (RFC 8292): every push request carries a short-lived
/// ES256 JWT naming the push service's origin (`aud`), an expiry within a day (`exp`) and how to
/// reach us (`sub`), signed with the server's P-256 key, beside that key (`k`). A browser binds its
/// subscription to the public key, so every instance must sign with the same one.
package struct VAPID: Sendable {
    package let privateKey: P256.Signing.PrivateKey
    /// `mailto:` or `https:` contact for the push services' operators.
    package let subject: String

    package init(privateKey: P256.Signing.PrivateKey, subject: String) {
        self.privateKey = privateKey
        self.subject = subject
    }

    /// The public key as browsers take it (`applicationServerKey`): uncompressed, base64url.
    package var publicKey: String { privateKey.publicKey.x963Representation.base64URLEncodedString() }

    /// The private key as `VAPID_PRIVATE_KEY` and the database keep it: the 32-byte scalar, base64url.
    package var privateKeyText: String { privateKey.rawRepresentation.base64URLEncodedString() }

    /// A key from `privateKeyText`'s form; nil for anything else.
    package static func privateKey(fromText text: String) -> P256.Signing.PrivateKey? {
        guard let raw = Data(base64URLEncoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), raw.count == 32 else { return nil }
        return try? P256.Signing.PrivateKey(rawRepresentation: raw)
    }

    /// The `Authorization` header for a request to `endpoint`, valid for `lifetime` seconds (at most
    /// a day, RFC 8292 §2).
    package func authorization(for endpoint: URL, now: Date, lifetime: TimeInterval = 12 * 3600) throws -> String {
        guard let audience = Self.origin(of: endpoint) else { throw WebPushError.invalidEndpoint }
        let header = #"{"typ":"JWT","alg":"ES256"}"#
        let expiry = Int(now.addingTimeInterval(min(lifetime, 24 * 3600)).timeIntervalSince1970)
        let claims = try JSONSerialization.data(withJSONObject: ["aud": audience, "exp": expiry, "sub": subject], options: [.sortedKeys])
        let signingInput = Data(header.utf8).base64URLEncodedString() + "." + claims.base64URLEncodedString()
        let signature = try privateKey.signature(for: Data(signingInput.utf8))
        // JWS ES256 is the raw r‖s, not DER.
        let token = signingInput + "." + signature.rawRepresentation.base64URLEncodedString()
        return "vapid t=\(token), k=\(publicKey)"
    }

    /// `scheme://host[:port]` of a URL: the JWT's audience.
    package static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let defaultPort = scheme == "https" ? 443 : 80
        let port = url.port.map { $0 == defaultPort ? "" : ":\($0)" } ?? ""
        return "\(scheme)://\(host)\(port)"
    }
}

package enum WebPushError: Error, Equatable {
    case invalidEndpoint
}
