import Fluent
import Accounts
import LookForRealBurgerApp
import Mates
import Platform
import SesacStudyApp
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// The 2026-11-27 probe, finding 1 (High): every per-address budget counted one IPv6 *address*,
/// and a phone or a rented server holds a whole /64 — 60 accounts in 1.0 s, 60 phone codes in
/// 0.6 s, 300 sockets against a cap of 64, from one /64. Budgets now count networks
/// (`ClientNetwork`), and are sized for a class of 40 behind one school NAT. Each request here
/// comes through the trusted proxy at 127.0.0.1 with its own `X-Forwarded-For`.
final class NetworkBudgetTests: XCTestCase {
    private func trustingTheProxy(_ extra: @escaping (inout Settings) -> Void = { _ in }) -> (inout Settings) -> Void {
        { settings in
            settings.trustedProxies = ["127.0.0.1"]
            settings.lookForRealBurgerApp.apiKeys = [LSLPClient.key]
            extra(&settings)
        }
    }

    private struct SignUp: Encodable { let email: String; let password: String; let nickname: String }

    /// Signs up from `address` and returns the access token.
    private func accessToken(_ client: PortClient, email: String, nickname: String, from address: String) async throws -> String {
        let reply = try await client.send(.POST, "/api/v1/auth/signup", json: SignUp(email: email, password: "password1", nickname: nickname), from: address)
        XCTAssertEqual(reply.status, .created, reply.text)
        return try XCTUnwrap(try reply.object()["accessToken"] as? String)
    }

    /// Addresses rotated inside one /64 are one client; another /64 has its own budget.
    func testAddressesRotatedInsideOneSlash64ShareOneSignUpBudget() async throws {
        try await withListeningApp(adjust: trustingTheProxy { $0.limits.passwordChecksPerMinute = 5 }) { app, port in
            let client = PortClient(port: port)
            var statuses: [UInt] = []
            for index in 0..<7 {
                let reply = try await client.send(.POST, "/api/v1/auth/signup", json: SignUp(email: "v6-\(index)@example.com", password: "password1", nickname: "육사\(index)"),
                                                  from: "2001:db8:1:2:\(String(index + 1, radix: 16)):aaaa:bbbb:cccc")
                statuses.append(reply.status.code)
            }
            XCTAssertEqual(statuses, [201, 201, 201, 201, 201, 429, 429])
            let neighbour = try await client.send(.POST, "/api/v1/auth/signup", json: SignUp(email: "v6-next@example.com", password: "password1", nickname: "이웃"),
                                                  from: "2001:db8:1:3::1")
            XCTAssertEqual(neighbour.status, .created, "another /64 of the same site: its own budget")
            let accounts = try await User.query(on: app.db).all().filter { $0.email.hasPrefix("v6-") }.count
            XCTAssertEqual(accounts, 6, "the refused sign-ups wrote nothing")
        }
    }

