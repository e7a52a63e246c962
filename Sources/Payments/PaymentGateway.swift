package import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
public import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
package import Platform

/// A payment provider the server asks whether a payment happened. The client pays with the
/// provider directly; the server never trusts the client's word, only the provider's.
public protocol PaymentGateway: Sendable {
    /// Stored on the order (`portone`, `test`).
    var name: String { get }
    /// The payment with this provider id, as the provider reports it.
    func payment(id: String) async throws -> ProviderPayment
    /// Refunds a payment that did not pay for its order (wrong amount, cancelled order).
    func cancel(paymentID: String, reason: String) async throws
    /// Refunds `amount` of a payment and leaves the rest paid (one line of an order).
    /// `checksum` is what was still refundable before it, as this server counts it: the provider
    /// refuses when its own count differs (a refund already made, or made twice), so a retried
    /// partial refund never refunds twice.
    func cancel(paymentID: String, reason: String, amount: Int, checksum: Int) async throws
}

extension PaymentGateway {
    /// Providers without partial refunds say so; nothing is refunded.
    public func cancel(paymentID: String, reason: String, amount: Int, checksum: Int) async throws {
        throw PaymentGatewayError.unavailable("\(name) takes no partial refunds")
    }
}

/// A payment as the provider reports it.
public struct ProviderPayment: Sendable, Equatable {
    public enum Status: String, Sendable { case ready, paid, failed, cancelled }
    public let providerID: String
    public let merchantUID: String
    public let amount: Int
    public let status: Status
    /// How much of it has been refunded so far (partial refunds leave it `paid`).
    public let cancelledAmount: Int
    /// Each refund made of it, with the reason it was sent with (PortOne's `cancel_history`):
    /// how a partial refund whose answer was lost is recognised by the tag its reason carries.
    public let cancellations: [Cancellation]

    public struct Cancellation: Sendable, Equatable {
        public let amount: Int
        public let reason: String

        public init(amount: Int, reason: String) {
            self.amount = amount
            self.reason = reason
        }
    }

    public init(providerID: String, merchantUID: String, amount: Int, status: Status, cancelledAmount: Int = 0, cancellations: [Cancellation] = []) {
        self.providerID = providerID
        self.merchantUID = merchantUID
        self.amount = amount
        self.status = status
        self.cancelledAmount = cancelledAmount
        self.cancellations = cancellations
    }

    /// What can still be refunded.
    public var refundable: Int { status == .paid ? max(0, amount - cancelledAmount) : 0 }
}

public enum PaymentGatewayError: Error, Equatable {
    /// The provider does not know this payment id.
    case unknownPayment
    /// The provider could not be reached or refused us (credentials, outage); nothing was decided.
    case unavailable(String)
}

/// For development and tests: a payment id `test:{merchantUID}:{amount}` is a paid payment of
/// that amount for that order; `test:{merchantUID}:{amount}:failed` a failed one. Settings refuse
/// it when `APP_ENV=production`.
public struct TestPaymentGateway: PaymentGateway {
    public var name: String { "test" }

    public init() {}

    public static func paymentID(merchantUID: String, amount: Int, failed: Bool = false) -> String {
        "test:\(merchantUID):\(amount)" + (failed ? ":failed" : "")
    }

    public func payment(id: String) async throws -> ProviderPayment {
        let parts = id.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 || (parts.count == 4 && parts[3] == "failed"), parts[0] == "test", let amount = Int(parts[2]),
              (0...1_000_000_000_000).contains(amount) else {
            throw PaymentGatewayError.unknownPayment
        }
        return ProviderPayment(providerID: id, merchantUID: parts[1], amount: amount, status: parts.count == 4 ? .failed : .paid)
    }

    public func cancel(paymentID: String, reason: String) async throws {}
    public func cancel(paymentID: String, reason: String, amount: Int, checksum: Int) async throws {}
}

/// PortOne (iamport) REST API v1: `POST /users/getToken` for an access token (cached until it
/// expires), `GET /payments/{imp_uid}` to look a payment up, `POST /payments/cancel` to refund.
/// Every answer is `{"code": 0, "message": …, "response": …}`; a non-zero code is a refusal.
public final class PortOneGateway: PaymentGateway {
    public var name: String { "portone" }

    private let baseURL: String
    private let apiKey: String
    private let apiSecret: String
    private let client: HTTPClient
    private let token = NIOLockedValueBox<(value: String, expiresAt: Date)?>(nil)
    /// How long one call may take; a refund answered later is recognised on the next attempt.
    private let timeout: TimeAmount
    public static let defaultTimeout: TimeAmount = .seconds(10)
    /// What the cached token's age is measured by.
    private let clock: Now

