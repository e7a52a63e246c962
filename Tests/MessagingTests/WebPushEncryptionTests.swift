import Crypto
import Foundation
@testable import Messaging
import Platform
import XCTest

/// Web Push's message encryption (RFC 8291) against the RFC's own worked example, byte for byte,
/// and VAPID (RFC 8292) tokens checked with swift-crypto's verifier: the signature, the audience
/// and the expiry a push service checks.
final class WebPushEncryptionTests: XCTestCase {
    private func bytes(_ base64URL: String) throws -> Data { try XCTUnwrap(Data(base64URLEncoded: base64URL)) }

    /// RFC 8291, Appendix A: the browser's keys and auth secret, the sender's key pair and salt,
    /// and the body the RFC says they make.
    func testTheRFCsExampleEncryptsToTheRFCsBody() throws {
        let keys = try XCTUnwrap(PushSubscriptionKeys(
            p256dh: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
            auth: "BTBZMqHH6r4Tts7J_aSIgg"))
        let sender = try P256.KeyAgreement.PrivateKey(rawRepresentation: try bytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
        XCTAssertEqual(sender.publicKey.x963Representation.base64URLEncodedString(),
                       "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
        let body = try WebPushEncryption.encrypt(Data("When I grow up, I want to be a watermelon".utf8), to: keys,
                                                 salt: try bytes("DGv6ra1nlYgDCS1FRnbzlw"), senderKey: sender)
        XCTAssertEqual(body.base64URLEncodedString(),
                       "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_"
                       + "yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN")
    }

    func testEveryMessageHasItsOwnSaltAndKeyAndALimit() throws {
        let browser = P256.KeyAgreement.PrivateKey()
        let keys = try XCTUnwrap(PushSubscriptionKeys(p256dh: browser.publicKey.x963Representation.base64URLEncodedString(),
                                                      auth: Data(repeating: 7, count: 16).base64URLEncodedString()))
        let one = try WebPushEncryption.encrypt(Data("같은 말".utf8), to: keys)
        let two = try WebPushEncryption.encrypt(Data("같은 말".utf8), to: keys)
        XCTAssertNotEqual(one.prefix(16), two.prefix(16), "a fresh salt")
        XCTAssertNotEqual(one.subdata(in: 21..<86), two.subdata(in: 21..<86), "a fresh sender key")
        XCTAssertEqual(one.count, 86 + "같은 말".utf8.count + 1 + 16, "header, message, delimiter, tag")
        XCTAssertNoThrow(try WebPushEncryption.encrypt(Data(count: WebPushEncryption.maxPlaintext), to: keys))
        XCTAssertThrowsError(try WebPushEncryption.encrypt(Data(count: WebPushEncryption.maxPlaintext + 1), to: keys)) {
            XCTAssertEqual($0 as? WebPushEncryption.Failure, .tooLong)
        }
    }

    func testSubscriptionKeysMustBeKeysABrowserMakes() {
        let good = P256.KeyAgreement.PrivateKey().publicKey.x963Representation
        let auth = Data(count: 16).base64URLEncodedString()
        XCTAssertNotNil(PushSubscriptionKeys(p256dh: good.base64URLEncodedString(), auth: auth))
        var offCurve = good
        offCurve[64] ^= 1
        for p256dh in [offCurve.base64URLEncodedString(), good.dropLast().base64URLEncodedString(),
                       P256.KeyAgreement.PrivateKey().publicKey.compressedRepresentation.base64URLEncodedString(), "not base64!", ""] {
            XCTAssertNil(PushSubscriptionKeys(p256dh: p256dh, auth: auth), p256dh)
        }
        XCTAssertNil(PushSubscriptionKeys(p256dh: good.base64URLEncodedString(), auth: Data(count: 15).base64URLEncodedString()))
    }

    func testVAPIDTokensAreSignedForThePushServicesOriginAndExpireWithinADay() throws {
        let vapid = VAPID(privateKey: P256.Signing.PrivateKey(), subject: "mailto:ops@whatweeat.example")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let header = try vapid.authorization(for: try XCTUnwrap(URL(string: "https://fcm.googleapis.com:443/fcm/send/abc?x=1")), now: now)
        let parts = header.split(separator: " ", maxSplits: 1)
        XCTAssertEqual(parts.first, "vapid")
        let fields = Dictionary(uniqueKeysWithValues: parts[1].components(separatedBy: ", ").map { field -> (String, String) in
            let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
            return (pair[0], pair[1])
        })
        XCTAssertEqual(fields["k"], vapid.publicKey)
        let token = try XCTUnwrap(fields["t"]).split(separator: ".").map(String.init)
        XCTAssertEqual(token.count, 3)
        let key = try P256.Signing.PublicKey(x963Representation: try bytes(try XCTUnwrap(fields["k"])))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try bytes(token[2]))
        XCTAssertTrue(key.isValidSignature(signature, for: Data((token[0] + "." + token[1]).utf8)), "ES256 over header.claims")
        let jwtHeader = try XCTUnwrap(JSONSerialization.jsonObject(with: try bytes(token[0])) as? [String: String])
        XCTAssertEqual(jwtHeader, ["typ": "JWT", "alg": "ES256"])
        let claims = try XCTUnwrap(JSONSerialization.jsonObject(with: try bytes(token[1])) as? [String: Any])
        XCTAssertEqual(claims["aud"] as? String, "https://fcm.googleapis.com", "the origin, without the default port or path")
        XCTAssertEqual(claims["sub"] as? String, "mailto:ops@whatweeat.example")
        let expiry = try XCTUnwrap(claims["exp"] as? Int)
        XCTAssertEqual(expiry, Int(now.timeIntervalSince1970) + 12 * 3600)
        let capped = try vapid.authorization(for: try XCTUnwrap(URL(string: "http://127.0.0.1:8099/push/1")), now: now, lifetime: 7 * 24 * 3600)
        let cappedClaims = try XCTUnwrap(JSONSerialization.jsonObject(with: try bytes(String(capped.split(separator: ".")[1]))) as? [String: Any])
        XCTAssertEqual(cappedClaims["exp"] as? Int, Int(now.timeIntervalSince1970) + 24 * 3600, "never more than a day")
        XCTAssertEqual(cappedClaims["aud"] as? String, "http://127.0.0.1:8099")

        // The key round-trips through its text (VAPID_PRIVATE_KEY, the database).
        let again = try XCTUnwrap(VAPID.privateKey(fromText: vapid.privateKeyText))
        XCTAssertEqual(again.publicKey.x963Representation, vapid.privateKey.publicKey.x963Representation)
        XCTAssertNil(VAPID.privateKey(fromText: "short"))
    }
}
