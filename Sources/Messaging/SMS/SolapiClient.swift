package import AsyncHTTPClient
import Crypto
package import Foundation
package import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
package import Vapor

/// Where and as whom text messages go: one setting, `SMS_URL`.
///
/// `solapi://API_KEY:API_SECRET@api.solapi.com?from=0212345678` — Solapi (solapi.com, Korea's
/// CoolSMS), its key pair from the console's "API Key 관리" and a sender number registered there
/// (발신번호 사전 등록: a number not registered is refused). `solapi+http://…` talks plain HTTP to a
/// local stand-in (the tests' `FakeSolapi`); never use it for the real service.
package struct SMSConfiguration: Sendable, Equatable {
    package let apiKey: String
    package let apiSecret: String
    /// The registered sender number, digits only (`0212345678`, `16001234`).
    package let sender: String
    /// `https://api.solapi.com` (or the stand-in's `http://127.0.0.1:PORT`).
    package let baseURL: String

    package enum ConfigurationError: Error, Equatable, CustomStringConvertible {
        case notSolapi, missingCredentials, missingSender, badSender
        package var description: String {
            switch self {
            case .notSolapi: return "the scheme must be solapi:// (or solapi+http:// for a local stand-in)"
            case .missingCredentials: return "API key and secret go before the host: solapi://KEY:SECRET@api.solapi.com"
            case .missingSender: return "the registered sender number goes in ?from="
            case .badSender: return "the sender number is 8 to 12 digits (hyphens allowed)"
            }
        }
    }

    package init(apiKey: String, apiSecret: String, sender: String, baseURL: String = "https://api.solapi.com") {
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.sender = sender
        self.baseURL = baseURL
    }

    package init(url text: String) throws(ConfigurationError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "solapi" || scheme == "solapi+http", let host = components.host, !host.isEmpty else { throw .notSolapi }
        guard let key = components.percentEncodedUser.flatMap({ $0.removingPercentEncoding }), !key.isEmpty,
              let secret = components.percentEncodedPassword.flatMap({ $0.removingPercentEncoding }), !secret.isEmpty else { throw .missingCredentials }
        guard let from = components.queryItems?.first(where: { $0.name == "from" })?.value else { throw .missingSender }
        let digits = from.filter { $0 != "-" }
        guard (8...12).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw .badSender }
        let port = components.port.map { ":\($0)" } ?? ""
        self.init(apiKey: key, apiSecret: secret, sender: digits, baseURL: (scheme == "solapi" ? "https://" : "http://") + host + port)
    }
}

/// What Solapi said of a message sent.
package struct SentSMS: Sendable, Equatable {
    package let messageID: String
    /// `2000` (accepted, on its way to the carrier).
    package let statusCode: String
}

/// Where a message is: still on its way, on the phone, or failed (with Solapi's code and reason).
package enum SMSDeliveryStatus: Sendable, Equatable {
    case pending
    case delivered
    case failed(code: String, reason: String?)

    /// Solapi's message status codes: 2000 accepted, 3000 with the carrier, 4000 received;
    /// anything else is a failure (3xxx the carrier's, 1xxx/2xxx before it left).
    package init(statusCode: String, reason: String?) {
        switch statusCode {
        case "4000": self = .delivered
        case "2000", "3000": self = .pending
        default: self = .failed(code: statusCode, reason: reason)
        }
    }
}

package enum SMSError: Error, Equatable, CustomStringConvertible {
    /// Solapi refused the request (4xx: a bad number, an unregistered sender, no balance, wrong
    /// credentials); sending the same again will not help.
    case refused(status: Int, code: String, message: String)
    /// No answer or a 5xx: try later.
    case unavailable(String)

    package var description: String {
        switch self {
        case let .refused(status, code, message): return "Solapi refused (\(status) \(code)): \(message)"
        case let .unavailable(reason): return "Solapi unreachable: \(reason)"
        }
    }
}