    package init(baseURL: String, apiKey: String, apiSecret: String, client: HTTPClient, timeout: TimeAmount = PortOneGateway.defaultTimeout,
                 clock: @escaping Now = WallClock.now) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.apiSecret = apiSecret
        self.client = client
        self.timeout = timeout
        self.clock = clock
    }

    package struct Envelope<Payload: Decodable>: Decodable {
        package let code: Int
        package let message: String?
        package let response: Payload?
    }

    struct TokenPayload: Decodable {
        let access_token: String
        let expired_at: Double
        let now: Double?
    }

    struct PaymentPayload: Decodable {
        let imp_uid: String
        let merchant_uid: String
        let amount: Double
        let status: String
        /// What has been refunded (PortOne keeps a partly refunded payment `paid`).
        let cancel_amount: Double?
        /// Each refund: its amount and reason (and `pg_tid`, `cancelled_at`, `receipt_url`, unread).
        let cancel_history: [CancelPayload]?
    }

    struct CancelPayload: Decodable {
        let amount: Double?
        let reason: String?
    }

    public func payment(id: String) async throws -> ProviderPayment {
        guard let escaped = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "_-"))), !id.isEmpty else {
            throw PaymentGatewayError.unknownPayment
        }
        let (status, envelope): (HTTPResponseStatus, Envelope<PaymentPayload>) = try await send(.GET, "/payments/\(escaped)", authorized: true)
        if status == .notFound { throw PaymentGatewayError.unknownPayment }
        guard envelope.code == 0, let payment = envelope.response else {
            throw PaymentGatewayError.unavailable(envelope.message ?? "code \(envelope.code)")
        }
        let state = ProviderPayment.Status(rawValue: payment.status) ?? .failed
        // An amount no order can have (or not a number) is reported as unavailable, never trapped on.
        guard let amount = Int(exactly: payment.amount.rounded()), (0...1_000_000_000_000).contains(amount) else {
            throw PaymentGatewayError.unavailable("amount \(payment.amount)")
        }
        let cancelled = payment.cancel_amount.flatMap { Int(exactly: $0.rounded()) }.map { min(max($0, 0), amount) } ?? 0
        let cancellations = (payment.cancel_history ?? []).map {
            ProviderPayment.Cancellation(amount: $0.amount.flatMap { Int(exactly: $0.rounded()) } ?? 0, reason: $0.reason ?? "")
        }
        return ProviderPayment(providerID: payment.imp_uid, merchantUID: payment.merchant_uid, amount: amount, status: state, cancelledAmount: cancelled,
                               cancellations: cancellations)
    }

    public func cancel(paymentID: String, reason: String) async throws {
        struct Body: Encodable { let imp_uid: String; let reason: String }
        struct Cancelled: Decodable { let imp_uid: String }
        let (_, envelope): (HTTPResponseStatus, Envelope<Cancelled>) = try await send(.POST, "/payments/cancel", body: Body(imp_uid: paymentID, reason: reason), authorized: true)
        guard envelope.code == 0 else { throw PaymentGatewayError.unavailable(envelope.message ?? "code \(envelope.code)") }
    }

    /// PortOne's partial cancel: the same route with `amount` and `checksum` (the refundable amount
    /// before it); a `checksum` that is not PortOne's own count is refused (code -1), nothing refunded.
    public func cancel(paymentID: String, reason: String, amount: Int, checksum: Int) async throws {
        struct Body: Encodable { let imp_uid: String; let reason: String; let amount: Int; let checksum: Int }
        struct Cancelled: Decodable { let imp_uid: String }
        let (_, envelope): (HTTPResponseStatus, Envelope<Cancelled>) = try await send(
            .POST, "/payments/cancel", body: Body(imp_uid: paymentID, reason: reason, amount: amount, checksum: checksum), authorized: true)
        guard envelope.code == 0 else { throw PaymentGatewayError.unavailable(envelope.message ?? "code \(envelope.code)") }
    }

    private func accessToken() async throws -> String {
        if let cached = token.withLockedValue({ $0 }), cached.expiresAt.timeIntervalSince(clock()) > 60 { return cached.value }
        struct Body: Encodable { let imp_key: String; let imp_secret: String }
        let (_, envelope): (HTTPResponseStatus, Envelope<TokenPayload>) = try await send(.POST, "/users/getToken", body: Body(imp_key: apiKey, imp_secret: apiSecret), authorized: false)
        guard envelope.code == 0, let payload = envelope.response else {
            throw PaymentGatewayError.unavailable("token refused: \(envelope.message ?? "code \(envelope.code)")")
        }
        // expired_at is the provider's clock; keep the lifetime it granted, measured on ours.
        let now = clock()
        let lifetime = payload.expired_at - (payload.now ?? now.timeIntervalSince1970)
        token.withLockedValue { $0 = (payload.access_token, now.addingTimeInterval(max(0, lifetime))) }
        return payload.access_token
    }

    /// Sends a request; an authorized one refused with 401 (the provider let our cached token
    /// lapse first) is sent once more with a fresh token.
    private func send<Payload: Decodable>(
        _ method: HTTPMethod, _ path: String, body: (any Encodable)? = nil, authorized: Bool
    ) async throws -> (HTTPResponseStatus, Envelope<Payload>) {
        let first: (HTTPResponseStatus, Envelope<Payload>) = try await sendOnce(method, path, body: body, authorized: authorized)
        guard authorized, first.0 == .unauthorized else { return first }
        token.withLockedValue { $0 = nil }
        return try await sendOnce(method, path, body: body, authorized: true)
    }

    private func sendOnce<Payload: Decodable>(
        _ method: HTTPMethod, _ path: String, body: (any Encodable)?, authorized: Bool
    ) async throws -> (HTTPResponseStatus, Envelope<Payload>) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        request.headers.add(name: "Accept", value: "application/json")
        if authorized { request.headers.add(name: "Authorization", value: try await accessToken()) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(body)))
        }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: timeout)
        } catch {
            throw PaymentGatewayError.unavailable("PortOne unreachable: \(error)")
        }
        let data = try await response.body.collect(upTo: 1 << 20)
        guard let envelope = try? JSONDecoder().decode(Envelope<Payload>.self, from: data) else {
            throw PaymentGatewayError.unavailable("PortOne answered \(response.status.code) without its JSON envelope")
        }
        return (response.status, envelope)
    }
}
