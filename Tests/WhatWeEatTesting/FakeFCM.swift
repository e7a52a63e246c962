import _CryptoExtras
import Crypto
package import Foundation
import NIOConcurrencyHelpers
import NIOFoundationEssentialsCompat
package import Platform
package import XCTVapor

/// A small HTTP server speaking FCM HTTP v1 as Google does, for one or more Firebase projects:
/// - `POST /token`: a service account's signed JWT (RFC 7523) for an access token — the JWT's
///   signature is checked with the public half of the project's key, and its issuer, audience,
///   scope and times with the key's own;
/// - `POST /v1/projects/{project}/messages:send`: a message, with an access token issued for that
///   project; recorded, and answered 200 or as scripted per registration token (`UNREGISTERED`,
///   `INVALID_ARGUMENT`, 503 with `Retry-After`, 401).
/// `serviceAccountJSON(project:)` gives the key file the Firebase console would.
package final class FakeFCM: Sendable {
    package struct Sent: Sendable {
        package let project: String
        /// The whole `message` object as sent.
        package let message: [String: any Sendable]
        package var token: String? { message["token"] as? String }
        package var notification: [String: String] { message["notification"] as? [String: String] ?? [:] }
        package var data: [String: String] { message["data"] as? [String: String] ?? [:] }
    }

    package enum Answer: Sendable {
        case unregistered, invalidToken, unavailable(retryAfter: String?), unauthorized
    }

    package let app: Application
    package let url: String
    private let keys: [String: _RSA.Signing.PrivateKey]
    private let sent = NIOLockedValueBox<[Sent]>([])
    private let issued = NIOLockedValueBox<[String: String]>([:])  // access token → project
    private let exchanges = NIOLockedValueBox<Int>(0)
    private let refusedAssertions = NIOLockedValueBox<Int>(0)
    private let script = NIOLockedValueBox<[String: [Answer]]>([:])
    /// Google's clock, which a JWT's `iat` must be near (a test that moves its sender's clock moves this one too).
    private let now: Now

    private init(app: Application, url: String, keys: [String: _RSA.Signing.PrivateKey], now: @escaping Now) {
        self.app = app
        self.url = url
        self.keys = keys
        self.now = now
    }

    package static func start(projects: [String], now: @escaping Now = { Date() }) async throws -> FakeFCM {
        let app = try await Application.make(.testing)
        let port = try freePort()
        var keys: [String: _RSA.Signing.PrivateKey] = [:]
        for project in projects { keys[project] = try _RSA.Signing.PrivateKey(keySize: .bits2048) }
        let fake = FakeFCM(app: app, url: "http://127.0.0.1:\(port)", keys: keys, now: now)
        app.post("token") { [fake] req async throws -> Response in try fake.exchange(req) }
        app.post("v1", "projects", ":project", "messages:send") { [fake] req async throws -> Response in try fake.receive(req) }
        try await app.server.start(address: .hostname("127.0.0.1", port: port))
        return fake
    }

    package func stop() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    /// The service account's JSON key for `project`, as the Firebase console downloads it, its
    /// `token_uri` this server's. `signedBy` another project's key: a key the server does not know.
    package func serviceAccountJSON(project: String, signedBy other: String? = nil) -> String {
        let pem = keys[other ?? project]?.pemRepresentation ?? ""
        let key: [String: String] = [
            "type": "service_account", "project_id": project, "private_key_id": "fake",
            "private_key": pem, "client_email": "firebase-adminsdk@\(project).iam.gserviceaccount.com",
            "client_id": "1", "token_uri": "\(url)/token",
        ]
        return String(decoding: try! JSONSerialization.data(withJSONObject: key, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Answers the next messages to `token` so, then 200 again.
    package func answer(_ token: String, with answers: [Answer]) { script.withLockedValue { $0[token] = answers } }

    package var messages: [Sent] { sent.withLockedValue { $0 } }
    /// How many access tokens were handed out.
    package var tokenExchanges: Int { exchanges.withLockedValue { $0 } }
    /// How many JWTs were refused (bad signature, issuer, audience, scope or time).
    package var refusedJWTs: Int { refusedAssertions.withLockedValue { $0 } }

    /// Waits up to `seconds` for `count` messages.
    package func waitForMessages(_ count: Int, seconds: Double = 10) async throws -> [Sent] {
        let deadline = Date().addingTimeInterval(seconds)
        while messages.count < count, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        return messages
    }

    // MARK: The endpoints

    private func exchange(_ req: Request) throws -> Response {
        let form = String(decoding: req.body.data.map { Data(buffer: $0) } ?? Data(), as: UTF8.self)
        let fields = Dictionary(form.split(separator: "&").map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }, uniquingKeysWith: { first, _ in first })
        guard fields["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = fields["assertion"],
              let project = verifiedProject(of: assertion) else {
            refusedAssertions.withLockedValue { $0 += 1 }
            return Self.json(#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#, status: .badRequest)
        }
        let token = "ya29.fake-" + UUID().uuidString
        issued.withLockedValue { $0[token] = project }
        exchanges.withLockedValue { $0 += 1 }
        return Self.json(#"{"access_token":"\#(token)","expires_in":3599,"token_type":"Bearer"}"#)
    }

    /// The project whose key signed `jwt`, when its claims are what Google checks.
    private func verifiedProject(of jwt: String) -> String? {
        let parts = jwt.split(separator: ".").map(String.init)
        guard parts.count == 3, let header = Data(base64URLEncoded: parts[0]), let claimsData = Data(base64URLEncoded: parts[1]),
              let signature = Data(base64URLEncoded: parts[2]),
              (try? JSONSerialization.jsonObject(with: header) as? [String: String])?["alg"] == "RS256",
              let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any],
              let issuer = claims["iss"] as? String, let iat = claims["iat"] as? Int, let exp = claims["exp"] as? Int else { return nil }
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        for (project, key) in keys where issuer == "firebase-adminsdk@\(project).iam.gserviceaccount.com" {
            guard key.publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: signed),
                                                 padding: .insecurePKCS1v1_5),
                  claims["aud"] as? String == "\(url)/token", claims["scope"] as? String == "https://www.googleapis.com/auth/firebase.messaging",
                  exp > iat, exp - iat <= 3600, abs(Double(iat) - now().timeIntervalSince1970) < 600 else { return nil }
            return project
        }
        return nil
    }

    private func receive(_ req: Request) throws -> Response {
        let project = req.parameters.get("project") ?? ""
        let bearer = req.headers.first(name: .authorization).flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        guard let bearer, issued.withLockedValue({ $0[bearer] }) == project else {
            return Self.error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
        }
        guard let body = req.body.data.map({ Data(buffer: $0) }),
              let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let message = object["message"] as? [String: Any], let token = message["token"] as? String else {
            return Self.error(400, "INVALID_ARGUMENT", "Invalid JSON payload received.")
        }
        let next = script.withLockedValue { script -> Answer? in
            guard var answers = script[token], !answers.isEmpty else { return nil }
            let first = answers.removeFirst()
            script[token] = answers
            return first
        }
        switch next {
        case .unregistered?: return Self.error(404, "NOT_FOUND", "Requested entity was not found.", fcmCode: "UNREGISTERED")
        case .invalidToken?: return Self.error(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token",
                                               fcmCode: "INVALID_ARGUMENT")
        case .unavailable(let retryAfter)?:
            let response = Self.error(503, "UNAVAILABLE", "The service is currently unavailable.", fcmCode: "UNAVAILABLE")
            if let retryAfter { response.headers.replaceOrAdd(name: "Retry-After", value: retryAfter) }
            return response
        case .unauthorized?:
            issued.withLockedValue { $0[bearer] = nil }
            return Self.error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
        case nil:
            sent.withLockedValue { $0.append(Sent(project: project, message: Self.sendable(message))) }
            return Self.json(#"{"name":"projects/\#(project)/messages/\#(UUID().uuidString)"}"#)
        }
    }

    private static func sendable(_ message: [String: Any]) -> [String: any Sendable] {
        message.mapValues { value -> any Sendable in
            if let dictionary = value as? [String: String] { return dictionary }
            if let nested = value as? [String: Any] { return sendable(nested) }
            return value as? String ?? String(describing: value)
        }
    }

    private static func json(_ text: String, status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json; charset=UTF-8"], body: .init(string: text))
    }

    private static func error(_ code: Int, _ status: String, _ message: String, fcmCode: String? = nil) -> Response {
        let details = fcmCode.map { #","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#($0)"}]"# } ?? ""
        return json(#"{"error":{"code":\#(code),"message":"\#(message)","status":"\#(status)"\#(details)}}"#, status: HTTPStatus(statusCode: code))
    }
}
