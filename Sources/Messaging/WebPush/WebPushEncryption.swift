package import Crypto
package import Foundation
import Platform

/// A browser's push subscription as `PushSubscription.toJSON()` gives it: where to send, and the
/// keys the message is encrypted to.
package struct PushSubscriptionKeys: Sendable, Equatable {
    /// The browser's P-256 public key, uncompressed (65 bytes: `keys.p256dh`).
    package let p256dh: Data
    /// The browser's 16-byte authentication secret (`keys.auth`).
    package let auth: Data

    /// The keys of a subscription's JSON (base64url); nil when either is not a key a browser makes.
    package init?(p256dh: String, auth: String) {
        guard let publicKey = Data(base64URLEncoded: p256dh), let secret = Data(base64URLEncoded: auth),
              publicKey.count == 65, publicKey.first == 0x04, secret.count == 16,
              (try? P256.KeyAgreement.PublicKey(x963Representation: publicKey)) != nil else { return nil }
        self.p256dh = publicKey
        self.auth = secret
    }
}

/// Message encryption for Web Push (RFC 8291), the `aes128gcm` content coding (RFC 8188) in one
/// record: an ephemeral ECDH key agreed with the browser's key, mixed with its auth secret, keys an
/// AES-128-GCM seal of the message. Only the browser can read what the push service carries.
package enum WebPushEncryption {
    /// The record size written in the header (one record holds any push message: at most 4,096
    /// bytes of ciphertext reach a browser).
    static let recordSize: UInt32 = 4096
    /// The longest message that fits one record (its tag and delimiter take 17 bytes).
    package static let maxPlaintext = 3993

    package enum Failure: Error, Equatable {
        case tooLong
    }

    /// The body of a push request: the `aes128gcm` header (salt, record size, this message's public
    /// key) followed by the sealed record. `salt` and `senderKey` are fresh for every message unless
    /// a test fixes them (RFC 8291's own example does).
    package static func encrypt(_ plaintext: Data, to keys: PushSubscriptionKeys, salt: Data = randomSalt(),
                                senderKey: P256.KeyAgreement.PrivateKey = .init()) throws -> Data {
        guard plaintext.count <= maxPlaintext else { throw Failure.tooLong }
        let browserKey = try P256.KeyAgreement.PublicKey(x963Representation: keys.p256dh)
        let senderPublic = senderKey.publicKey.x963Representation
        let shared = try senderKey.sharedSecretFromKeyAgreement(with: browserKey)
        // RFC 8291 §3.3: the input keying material binds both public keys and the auth secret.
        let keyInfo = Data("WebPush: info".utf8) + [0] + keys.p256dh + senderPublic
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: keys.auth, sharedInfo: keyInfo, outputByteCount: 32)
        // RFC 8188 §2.2 and §2.3: the content encryption key and the nonce, from the salt.
        let contentKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt,
                                                info: Data("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonceBytes = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt,
                                                info: Data("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        let nonce = try AES.GCM.Nonce(data: nonceBytes.withUnsafeBytes { Data($0) })
        // One record, the last: the message and the delimiter 0x02, no padding.
        let sealed = try AES.GCM.seal(plaintext + [2], using: contentKey, nonce: nonce)
        var body = Data()
        body.append(salt)
        withUnsafeBytes(of: recordSize.bigEndian) { body.append(contentsOf: $0) }
        body.append(UInt8(senderPublic.count))
        body.append(senderPublic)
        body.append(sealed.ciphertext)
        body.append(sealed.tag)
        return body
    }

    /// Sixteen random bytes: a message's salt.
    package static func randomSalt() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
