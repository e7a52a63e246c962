import _CryptoExtras
package import AsyncHTTPClient
import Crypto
package import Foundation
import NIOConcurrencyHelpers
package import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
package import Platform

/// One message to one app install through FCM HTTP v1: what its notification shows and the data
/// the app routes with.
package struct FCMMessage: Sendable, Equatable, Codable {
    /// The install's registration token.
    package let token: String
    package let title: String
    package let body: String
    /// Strings only (FCM's rule): what the app reads to open the right screen.
    package let data: [String: String]
    /// A newer message with the same key replaces one still waiting (one conversation).
    package let collapseKey: String?
    /// Seconds FCM keeps it for a phone that is away.
    package let timeToLive: Int

    package init(token: String, title: String, body: String, data: [String: String] = [:], collapseKey: String? = nil, timeToLive: Int = 24 * 3600) {
        self.token = token
        self.title = title
        self.body = body
        self.data = data
        self.collapseKey = collapseKey
        self.timeToLive = timeToLive
    }

    /// The request's JSON (`{"message": …}`), with the Android and APNs parts a background app
    /// needs to be woken with a sound.
    func requestBody() throws -> Data {
        var android: [String: Any] = ["priority": "high", "ttl": "\(timeToLive)s"]
        var apnsHeaders: [String: String] = ["apns-priority": "10"]
        if let collapseKey {
            android["collapse_key"] = collapseKey
            apnsHeaders["apns-collapse-id"] = String(collapseKey.prefix(64))
        }
        let message: [String: Any] = [
            "token": token,
            "notification": ["title": title, "body": body],
            "data": data,
            "android": android,
            "apns": ["headers": apnsHeaders, "payload": ["aps": ["sound": "default"]]],
        ]
        return try JSONSerialization.data(withJSONObject: ["message": message], options: [.sortedKeys])
    }
}

/// What FCM said of a message.
package enum FCMDelivery: Sendable, Equatable {
    /// Accepted: FCM will deliver it.
    case accepted
    /// The token is no good any more (`UNREGISTERED`, or `INVALID_ARGUMENT` for it): forget it.
    case gone(reason: String)
    /// Not now (429, 5xx, no answer, the access token not to be had): again after this many
    /// seconds when FCM said.
    case later(retryAfter: TimeInterval?)
    /// Refused for good (401 and 403 after a fresh access token, a sender mismatch…).
    case refused(status: Int, reason: String)
    /// No service account for the token's project: nothing can be sent to it.
    case noAccount
}

