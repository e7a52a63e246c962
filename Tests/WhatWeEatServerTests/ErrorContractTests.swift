import Accounts
import Fluent
import LookForRealBurgerApp
import Platform
import SesacStudyApp
import SocketIO
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// Bad input always gets the one error shape with the right 4xx, in the caller's language,
/// and changes nothing.
final class ErrorContractTests: XCTestCase {
    /// A known path asked with a method it does not take is 405 with `Allow` (the methods of the
    /// path as documented, the most specific pattern winning), JSON or a page like every error;
    /// an unknown path stays 404.
    func testAKnownPathWithAnUnknownMethodIs405WithAllow() async throws {
        try await withTestApp { app in
            let trace = try await app.send(.TRACE, "/api/v1/me")
            XCTAssertEqual(trace.status, .methodNotAllowed)
            XCTAssertEqual(trace.errorCode, "method_not_allowed")
            XCTAssertEqual(trace.headers.first(name: "Allow"), "DELETE, GET, HEAD, PATCH")
            let page = try await app.send(.DELETE, "/login", headers: ["Accept": "text/html"])
            XCTAssertEqual(page.status, .methodNotAllowed)
            XCTAssertEqual(page.headers.contentType?.subType, "html")
            XCTAssertEqual(page.headers.first(name: "Allow"), "GET, HEAD, POST")
            // `/menus/random` is its own path, though `/menus/{menu}` would also match it.
            let random = try await app.send(.OPTIONS, "/api/v1/menu-game/menus/random")
            XCTAssertEqual(random.headers.first(name: "Allow"), "GET, HEAD")
            let menu = try await app.send(.PUT, "/api/v1/menu-game/menus/kimchi-jjigae")
            XCTAssertEqual(menu.headers.first(name: "Allow"), "DELETE, GET, HEAD, PATCH")
            let unknown = try await app.send(.TRACE, "/no/such/path")
            XCTAssertEqual(unknown.status, .notFound)
            let handlerMiss = try await app.send(.GET, "/api/v1/menu-game/menus/no-such-menu")
            XCTAssertEqual(handlerMiss.status, .notFound, "a handler's own 404 is untouched")
        }
    }

    func testMalformedBodiesAreTheRight400() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()  // its seed reviewers would count as accounts
            let cases: [(String, String, String?)] = [
                ("{\"email\": ", "malformed_json", nil),
                ("not json at all", "malformed_json", nil),
                ("[1, 2, 3]", "malformed_json", nil),
                ("{\"email\": 42, \"password\": \"password1\", \"nickname\": \"ok\"}", "invalid_type", "email"),
                ("{\"email\": \"a@example.com\", \"password\": \"password1\"}", "missing_field", "nickname"),
                ("{\"email\": null, \"password\": \"password1\", \"nickname\": \"ok\"}", "missing_field", "email"),
                ("{}", "missing_field", nil),
            ]
            for (body, code, field) in cases {
                let response = try await app.send(.POST, "/api/v1/auth/signup", raw: body)
                XCTAssertEqual(response.status, .badRequest, body)
                XCTAssertEqual(response.errorCode, code, body)
                if let field { XCTAssertTrue(response.errorMessage?.contains(field) ?? false, "\(body): \(response.text)") }
                XCTAssertFalse(response.text.contains("Swift"), "no type names leak: \(response.text)")
            }
            let count = try await User.query(on: app.db).count()
            XCTAssertEqual(count, 0)
        }
    }

    func testUnknownEnumValueIsNamed() async throws {
        try await withTestApp { app in
            let mina = try await app.signUp()
            let response = try await app.send(.PATCH, "/api/v1/me", raw: "{\"language\": \"klingon\"}", token: mina.accessToken)
            XCTAssertEqual(response.status, .badRequest)
            XCTAssertEqual(response.errorCode, "invalid_value")
            XCTAssertTrue(response.errorMessage?.contains("language") ?? false, response.text)
        }
    }

    func testWrongContentTypeIs415() async throws {
        try await withTestApp { app in
            let response = try await app.send(.POST, "/api/v1/auth/login", raw: "email=a", headers: ["Content-Type": "text/csv"])
            XCTAssertEqual(response.status, .unsupportedMediaType)
            XCTAssertEqual(response.errorCode, "unsupported_media_type")
        }
    }

    func testUnknownRoutesAre404InBothShapes() async throws {
        try await withTestApp { app in
            let api = try await app.send(.GET, "/api/v1/nothing-here")
            XCTAssertEqual(api.status, .notFound)
            XCTAssertEqual(api.errorCode, "not_found")
            XCTAssertEqual(api.headers.contentType?.subType, "json")

            let page = try await app.send(.GET, "/nothing-here", headers: ["Accept": "text/html,application/xhtml+xml"])
            XCTAssertEqual(page.status, .notFound)
            XCTAssertEqual(page.headers.contentType?.subType, "html")
            XCTAssertTrue(page.text.contains("찾는 것이 없어요."))

            // A known path with another method is 405 now (issue 10), with the methods it takes.
            let wrongMethod = try await app.send(.DELETE, "/api/v1/auth/login")
            XCTAssertEqual(wrongMethod.status, .methodNotAllowed)
            XCTAssertEqual(wrongMethod.headers.first(name: "Allow"), "POST")
        }
    }

    func testMessagesFollowAcceptLanguage() async throws {
        try await withTestApp { app in
            let expectations: [(String?, String)] = [
                (nil, "로그인이 필요해요."),
                ("en-US,en;q=0.9", "You need to log in."),
                ("ja", "ログインが必要です。"),
                ("fr-FR, ja;q=0.5, en;q=0.3", "ログインが必要です。"),
                ("de", "로그인이 필요해요."),
            ]
            for (header, message) in expectations {
                var headers = HTTPHeaders()
                if let header { headers.add(name: .acceptLanguage, value: header) }
                let response = try await app.send(.GET, "/api/v1/me", headers: headers)
                XCTAssertEqual(response.status, .unauthorized)
                XCTAssertEqual(response.errorCode, "unauthorized", "the code does not change with the language")
                XCTAssertEqual(response.errorMessage, message, header ?? "no header")
            }
        }
    }

    /// Over a real socket, since the size limit is enforced while the body streams in.
    func testOversizeBodiesAre413() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()  // its seed reviewers would count as accounts
            let live = try app.testable(method: .running(hostname: "127.0.0.1", port: try freePort()))
            let padding = String(repeating: "a", count: 2 * 1024 * 1024)
            let response = try await live.performTest(request: TestingHTTPRequest(
                method: .POST, url: URI(path: "/api/v1/auth/signup"),
                headers: ["Content-Type": "application/json", "Accept-Language": "en"],
                body: ByteBuffer(string: "{\"email\": \"big@example.com\", \"password\": \"password1\", \"nickname\": \"\(padding)\"}")))
            XCTAssertEqual(response.status, .payloadTooLarge)
            XCTAssertEqual(response.errorCode, "payload_too_large")
            XCTAssertEqual(response.errorMessage, "The request is too large.")
            let count = try await User.query(on: app.db).count()
            XCTAssertEqual(count, 0)
        }
    }
}