/// Solapi's REST API (docs.solapi.com): `POST /messages/v4/send` for one message and
/// `GET /messages/v4/list?criteria=messageId…` for where it is, each request signed with
/// `Authorization: HMAC-SHA256 apiKey=…, date=…, salt=…, signature=hex(HMAC-SHA256(secret, date + salt))`
/// (a date within 15 minutes of theirs, a salt never used twice). Never follows a redirect.
package struct SolapiClient: Sendable {
    let configuration: SMSConfiguration
    let client: HTTPClient
    let timeout: TimeAmount

    package init(configuration: SMSConfiguration, client: HTTPClient, timeout: TimeAmount = .seconds(10)) {
        self.configuration = configuration
        self.client = client
        self.timeout = timeout
    }

    package static func makeClient(on group: any EventLoopGroup) -> HTTPClient {
        HTTPClient(eventLoopGroupProvider: .shared(group), configuration: .init(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(10))))
    }

    /// The `Authorization` header for a request made at `date` with `salt`.
    package static func authorization(apiKey: String, apiSecret: String, date: Date, salt: String) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let dateText = formatter.string(from: date)
        let signature = HMAC<SHA256>.authenticationCode(for: Data((dateText + salt).utf8), using: SymmetricKey(data: Data(apiSecret.utf8)))
        let hex = signature.map { String(format: "%02x", $0) }.joined()
        return "HMAC-SHA256 apiKey=\(apiKey), date=\(dateText), salt=\(salt), signature=\(hex)"
    }

    /// A fresh salt: 32 hex characters (Solapi asks for 12 to 64 random bytes of text).
    static func salt() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Sends `text` to a Korean number written nationally (`01012345678`).
    package func send(to number: String, text: String, now: Date) async throws(SMSError) -> SentSMS {
        struct Body: Encodable {
            struct Message: Encodable { let to, from, text: String }
            let message: Message
        }
        struct Answer: Decodable { let messageId: String; let statusCode: String }
        let body: Data
        do { body = try JSONEncoder().encode(Body(message: .init(to: number, from: configuration.sender, text: text))) } catch {
            throw .unavailable("\(error)")
        }
        let answer: Answer = try await call(.POST, "/messages/v4/send", body: body, now: now)
        return SentSMS(messageID: answer.messageId, statusCode: answer.statusCode)
    }

    /// Where a message sent earlier is.
    package func status(of messageID: String, now: Date) async throws(SMSError) -> SMSDeliveryStatus {
        struct Listed: Decodable { let statusCode: String; let reason: String? }
        struct Answer: Decodable { let messageList: [String: Listed]? }
        var query = URLComponents()
        query.queryItems = [.init(name: "criteria", value: "messageId"), .init(name: "cond", value: "eq"), .init(name: "value", value: messageID)]
        let answer: Answer = try await call(.GET, "/messages/v4/list?" + (query.percentEncodedQuery ?? ""), body: nil, now: now)
        guard let listed = answer.messageList?[messageID] else { return .pending }  // not listed yet
        return SMSDeliveryStatus(statusCode: listed.statusCode, reason: listed.reason)
    }

    /// Solapi's error body.
    private struct Refusal: Decodable { let errorCode: String?; let errorMessage: String? }

    private func call<Answer: Decodable>(_ method: HTTPMethod, _ path: String, body: Data?, now: Date) async throws(SMSError) -> Answer {
        var request = HTTPClientRequest(url: configuration.baseURL + path)
        request.method = method
        request.headers.add(name: "Authorization", value: Self.authorization(apiKey: configuration.apiKey, apiSecret: configuration.apiSecret,
                                                                            date: now, salt: Self.salt()))
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: body))
        }
        let status: Int, bytes: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: timeout)
            status = Int(response.status.code)
            bytes = try await response.body.collect(upTo: 256 * 1024)
        } catch {
            throw .unavailable("\(error)")
        }
        let data = Data(buffer: bytes)
        guard (200...299).contains(status) else {
            let refusal = try? JSONDecoder().decode(Refusal.self, from: data)
            if status >= 500 || status == 429 { throw .unavailable("\(status) \(refusal?.errorCode ?? "")") }
            throw .refused(status: status, code: refusal?.errorCode ?? "\(status)", message: refusal?.errorMessage ?? "")
        }
        do { return try JSONDecoder().decode(Answer.self, from: data) } catch {
            throw .unavailable("an answer that does not read: \(error)")
        }
    }
}

/// Shuts a client of ours (pushes, text messages) down with the application.
package struct HTTPClientShutdown: LifecycleHandler {
    let client: HTTPClient

    package init(client: HTTPClient) {
        self.client = client
    }

    package func shutdownAsync(_ application: Application) async {
        try? await client.shutdown()
    }
}
