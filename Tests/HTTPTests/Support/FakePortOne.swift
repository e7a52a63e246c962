import Banchan
import Foundation
import LookForRealBurgerApp
import MenuGame
import MenuGameApp
import NIOConcurrencyHelpers
import Platform
import SesacStudyApp
import WhatWeEatServer
import XCTVapor

/// A small HTTP server speaking PortOne's v1 REST API: `POST /users/getToken`,
/// `GET /payments/{imp_uid}` (with the token in `Authorization`) and `POST /payments/cancel`.
final class FakePortOne: Sendable {
    struct Payment: Sendable { let merchantUID: String; let amount: Int; let status: String }
    struct State: Sendable {
        var payments: [String: Payment] = [:]
        var cancelled: [String] = []
        var tokenRequests = 0
        var unauthorizedCalls = 0
    }

    let app: Application
    let url: String
    private let state = NIOLockedValueBox(State())
    /// The token the server currently honours; `rotateToken()` makes earlier ones stale.
    private let currentToken = NIOLockedValueBox("portone-access-token-1")

    func rotateToken() { currentToken.withLockedValue { $0 += "-renewed" } }
    private var token: String { currentToken.withLockedValue { $0 } }

    private init(app: Application, url: String) {
        self.app = app
        self.url = url
    }

    static func start() async throws -> FakePortOne {
        let app = try await Application.make(.testing)
        let port = try freePort()
        let fake = FakePortOne(app: app, url: "http://127.0.0.1:\(port)")
        fake.routes(app)
        try await app.server.start(address: .hostname("127.0.0.1", port: port))
        return fake
    }

    func stop() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    func record(impUID: String, merchantUID: String, amount: Int, status: String) {
        state.withLockedValue { $0.payments[impUID] = Payment(merchantUID: merchantUID, amount: amount, status: status) }
    }

    var cancelled: [String] { state.withLockedValue { $0.cancelled } }
    var tokenRequests: Int { state.withLockedValue { $0.tokenRequests } }
    var unauthorizedCalls: Int { state.withLockedValue { $0.unauthorizedCalls } }

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
            guard req.headers.first(name: "Authorization") == self.token else {
                self.state.withLockedValue { $0.unauthorizedCalls += 1 }
                return self.json(.unauthorized, #"{"code":-1,"message":"Unauthorized","response":null}"#)
            }
            let id = req.parameters.get("imp_uid") ?? ""
            guard let payment = self.state.withLockedValue({ $0.payments[id] }) else {
                return self.json(.notFound, #"{"code":1,"message":"존재하지 않는 결제정보입니다.","response":null}"#)
            }
            return self.json(.ok, #"{"code":0,"message":null,"response":{"imp_uid":"\#(id)","merchant_uid":"\#(payment.merchantUID)","amount":\#(payment.amount),"status":"\#(payment.status)","pay_method":"card","currency":"KRW"}}"#)
        }
        app.post("payments", "cancel") { req -> Response in
            struct Cancel: Decodable { let imp_uid: String; let reason: String? }
            guard req.headers.first(name: "Authorization") == self.token else {
                self.state.withLockedValue { $0.unauthorizedCalls += 1 }
                return self.json(.unauthorized, #"{"code":-1,"message":"Unauthorized","response":null}"#)
            }
            let cancel = try req.content.decode(Cancel.self)
            self.state.withLockedValue { $0.cancelled.append(cancel.imp_uid) }
            return self.json(.ok, #"{"code":0,"message":null,"response":{"imp_uid":"\#(cancel.imp_uid)","status":"cancelled"}}"#)
        }
    }
}
