public import Vapor

/// One secret, many keys. Every purpose that signs or seals something gets its own key, derived
/// from `JWT_SECRET` with HKDF-SHA256 and a purpose label, so a value signed for one purpose is
/// never valid for another (a CSRF token can never be an access-token signature, as it once was).
/// Add a purpose here rather than using the secret directly; see docs/DECISIONS.md.
public struct ServerKeys: Sendable {
    /// Signs access tokens (HS256).
    public let accessTokens: SymmetricKey
    /// Signs the browser's CSRF nonce cookie, so only nonces this server made are accepted.
    public let csrfNonce: SymmetricKey
    /// Makes the per-form CSRF token from the nonce and the session it is bound to.
    public let csrfToken: SymmetricKey
    /// Seals the successor of a rotated refresh token, so a racing retry can be answered with it.
    public let refreshSuccessor: SymmetricKey
    /// Signs the cookie that lets a shipped app's socket show which app user it belongs to
    /// (the 새싹 apps' chat binding).
    public let socketBinding: SymmetricKey

    public init(secret: String) {
        let material = SymmetricKey(data: Data(secret.utf8))
        func derive(_ purpose: String) -> SymmetricKey {
            HKDF<SHA256>.deriveKey(
                inputKeyMaterial: material, salt: Data("whatweeat key derivation".utf8),
                info: Data("whatweeat/\(purpose)/v1".utf8), outputByteCount: 32
            )
        }
        accessTokens = derive("access-token")
        csrfNonce = derive("csrf-nonce")
        csrfToken = derive("csrf-token")
        refreshSuccessor = derive("refresh-successor")
        socketBinding = derive("socket-binding")
    }

    /// Unpadded base64url HMAC-SHA256 of `parts` joined by a separator no part may contain.
    package static func mac(_ key: SymmetricKey, _ parts: String...) -> String {
        let message = parts.joined(separator: "\u{1F}")
        return Data(HMAC<SHA256>.authenticationCode(for: Data(message.utf8), using: key)).base64URLEncodedString()
    }
}

extension Application {
    private struct ServerKeysKey: StorageKey { typealias Value = ServerKeys }

    public var keys: ServerKeys {
        get { configured(ServerKeysKey.self) }
        set { storage[ServerKeysKey.self] = newValue }
    }
}