/// A real client of FCM HTTP v1: `POST {FCM_API_URL}/v1/projects/{project}/messages:send`,
/// authorised by the project's service account — a JWT signed with its key (RS256), exchanged at
/// its `token_uri` for an access token that is kept until a minute before it expires. One account
/// per Firebase project (each 새싹 app has its own).
package final class FCMSender: Sendable {
    package let accounts: [String: FCMServiceAccount]
    let apiURL: String
    let client: HTTPClient
    let now: Now
    let timeout: TimeAmount
    private let accessTokens = NIOLockedValueBox<[String: (token: String, expiresAt: Date)]>([:])

    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    package init(accounts: [FCMServiceAccount], apiURL: String, client: HTTPClient, now: @escaping Now, timeout: TimeAmount = .seconds(10)) {
        self.accounts = Dictionary(accounts.map { ($0.projectID, $0) }, uniquingKeysWith: { first, _ in first })
        self.apiURL = apiURL.hasSuffix("/") ? String(apiURL.dropLast()) : apiURL
        self.client = client
        self.now = now
        self.timeout = timeout
    }

    /// Sends `message` to an install of `project`'s app.
    package func send(_ message: FCMMessage, project: String) async -> FCMDelivery {
        guard let account = accounts[project] else { return .noAccount }
        let first = await attempt(message, account: account)
        // A 401 may be an access token revoked early: one more try with a fresh one.
        guard case .refused(401, _) = first else { return first }
        accessTokens.withLockedValue { $0[project] = nil }
        return await attempt(message, account: account)
    }

    private func attempt(_ message: FCMMessage, account: FCMServiceAccount) async -> FCMDelivery {
        let accessToken: String
        do {
            accessToken = try await self.accessToken(for: account)
        } catch {
            return .later(retryAfter: nil)
        }
        var request = HTTPClientRequest(url: "\(apiURL)/v1/projects/\(account.projectID)/messages:send")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(accessToken)")
        request.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        do {
            request.body = .bytes(ByteBuffer(data: try message.requestBody()))
        } catch {
            return .refused(status: 0, reason: "unencodable")
        }
        do {
            let response = try await client.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: 64 * 1024)
            return Self.delivery(status: Int(response.status.code), body: Data(buffer: body),
                                 retryAfter: response.headers.first(name: "Retry-After"), now: now())
        } catch {
            return .later(retryAfter: nil)
        }
    }

    /// How FCM's answer is read (its documented errors: `UNREGISTERED` is a token gone;
    /// `INVALID_ARGUMENT` a token that is not one; `QUOTA_EXCEEDED` and `UNAVAILABLE` come back).
    package static func delivery(status: Int, body: Data, retryAfter: String?, now: Date) -> FCMDelivery {
        if (200...299).contains(status) { return .accepted }
        let error = (try? JSONDecoder().decode(ErrorAnswer.self, from: body))?.error
        let code = error?.details?.compactMap(\.errorCode).first ?? error?.status ?? "HTTP_\(status)"
        switch (status, code) {
        case (_, "UNREGISTERED"), (404, _): return .gone(reason: code)
        case (400, "INVALID_ARGUMENT"):
            // Only a bad token is the token's fault; our own bad message is ours (kept, logged).
            let aboutToken = error?.message?.localizedCaseInsensitiveContains("token") ?? true
            return aboutToken ? .gone(reason: code) : .refused(status: status, reason: code)
        case (429, _), (500...599, _):
            return .later(retryAfter: retryAfter.flatMap { WebPushSender.seconds(in: $0, now: now) })
        default: return .refused(status: status, reason: code)
        }
    }

    private struct ErrorAnswer: Decodable {
        struct Body: Decodable {
            struct Detail: Decodable { let errorCode: String? }
            let status: String?
            let message: String?
            let details: [Detail]?
        }
        let error: Body
    }

    // MARK: The access token

    /// The project's access token: kept until a minute before it expires, else a new one.
    func accessToken(for account: FCMServiceAccount) async throws -> String {
        let time = now()
        if let kept = accessTokens.withLockedValue({ $0[account.projectID] }), kept.expiresAt > time.addingTimeInterval(60) {
            return kept.token
        }
        var request = HTTPClientRequest(url: account.tokenURI)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let assertion = try Self.assertion(for: account, at: time)
        request.body = .bytes(ByteBuffer(string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"))
        let response = try await client.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 64 * 1024)
        struct Granted: Decodable { let access_token: String; let expires_in: Int? }
        guard response.status == .ok, let granted = try? JSONDecoder().decode(Granted.self, from: Data(buffer: body)) else {
            throw FCMTokenRefused(status: Int(response.status.code))
        }
        let expiresAt = time.addingTimeInterval(TimeInterval(granted.expires_in ?? 3600))
        accessTokens.withLockedValue { $0[account.projectID] = (granted.access_token, expiresAt) }
        return granted.access_token
    }

    /// The signed JWT the token endpoint takes (RFC 7523): issued by the account, for its token
    /// endpoint, with FCM's scope, for an hour.
    static func assertion(for account: FCMServiceAccount, at time: Date) throws -> String {
        struct Claims: Encodable { let iss, scope, aud: String; let iat, exp: Int }
        let issued = Int(time.timeIntervalSince1970)
        let header = Data(#"{"alg":"RS256","typ":"JWT"}"#.utf8).base64URLEncodedString()
        let claims = try JSONEncoder().encode(Claims(iss: account.clientEmail, scope: scope, aud: account.tokenURI, iat: issued, exp: issued + 3600))
        let signingInput = header + "." + claims.base64URLEncodedString()
        let signature = try account.privateKey.signature(for: SHA256.hash(data: Data(signingInput.utf8)), padding: .insecurePKCS1v1_5)
        return signingInput + "." + signature.rawRepresentation.base64URLEncodedString()
    }
}

/// The token endpoint refused the service account's JWT (a revoked key, a wrong clock).
struct FCMTokenRefused: Error { let status: Int }