    /// A class of 40 behind one IPv4 NAT: all sign up on the web in the same minute, log in, verify
    /// for mates — and, in another minute of the lesson, join and log in from the LookForRealBurger
    /// app (each join and login in its own budget) — with the default budgets.
    func testAClassOfFortyBehindOneAddressGetsInWithTheDefaultBudgets() async throws {
        try await withListeningApp(adjust: trustingTheProxy()) { app, port in
            let client = PortClient(port: port)
            let school = "203.0.113.40"
            let inbox = app.codeInbox
            let tokens = try await withThrowingTaskGroup(of: (UInt, String?).self) { group in
                for student in 0..<40 {
                    group.addTask {
                        let reply = try await client.send(.POST, "/api/v1/auth/signup",
                                                          json: SignUp(email: "student\(student)@school.example", password: "password1", nickname: "학생\(student)"),
                                                          from: school)
                        return (reply.status.code, try? reply.object()["accessToken"] as? String)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            XCTAssertEqual(tokens.map(\.0).filter { $0 == 201 }.count, 40, "\(tokens.map(\.0))")
            var logins: [UInt] = []
            for student in 0..<40 {
                logins.append(try await client.send(.POST, "/api/v1/auth/login", json: ["email": "student\(student)@school.example", "password": "password1"],
                                                    from: school).status.code)
            }
            XCTAssertEqual(Set(logins), [200], "a login spends none of the sign-ups")
            var codes: [UInt] = []
            for (index, token) in tokens.compactMap(\.1).enumerated() {
                codes.append(try await client.send(.POST, "\(Application.mates)/verification",
                                                   json: ["channel": "phone", "destination": "010-7777-" + String(format: "%04d", index)],
                                                   token: token, from: school).status.code)
            }
            XCTAssertEqual(codes.filter { $0 == 202 }.count, 40, "\(codes)")
            XCTAssertEqual(inbox.count, 40)
        }
        // Another minute of the lesson (a fresh server: the minute's budgets start again).
        try await withListeningApp(adjust: trustingTheProxy()) { _, port in
            let client = PortClient(port: port)
            let school = "203.0.113.40"
            var app_: [UInt] = []
            for student in 0..<40 {
                let headers: HTTPHeaders = ["SesacKey": LSLPClient.key]
                let email = "lfrb\(student)@school.example"
                app_.append(try await client.send(.POST, "/v1/users/join", json: ["email": email, "password": "burger-password-1", "nick": "버거\(student)"],
                                                  from: school, headers: headers).status.code)
                app_.append(try await client.send(.POST, "/v1/users/login", json: ["email": email, "password": "burger-password-1"],
                                                  from: school, headers: headers).status.code)
            }
            XCTAssertEqual(Set(app_), [200], "join and login from the app, 40 each: \(app_)")
        }
    }

    /// One /64 triggers at most the network's codes an hour, however it rotates addresses and accounts.
    func testCodeSendsFromOneSlash64AreBounded() async throws {
        try await withListeningApp(adjust: trustingTheProxy { $0.mates.codesPerAddressPerHour = 3 }) { app, port in
            let client = PortClient(port: port)
            let inbox = app.codeInbox
            var statuses: [UInt] = []
            var codes: [String?] = []
            for index in 0..<5 {
                let token = try await accessToken(client, email: "pump\(index)@example.com", nickname: "펌프\(index)", from: "198.51.100.\(index + 1)")
                let sent = try await client.send(.POST, "\(Application.mates)/verification",
                                                 json: ["channel": "phone", "destination": "010-6000-000\(index)"], token: token,
                                                 from: "2001:db8:5:6:\(index + 1)::9")
                statuses.append(sent.status.code)
                codes.append(sent.errorCode)
            }
            XCTAssertEqual(statuses, [202, 202, 202, 429, 429])
            XCTAssertEqual(codes.last, "code_address_limit")
            XCTAssertEqual(inbox.count, 3)
        }
    }

    /// The whole service has an hourly budget per channel: reached, codes by that channel wait
    /// (429 `code_channel_busy`), the error is logged and counted in `/metrics`; email still goes.
    /// Phone codes go only to the configured countries (422, nothing sent).
    func testTheChannelsHourlyBudgetAndTheCountriesServed() async throws {
        try await withListeningApp(adjust: trustingTheProxy { $0.mates.smsPerHour = 2 }) { app, port in
            let client = PortClient(port: port)
            let inbox = app.codeInbox
            var tokens: [String] = []
            for index in 0..<4 {
                tokens.append(try await accessToken(client, email: "sms\(index)@example.com", nickname: "문자\(index)", from: "192.0.2.\(index + 1)"))
            }
            let abroad = try await client.send(.POST, "\(Application.mates)/verification", json: ["channel": "phone", "destination": "+1 415 555 0100"],
                                               token: tokens[0], from: "192.0.2.1")
            XCTAssertEqual(abroad.status, .unprocessableEntity)
            XCTAssertEqual(abroad.errorCode, "phone_country_unsupported")
            XCTAssertEqual(inbox.count, 0)
            var statuses: [UInt] = []
            var last: PortClient.Reply?
            for index in 0..<3 {
                let reply = try await client.send(.POST, "\(Application.mates)/verification", json: ["channel": "phone", "destination": "010-5100-000\(index)"],
                                                  token: tokens[index], from: "192.0.2.\(index + 1)")
                statuses.append(reply.status.code)
                last = reply
            }
            XCTAssertEqual(statuses, [202, 202, 429])
            XCTAssertEqual(last?.errorCode, "code_channel_busy")
            XCTAssertNotNil(last?.headers.first(name: "Retry-After"))
            let byEmail = try await client.send(.POST, "\(Application.mates)/verification", json: ["channel": "email", "destination": "class@example.com"],
                                                token: tokens[3], from: "192.0.2.4")
            XCTAssertEqual(byEmail.status, .accepted, "email has its own budget")
            // From this machine, no proxy: allowed. (Every test's metrics share the process: it grows.)
            let metrics = try await client.send(.GET, "/metrics", upTo: 256 << 20)
            let line = metrics.text.split(separator: "\n").first { $0.hasPrefix("whatweeat_code_budget_exhausted_total{channel=\"sms\"}") }
            let count = try XCTUnwrap(line.flatMap { Double($0.split(separator: " ").last ?? "") }, metrics.text)
            XCTAssertGreaterThanOrEqual(count, 1)
        }
    }

    /// The probe's finding 9: six codes reached one Gmail inbox within a minute through dots,
    /// `+tag` and `googlemail.com`. Spellings of one inbox are one destination now.
    func testSpellingsOfOneInboxAreOneDestination() async throws {
        try await withListeningApp(adjust: trustingTheProxy()) { app, port in
            let client = PortClient(port: port)
            let inbox = app.codeInbox
            var tokens: [String] = []
            for index in 0..<3 {
                tokens.append(try await accessToken(client, email: "spell\(index)@example.com", nickname: "철자\(index)", from: "192.0.2.\(index + 10)"))
            }
            let first = try await client.send(.POST, "\(Application.mates)/verification", json: ["channel": "email", "destination": "victim@gmail.com"],
                                              token: tokens[0], from: "192.0.2.10")
            XCTAssertEqual(first.status, .accepted)
            for (index, spelling) in ["v.i.c.t.i.m+1@googlemail.com", "Victim+x@Gmail.com"].enumerated() {
                let again = try await client.send(.POST, "\(Application.mates)/verification", json: ["channel": "email", "destination": spelling],
                                                  token: tokens[index + 1], from: "192.0.2.\(index + 11)")
                XCTAssertEqual(again.errorCode, "code_resend_too_soon", spelling)
            }
            XCTAssertEqual(inbox.count, 1)
        }
    }

    /// Live sockets are capped per network: addresses of one /64 share the cap.
    func testSocketsOfOneSlash64ShareOneCap() async throws {
        try await withListeningApp(adjust: trustingTheProxy { $0.limits.socketsPerClient = 2 }) { app, port in
            let credentials = try await app.signUp()
            var handshakes: [String] = []
            var open: [RawWebSocket] = []
            for index in 0..<3 {
                let socket = try RawWebSocket(port: port, path: "/api/v1/notifications/live",
                                              headers: ["Authorization": "Bearer \(credentials.accessToken)", "X-Forwarded-For": "2001:db8:9:9::\(index + 1)"])
                handshakes.append(String(socket.handshake.prefix(12)))
                open.append(socket)
                try await waitUntil { app.openSockets.count(of: "2001:db8:9:9::1") >= min(index + 1, 2) }
            }
            XCTAssertEqual(handshakes, ["HTTP/1.1 101", "HTTP/1.1 101", "HTTP/1.1 429"])
            let elsewhere = try RawWebSocket(port: port, path: "/api/v1/notifications/live",
                                             headers: ["Authorization": "Bearer \(credentials.accessToken)", "X-Forwarded-For": "2001:db8:9:a::1"])
            XCTAssertTrue(elsewhere.handshake.hasPrefix("HTTP/1.1 101"), "another /64: \(elsewhere.handshake)")
            withExtendedLifetime(open + [elsewhere]) {}
        }
    }
}
