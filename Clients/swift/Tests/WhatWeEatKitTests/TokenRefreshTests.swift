import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import OpenAPIRuntime
import WhatWeEatKit
import XCTest

/// What the server does when an access token has run out before the client knew (a clock off,
/// a token revoked early) cannot be produced on demand by the end-to-end suite: the shortest
/// lifetime is a minute. This transport answers as the server does — 401 `token_expired` for the
/// old token, a new pair for the refresh — and counts the calls.
final class TokenRefreshTests: XCTestCase {
    final class ExpiringServer: ClientTransport, Sendable {
        struct Seen: Sendable { var refreshes = 0; var authorizations: [String] = [] }
        let seen = NIOLockedValueBox(Seen())

        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
            func json(_ status: HTTPResponse.Status, _ text: String) -> (HTTPResponse, HTTPBody?) {
                (HTTPResponse(status: status, headerFields: [.contentType: "application/json"]), HTTPBody(text))
            }
            if operationID == "refresh" {
                let count = seen.withLockedValue { $0.refreshes += 1; return $0.refreshes }
                return json(.ok, #"{"accessToken":"access-\#(count + 1)","refreshToken":"refresh-\#(count + 1)","expiresIn":900,"tokenType":"Bearer"}"#)
            }
            let authorization = request.headerFields[.authorization] ?? ""
            seen.withLockedValue { $0.authorizations.append(authorization) }
            guard !authorization.isEmpty else {
                return json(.unauthorized, #"{"error":{"code":"unauthorized","message":"로그인이 필요해요."}}"#)
            }
            guard authorization != "Bearer access-1" else {
                return json(.unauthorized, #"{"error":{"code":"token_expired","message":"로그인이 만료되었어요."}}"#)
            }
            return json(.ok, #"{"id":"4E2C5D9A-0000-4000-8000-000000000001","email":"mina@example.com","nickname":"미나","role":"user","language":null,"profileImageURL":null,"createdAt":"2026-11-26T00:00:00Z"}"#)
        }
    }

    func testAnExpiredTokenIsRefreshedOnceAndTheCallSentAgain() async throws {
        let server = ExpiringServer()
        let app = WhatWeEat(serverURL: URL(string: "http://server.invalid")!, language: "ko",
                            tokens: Tokens(accessToken: "access-1", refreshToken: "refresh-1", accessExpiresAt: Date().addingTimeInterval(600)),
                            transport: server)
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<4 { group.addTask { try await app.me().nickname } }
            for try await nickname in group { XCTAssertEqual(nickname, "미나") }
        }
        XCTAssertEqual(server.seen.withLockedValue { $0.refreshes }, 1, "four callers, one refresh")
        let kept = await app.tokens.tokens
        XCTAssertEqual(kept?.accessToken, "access-2")
        XCTAssertEqual(kept?.refreshToken, "refresh-2")
        let authorizations = server.seen.withLockedValue { $0.authorizations }
        XCTAssertEqual(authorizations.filter { $0 == "Bearer access-2" }.count, 4, "each call sent again with the new token")
    }

    func testSignedOutCallsAreSentWithoutATokenAndNotRetried() async throws {
        let server = ExpiringServer()
        let app = WhatWeEat(serverURL: URL(string: "http://server.invalid")!, language: "ko", transport: server)
        do {
            _ = try await app.me()
            XCTFail("signed out: no token, and the server's answer stands")
        } catch {
            XCTAssertEqual(WhatWeEatError.from(error)?.code, "unauthorized")
        }
        XCTAssertEqual(server.seen.withLockedValue { $0.refreshes }, 0, "nothing to refresh when signed out")
    }
}
