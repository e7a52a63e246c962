import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOFoundationEssentialsCompat
package import XCTVapor

/// A small HTTP server speaking Solapi's message API as docs.solapi.com describes it, checking each
/// request as Solapi would before it answers:
/// - `Authorization: HMAC-SHA256 apiKey=…, date=…, salt=…, signature=…`: a known key, an ISO 8601
///   date within 15 minutes, a salt of 12 to 64 characters, the hex HMAC-SHA256 of date + salt
///   under the secret, never the same signature twice (403 `InvalidAPIKey`,
///   `RequestTimeTooSkewed`, `SignatureDoesNotMatch`, `DuplicatedSignature`);
/// - `POST /messages/v4/send` with `{"message": {"to", "from", "text"}}`: JSON, a registered sender,
///   a Korean mobile number, text within 2,000 bytes (400 `ValidationError`, 400
///   `InvalidSenderNumber`), or a scripted refusal (402 `NotEnoughBalance`); answered with Solapi's
///   fields and status 2000;
/// - `GET /messages/v4/list?criteria=messageId&cond=eq&value=…`: the message as its carrier left
///   it (scripted: delivered 4000, failed with a code and reason, or still 3000).
package final class FakeSolapi: Sendable {
    package struct Sent: Sendable, Equatable {
        package let messageID: String
        package let to: String
        package let from: String
        package let text: String
    }

    package let app: Application
    package let url: String
    package let apiKey = "NCSFAKEKEY000001"
    package let apiSecret = "FAKESECRETFAKESECRETFAKESECRET01"
    package let sender = "0212345678"
    private let sent = NIOLockedValueBox<[Sent]>([])
    private let statuses = NIOLockedValueBox<[String: (code: String, reason: String?)]>([:])
    private let signatures = NIOLockedValueBox<Set<String>>([])
    private let refusals = NIOLockedValueBox<[(status: HTTPStatus, code: String)]>([])
    private let refusedAuthorizations = NIOLockedValueBox<[String]>([])

    private init(app: Application, url: String) {
        self.app = app
        self.url = url
    }

    /// `SMS_URL` for this stand-in.
    package var smsURL: String { "solapi+http://\(apiKey):\(apiSecret)@\(url.dropFirst("http://".count))?from=02-1234-5678" }

    package static func start() async throws -> FakeSolapi {
        let app = try await Application.make(.testing)
        let port = try freePort()
        let fake = FakeSolapi(app: app, url: "http://127.0.0.1:\(port)")
        app.post("messages", "v4", "send") { [fake] req async throws -> Response in
            if let refusal = fake.checkAuthorization(req) { return refusal }
            if let scripted = fake.refusals.withLockedValue({ $0.isEmpty ? nil : $0.removeFirst() }) {
                return fake.error(scripted.status, scripted.code, "scripted")
            }
            guard req.headers.contentType == .json, let body = req.body.data,
                  let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
                  let message = object["message"] as? [String: Any],
                  let to = message["to"] as? String, let from = message["from"] as? String, let text = message["text"] as? String else {
                return fake.error(.badRequest, "ValidationError", "message.to, message.from, message.text are required")
            }
            guard from == fake.sender else { return fake.error(.badRequest, "InvalidSenderNumber", "발신번호가 등록되어 있지 않습니다.") }
            guard to.range(of: #"^01[016789][0-9]{7,8}$"#, options: .regularExpression) != nil else {
                return fake.error(.badRequest, "ValidationError", "수신번호 형식이 올바르지 않습니다.")
            }
            guard !text.isEmpty, text.utf8.count <= 2_000 else { return fake.error(.badRequest, "ValidationError", "text") }
            let id = "M4V" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(29)
            fake.sent.withLockedValue { $0.append(Sent(messageID: String(id), to: to, from: from, text: text)) }
            fake.statuses.withLockedValue { $0[String(id)] = ("2000", nil) }
            return try fake.json(["groupId": "G4V" + id.dropFirst(3), "to": to, "from": from, "type": "SMS",
                                  "statusMessage": "정상 접수(이통사로 접수 예정) ", "country": "82", "messageId": id,
                                  "statusCode": "2000", "accountId": "12925149"])
        }
        app.get("messages", "v4", "list") { [fake] req async throws -> Response in
            if let refusal = fake.checkAuthorization(req) { return refusal }
            guard req.query[String.self, at: "criteria"] == "messageId", req.query[String.self, at: "cond"] == "eq",
                  let id = req.query[String.self, at: "value"] else { return fake.error(.badRequest, "ValidationError", "criteria") }
            var list: [String: Any] = [:]
            if let status = fake.statuses.withLockedValue({ $0[id] }) {
                list[id] = ["_id": id, "messageId": id, "statusCode": status.code, "reason": status.reason as Any? ?? NSNull(), "country": "82"]
            }
            return try fake.json(["startKey": NSNull(), "limit": 20, "messageList": list])
        }
        try await app.server.start(address: .hostname("127.0.0.1", port: port))
        return fake
    }

    package func stop() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    package var messages: [Sent] { sent.withLockedValue { $0 } }
    /// The error codes of requests refused for their signature, in order.
    package var authorizationRefusals: [String] { refusedAuthorizations.withLockedValue { $0 } }

    /// The next sends are refused so (402 `NotEnoughBalance`, 500 …).
    package func refuseNext(_ status: HTTPStatus, _ code: String) {
        refusals.withLockedValue { $0.append((status, code)) }
    }

    /// What the carrier did with a message: `4000` delivered, `3059` failed…
    package func carrier(_ messageID: String, status code: String, reason: String? = nil) {
        statuses.withLockedValue { $0[messageID] = (code, reason) }
    }

    private func checkAuthorization(_ req: Request) -> Response? {
        let refusal: String? = {
            guard let header = req.headers.first(name: .authorization),
                  let match = header.wholeMatch(of: /HMAC-SHA256 apiKey=([^,\s]+), date=([^,\s]+), salt=([^,\s]+), signature=([0-9a-f]{64})/) else {
                return "InvalidAuthorization"
            }
            let (key, dateText, salt, signature) = (String(match.1), String(match.2), String(match.3), String(match.4))
            guard key == apiKey else { return "InvalidAPIKey" }
            guard let date = ISO8601DateFormatter().date(from: dateText), abs(date.timeIntervalSinceNow) <= 900 else { return "RequestTimeTooSkewed" }
            guard (12...64).contains(salt.count) else { return "InvalidAuthorization" }
            let expected = HMAC<SHA256>.authenticationCode(for: Data((dateText + salt).utf8), using: SymmetricKey(data: Data(apiSecret.utf8)))
            guard expected.map({ String(format: "%02x", $0) }).joined() == signature else { return "SignatureDoesNotMatch" }
            guard signatures.withLockedValue({ $0.insert(signature).inserted }) else { return "DuplicatedSignature" }
            return nil
        }()
        guard let refusal else { return nil }
        refusedAuthorizations.withLockedValue { $0.append(refusal) }
        return error(.forbidden, refusal, "authorization refused")
    }

    private func error(_ status: HTTPStatus, _ code: String, _ message: String) -> Response {
        let body = (try? JSONSerialization.data(withJSONObject: ["errorCode": code, "errorMessage": message])) ?? Data()
        return Response(status: status, headers: ["Content-Type": "application/json"], body: .init(data: body))
    }

    private func json(_ object: [String: Any]) throws -> Response {
        Response(status: .ok, headers: ["Content-Type": "application/json"], body: .init(data: try JSONSerialization.data(withJSONObject: object)))
    }
}
