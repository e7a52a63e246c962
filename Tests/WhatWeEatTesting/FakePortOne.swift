import Foundation
import NIOConcurrencyHelpers
package import NIOCore
import Payments
import Platform
package import XCTVapor

/// A small HTTP server speaking PortOne's v1 REST API: `POST /users/getToken`,
/// `GET /payments/{imp_uid}` (with the token in `Authorization`) and `POST /payments/cancel`.
package final class FakePortOne: Sendable {
    package struct Payment: Sendable {
        package let merchantUID: String
        package let amount: Int
        package let status: String
        /// Refunded so far; a partly refunded payment stays `paid`, as PortOne keeps it.
        package var cancelAmount = 0
        /// Each refund made, as `cancel_history` lists it: the amount and the reason sent with it.
        package var history: [Cancellation] = []

        package init(merchantUID: String, amount: Int, status: String, cancelAmount: Int = 0, history: [Cancellation] = []) {
            self.merchantUID = merchantUID
            self.amount = amount
            self.status = status
            self.cancelAmount = cancelAmount
            self.history = history
        }

        /// The same payment with a refund of `amount` made (cancelled once nothing is left).
        func cancelling(_ amount: Int, reason: String) -> Payment {
            let cancelled = cancelAmount + amount
            return Payment(merchantUID: merchantUID, amount: self.amount, status: cancelled >= self.amount ? "cancelled" : status,
                           cancelAmount: cancelled, history: history + [Cancellation(amount: amount, reason: reason)])
        }
    }
    package struct Cancellation: Sendable, Encodable {
        package let amount: Int
        package let reason: String
    }
    package struct State: Sendable {
        package var payments: [String: Payment] = [:]
        package var cancelled: [String] = []
        package var tokenRequests = 0
        package var unauthorizedCalls = 0
        /// Cancel calls received, refused or not.
        package var cancelCalls = 0
        /// The next this many cancels are refused with a non-zero code.
        package var refuseCancels = 0
        /// The next this many calls of any kind answer 502 without PortOne's envelope (an outage).
        package var outageCalls = 0
        /// Cancels take effect at once but are answered this much later (a slow provider).
        package var cancelAnswerDelay: TimeAmount = .zero
        /// Cancels take effect only when answered: until then the payment still reads `paid`.
        package var cancelTakesEffectWhenAnswered = false
        /// Look-ups answered this much later (payments confirmed at once all ask before any is kept).
        package var lookUpDelay: TimeAmount = .zero
        /// Cancels of a paid payment being worked on now, and the most at any one time.
        package var cancelsInFlight = 0
        package var mostCancelsInFlight = 0
        /// Partial cancels that went through: the payment and the amount.
        package var partialCancels: [(payment: String, amount: Int)] = []
    }

    package let app: Application
    package let url: String
    private let state = NIOLockedValueBox(State())
    /// The token the server currently honours; `rotateToken()` makes earlier ones stale.
    private let currentToken = NIOLockedValueBox("portone-access-token-1")

    package func rotateToken() { currentToken.withLockedValue { $0 += "-renewed" } }
    private var token: String { currentToken.withLockedValue { $0 } }

    private init(app: Application, url: String) {
        self.app = app
        self.url = url
    }

    package static func start() async throws -> FakePortOne {
        let app = try await Application.make(.testing)
        let port = try freePort()
        let fake = FakePortOne(app: app, url: "http://127.0.0.1:\(port)")
        fake.routes(app)
        try await app.server.start(address: .hostname("127.0.0.1", port: port))
        return fake
    }

    package func stop() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    package func record(impUID: String, merchantUID: String, amount: Int, status: String) {
        state.withLockedValue { $0.payments[impUID] = Payment(merchantUID: merchantUID, amount: amount, status: status) }
    }

    package var cancelled: [String] { state.withLockedValue { $0.cancelled } }
    package var partialCancels: [(payment: String, amount: Int)] { state.withLockedValue { $0.partialCancels } }
    package var cancelCalls: Int { state.withLockedValue { $0.cancelCalls } }
    package func refuseCancels(_ count: Int) { state.withLockedValue { $0.refuseCancels = count } }
    package func outage(calls: Int) { state.withLockedValue { $0.outageCalls = calls } }
    package func answerCancels(after delay: TimeAmount) { state.withLockedValue { $0.cancelAnswerDelay = delay } }
    /// Cancels answered `delay` later and only then taking effect (the payment reads `paid` meanwhile),
    /// as a provider still working on one does: a second cancel sent meanwhile would go through too.
    package func holdCancels(for delay: TimeAmount) {
        state.withLockedValue {
            $0.cancelAnswerDelay = delay
            $0.cancelTakesEffectWhenAnswered = true
        }
    }
    package func answerLookUps(after delay: TimeAmount) { state.withLockedValue { $0.lookUpDelay = delay } }
    package var cancelsInFlight: Int { state.withLockedValue { $0.cancelsInFlight } }
    package var mostCancelsInFlight: Int { state.withLockedValue { $0.mostCancelsInFlight } }

    /// Whether this call falls in an outage (and counts it).
    private func inOutage() -> Bool {
        state.withLockedValue { state in
            guard state.outageCalls > 0 else { return false }
            state.outageCalls -= 1
            return true
        }
    }

    private var outageResponse: Response { Response(status: .badGateway, body: .init(string: "<html>502 Bad Gateway</html>")) }
    package var tokenRequests: Int { state.withLockedValue { $0.tokenRequests } }
    package var unauthorizedCalls: Int { state.withLockedValue { $0.unauthorizedCalls } }

    private func json(_ status: HTTPResponseStatus, _ body: String) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json"], body: .init(string: body))
    }

    private func routes(_ app: Application) {
        app.post("users", "getToken") { req -> Response in
            struct Credentials: Decodable { let imp_key: String; let imp_secret: String }
            let credentials = try req.content.decode(Credentials.self)
            self.state.withLockedValue { $0.tokenRequests += 1 }
            guard credentials.imp_key == "key-1", credentials.imp_secret == "secret-1" else {
                return self.json(.unauthorized, #"{"code":-1,"message":"imp_key 또는 imp_secret이 올바르지 않습니다.","response":null}"#)
            }
            let now = Int(Date().timeIntervalSince1970)
            return self.json(.ok, #"{"code":0,"message":null,"response":{"access_token":"\#(self.token)","now":\#(now),"expired_at":\#(now + 1800)}}"#)
        }
        app.get("payments", ":imp_uid") { req -> Response in
            if self.inOutage() { return self.outageResponse }
            guard req.headers.first(name: "Authorization") == self.token else {
                self.state.withLockedValue { $0.unauthorizedCalls += 1 }
                return self.json(.unauthorized, #"{"code":-1,"message":"Unauthorized","response":null}"#)
            }
            let id = req.parameters.get("imp_uid") ?? ""
            let delay = self.state.withLockedValue { $0.lookUpDelay }
            if delay > .zero { try await Task.sleep(nanoseconds: UInt64(delay.nanoseconds)) }
            guard let payment = self.state.withLockedValue({ $0.payments[id] }) else {
                return self.json(.notFound, #"{"code":1,"message":"존재하지 않는 결제정보입니다.","response":null}"#)
            }
            let history = String(decoding: (try? JSONEncoder().encode(payment.history)) ?? Data("[]".utf8), as: UTF8.self)
            return self.json(.ok, #"{"code":0,"message":null,"response":{"imp_uid":"\#(id)","merchant_uid":"\#(payment.merchantUID)","amount":\#(payment.amount),"cancel_amount":\#(payment.cancelAmount),"cancel_history":\#(history),"status":"\#(payment.status)","pay_method":"card","currency":"KRW"}}"#)
        }
        app.post("payments", "cancel") { req -> Response in
            struct Cancel: Decodable { let imp_uid: String; let reason: String?; let amount: Int?; let checksum: Int? }
            guard req.headers.first(name: "Authorization") == self.token else {
                self.state.withLockedValue { $0.unauthorizedCalls += 1 }
                return self.json(.unauthorized, #"{"code":-1,"message":"Unauthorized","response":null}"#)
            }
            if self.inOutage() { return self.outageResponse }
            let cancel = try req.content.decode(Cancel.self)
            // A partial cancel, as PortOne takes it: the amount, and the checksum of what was still
            // refundable before it; the payment stays paid until nothing is left.
            if let amount = cancel.amount {
                let (refused, delay): (String?, TimeAmount) = self.state.withLockedValue { state in
                    state.cancelCalls += 1
                    if state.refuseCancels > 0 {
                        state.refuseCancels -= 1
                        return ("PG사 취소 요청 실패", .zero)
                    }
                    guard let payment = state.payments[cancel.imp_uid], payment.status == "paid" else { return ("이미 전액취소된 주문입니다.", .zero) }
                    let refundable = payment.amount - payment.cancelAmount
                    guard cancel.checksum == refundable else { return ("checksum mismatch", .zero) }
                    guard amount > 0, amount <= refundable else { return ("취소할 금액이 취소 가능 금액을 초과합니다.", .zero) }
                    state.payments[cancel.imp_uid] = payment.cancelling(amount, reason: cancel.reason ?? "")
                    state.partialCancels.append((cancel.imp_uid, amount))
                    return (nil, state.cancelAnswerDelay)
                }
                if let refused { return self.json(.ok, #"{"code":-1,"message":"\#(refused)","response":null}"#) }
                // Made at once, answered late (a slow provider: the caller may have given up by then).
                if delay > .zero { try await Task.sleep(nanoseconds: UInt64(delay.nanoseconds)) }
                return self.json(.ok, #"{"code":0,"message":null,"response":{"imp_uid":"\#(cancel.imp_uid)","status":"paid"}}"#)
            }
            enum Answer { case refused, alreadyCancelled, cancelled(after: TimeAmount), held(for: TimeAmount) }
            let answer = self.state.withLockedValue { state -> Answer in
                state.cancelCalls += 1
                if state.refuseCancels > 0 {
                    state.refuseCancels -= 1
                    return .refused
                }
                guard let payment = state.payments[cancel.imp_uid], payment.status != "cancelled" else { return .alreadyCancelled }
                if state.cancelTakesEffectWhenAnswered {
                    state.cancelsInFlight += 1
                    state.mostCancelsInFlight = max(state.mostCancelsInFlight, state.cancelsInFlight)
                    return .held(for: state.cancelAnswerDelay)
                }
                // As PortOne does: the payment now reads as cancelled, all of it refunded.
                state.payments[cancel.imp_uid] = payment.cancelling(payment.amount - payment.cancelAmount, reason: cancel.reason ?? "")
                state.cancelled.append(cancel.imp_uid)
                return .cancelled(after: state.cancelAnswerDelay)
            }
            switch answer {
            case .refused:
                return self.json(.ok, #"{"code":-1,"message":"PG사 취소 요청 실패","response":null}"#)
            case .alreadyCancelled:
                return self.json(.ok, #"{"code":-1,"message":"이미 전액취소된 주문입니다.","response":null}"#)
            case .cancelled(let delay):
                if delay > .zero { try await Task.sleep(nanoseconds: UInt64(delay.nanoseconds)) }
                return self.json(.ok, #"{"code":0,"message":null,"response":{"imp_uid":"\#(cancel.imp_uid)","status":"cancelled"}}"#)
            case .held(let delay):
                if delay > .zero { try? await Task.sleep(nanoseconds: UInt64(delay.nanoseconds)) }
                self.state.withLockedValue { state in
                    state.cancelsInFlight -= 1
                    if let payment = state.payments[cancel.imp_uid] {
                        state.payments[cancel.imp_uid] = Payment(merchantUID: payment.merchantUID, amount: payment.amount, status: "cancelled")
                    }
                    // Each cancel that went through while the payment read paid is a refund made.
                    state.cancelled.append(cancel.imp_uid)
                }
                return self.json(.ok, #"{"code":0,"message":null,"response":{"imp_uid":"\#(cancel.imp_uid)","status":"cancelled"}}"#)
            }
        }
    }
}
