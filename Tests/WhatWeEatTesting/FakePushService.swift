package import Crypto
package import Foundation
import NIOConcurrencyHelpers
import NIOFoundationEssentialsCompat
import Platform
package import XCTVapor

/// A small HTTP server taking Web Push requests (RFC 8030) as a browser's push service would:
/// `POST /push/{id}` is recorded with its headers and body and answered 201, or as scripted per id
/// (410 for a gone subscription, 503 with `Retry-After` for a busy service), or slowly, as a push
/// service that answers after 30 s (`answerSlowly`).
package final class FakePushService: Sendable {
    package struct Received: Sendable {
        package let id: String
        package let headers: HTTPHeaders
        package let body: Data
    }

    package let app: Application
    package let url: String
    private let received = NIOLockedValueBox<[Received]>([])
    /// Per id, the answers to give before 201: status and `Retry-After`.
    private let script = NIOLockedValueBox<[String: [(status: HTTPStatus, retryAfter: String?)]]>([:])
    /// Whether requests are held (up to 30 s), and how many are held now.
    private let slowness = NIOLockedValueBox<(slow: Bool, held: Int)>((false, 0))

    private init(app: Application, url: String) {
        self.app = app
        self.url = url
    }

    package static func start() async throws -> FakePushService {
        let app = try await Application.make(.testing)
        let port = try freePort()
        let fake = FakePushService(app: app, url: "http://127.0.0.1:\(port)")
        app.post("push", ":id") { [fake] req async throws -> Response in
            let id = req.parameters.get("id") ?? ""
            let body = req.body.data.map { Data(buffer: $0) } ?? Data()
            fake.received.withLockedValue { $0.append(Received(id: id, headers: req.headers, body: body)) }
            if fake.slowness.withLockedValue({ state -> Bool in
                if state.slow { state.held += 1 }
                return state.slow
            }) {
                let since = ContinuousClock.now
                while fake.slowness.withLockedValue({ $0.slow }), ContinuousClock.now - since < .seconds(30) {
                    try await Task.sleep(for: .milliseconds(50))
                }
                fake.slowness.withLockedValue { $0.held -= 1 }
            }
            let next = fake.script.withLockedValue { script -> (status: HTTPStatus, retryAfter: String?)? in
                guard var answers = script[id], !answers.isEmpty else { return nil }
                let first = answers.removeFirst()
                script[id] = answers
                return first
            }
            guard let next else { return Response(status: .created) }
            let response = Response(status: next.status)
            if let retryAfter = next.retryAfter { response.headers.replaceOrAdd(name: "Retry-After", value: retryAfter) }
            return response
        }
        try await app.server.start(address: .hostname("127.0.0.1", port: port))
        return fake
    }

    package func stop() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    /// Answers `id`'s next requests so, then 201 again.
    package func answer(_ id: String, with answers: [(status: HTTPStatus, retryAfter: String?)]) {
        script.withLockedValue { $0[id] = answers }
    }

    package var requests: [Received] { received.withLockedValue { $0 } }

    /// Holds every request from now on for 30 s before answering it (or until `answerNow`).
    package func answerSlowly() { slowness.withLockedValue { $0.slow = true } }

    /// Answers the held requests, and the next ones, at once.
    package func answerNow() { slowness.withLockedValue { $0.slow = false } }

    /// Requests received and not yet answered.
    package var held: Int { slowness.withLockedValue { $0.held } }

    package func requests(to id: String) -> [Received] { requests.filter { $0.id == id } }
}

/// A browser's side of Web Push: its key pair and auth secret, and the decryption of what arrives
/// (RFC 8291 §3.4, RFC 8188), written from the RFC and checked against its example.
package struct PushReceiverKeys: Sendable {
    package let privateKey: P256.KeyAgreement.PrivateKey
    package let auth: Data

    package init(privateKey: P256.KeyAgreement.PrivateKey = .init(), auth: Data = Data((0..<16).map { _ in UInt8.random(in: 0...255) })) {
        self.privateKey = privateKey
        self.auth = auth
    }

    /// `PushSubscription.toJSON()` for an endpoint.
    package func subscription(_ endpoint: String) -> [String: Any] {
        ["endpoint": endpoint, "expirationTime": NSNull(),
         "keys": ["p256dh": privateKey.publicKey.x963Representation.base64URLEncodedString(), "auth": auth.base64URLEncodedString()]]
    }

    package struct Undecryptable: Error {}

    /// The message in an `aes128gcm` body with one record.
    package func decrypt(_ body: Data) throws -> Data {
        let bytes = [UInt8](body)
        guard bytes.count > 21 else { throw Undecryptable() }
        let salt = Data(bytes[0..<16])
        let keyLength = Int(bytes[20])
        guard bytes.count > 21 + keyLength + 16 else { throw Undecryptable() }
        let senderPublic = Data(bytes[21..<(21 + keyLength)])
        let record = Data(bytes[(21 + keyLength)...])
        let shared = try privateKey.sharedSecretFromKeyAgreement(with: try P256.KeyAgreement.PublicKey(x963Representation: senderPublic))
        let keyInfo = Data("WebPush: info".utf8) + [0] + privateKey.publicKey.x963Representation + senderPublic
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: auth, sharedInfo: keyInfo, outputByteCount: 32)
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Data("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.deriveKey(inputKeyMaterial: ikm, salt: salt, info: Data("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        let box = try AES.GCM.SealedBox(nonce: try AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }),
                                        ciphertext: record.dropLast(16), tag: record.suffix(16))
        var plain = [UInt8](try AES.GCM.open(box, using: key))
        // Padding zeros, then the last record's delimiter.
        while plain.last == 0 { plain.removeLast() }
        guard plain.last == 2 else { throw Undecryptable() }
        plain.removeLast()
        return Data(plain)
    }
}
