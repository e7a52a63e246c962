package import AsyncHTTPClient
package import Foundation
package import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1

/// One push message (RFC 8030 §5): what the browser's service worker receives, and how the push
/// service should hold it.
package struct PushMessage: Sendable, Equatable {
    package enum Urgency: String, Sendable {
        case veryLow = "very-low", low, normal, high
    }

    /// The JSON the service worker reads (at most `WebPushEncryption.maxPlaintext` bytes).
    package let payload: Data
    /// Seconds the push service keeps it for a browser that is away.
    package let timeToLive: Int
    package let urgency: Urgency
    /// A newer message with the same topic replaces one still waiting (one conversation, one
    /// waiting message). At most 32 characters of the base64url alphabet.
    package let topic: String?

    package init(payload: Data, timeToLive: Int, urgency: Urgency, topic: String?) {
        self.payload = payload
        self.timeToLive = timeToLive
        self.urgency = urgency
        self.topic = topic.map { String($0.filter { $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII || $0 == "-" || $0 == "_" }.prefix(32)) }
    }
}

/// What a push service said of a message.
package enum PushDelivery: Sendable, Equatable {
    /// Accepted (201): the push service will deliver it.
    case accepted
    /// The subscription is gone (404, 410): forget it.
    case gone
    /// Not now (429, 5xx, no answer): again after this many seconds when the service said.
    case later(retryAfter: TimeInterval?)
    /// Refused for good (400, 401, 403, 413…): the request is wrong, sending again will not help.
    case refused(status: Int)
}

/// Sends encrypted, VAPID-signed messages to browsers' push services (RFC 8030, 8291, 8292) over
/// a client of its own that never follows a redirect (an endpoint's origin was checked when it
/// was subscribed; a redirect must not carry the request anywhere else).
package struct WebPushSender: Sendable {
    let client: HTTPClient
    let timeout: TimeAmount

    package init(client: HTTPClient, timeout: TimeAmount = .seconds(10)) {
        self.client = client
        self.timeout = timeout
    }

    /// A client for pushes: no redirects, short connects.
    package static func makeClient(on group: any EventLoopGroup) -> HTTPClient {
        HTTPClient(eventLoopGroupProvider: .shared(group), configuration: .init(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(10))))
    }

    package func send(_ message: PushMessage, to endpoint: String, keys: PushSubscriptionKeys, vapid: VAPID, now: Date) async -> PushDelivery {
        guard let url = URL(string: endpoint) else { return .refused(status: 0) }
        let body: Data
        let authorization: String
        do {
            body = try WebPushEncryption.encrypt(message.payload, to: keys)
            authorization = try vapid.authorization(for: url, now: now)
        } catch {
            return .refused(status: 0)
        }
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "Authorization", value: authorization)
        request.headers.add(name: "Content-Encoding", value: "aes128gcm")
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        request.headers.add(name: "TTL", value: String(message.timeToLive))
        request.headers.add(name: "Urgency", value: message.urgency.rawValue)
        if let topic = message.topic, !topic.isEmpty { request.headers.add(name: "Topic", value: topic) }
        request.body = .bytes(ByteBuffer(data: body))
        do {
            let response = try await client.execute(request, timeout: timeout)
            // The answer's body is not needed; reading a little frees the connection.
            _ = try? await response.body.collect(upTo: 16 * 1024)
            return Self.delivery(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"), now: now)
        } catch {
            return .later(retryAfter: nil)
        }
    }

    /// How a push service's answer is read.
    package static func delivery(status: Int, retryAfter: String?, now: Date) -> PushDelivery {
        switch status {
        case 200...299: return .accepted
        case 404, 410: return .gone
        case 429, 500...599: return .later(retryAfter: retryAfter.flatMap { seconds(in: $0, now: now) })
        default: return .refused(status: status)
        }
    }

    /// `Retry-After` as seconds from now: a number of seconds or an HTTP date.
    static func seconds(in retryAfter: String, now: Date) -> TimeInterval? {
        let text = retryAfter.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(text), seconds >= 0 { return TimeInterval(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text).map { max(0, $0.timeIntervalSince(now)) }
    }
}
