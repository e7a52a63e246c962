import AsyncHTTPClient
import Fluent
import NIOConcurrencyHelpers
import NIOFoundationEssentialsCompat
package import Platform
import Site
import SQLKit
package import XCTVapor

/// Which database the suite runs on: SQLite files by default, PostgreSQL when
/// `TEST_DATABASE_URL` is set (`.ci/run` runs the suite both ways).
package enum TestDatabase {
    package static var postgresURL: String? {
        ProcessInfo.processInfo.environment["TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    package static func settings(dataDirectory: String) -> Settings {
        let database: Settings.Database = postgresURL.map { .postgres(url: $0) }
            ?? .sqlite(path: dataDirectory + "/whatweeat.sqlite")
        var settings = Settings(
            dataDirectory: dataDirectory, database: database,
            jwtSecret: "test-secret-that-is-long-enough-for-hs256-000", bcryptCost: 4, appEnvironment: .testing
        )
        // A line per request would bury the suite's output; Tests/e2e/test_operator_logs.py reads it from a real server.
        settings.accessLog = false
        return settings
    }

    package static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "whatweeat-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// Runs `body` against a freshly configured site of `features` (on their foundations, accounts
/// and notifications) on a fresh database, migrated and seeded for them and nothing else. A test
/// target names its features once, in a `withTestApp(adjust:_:)` of its own. `configure` sets the
/// app up (the site of `features` unless given; the whole server passes its own `configure`, which
/// also connects the seams between features).
package func withTestApp(
    features: [any Feature.Type],
    adjust: (inout Settings) -> Void = { _ in },
    configure: ((Application, Settings) async throws -> Void)? = nil,
    _ body: (Application) async throws -> Void
) async throws {
    let directory = try TestDatabase.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var settings = TestDatabase.settings(dataDirectory: directory)
    adjust(&settings)
    // Tests run one at a time, each on a fresh copy of a migrated and seeded database.
    try await DatabaseTemplate.shared.provision(settings, features: features)
    let app = try await Application.make(.testing)
    do {
        if let configure { try await configure(app, settings) } else {
            try await configureSite(app, settings: settings, features: features)
        }
        app.keepResponderBetweenRequests()
        try await prepareDatabase(app)
        try await body(app)
    } catch {
        try? await app.asyncShutdown()
        throw error
    }
    try await app.asyncShutdown()
}

extension Application {
    /// In-memory requests (`send`, `testable()`) ask Vapor for its responder on every request, and
    /// its default builds a new one each time — the whole route tree again (a server builds it
    /// once, at start). This keeps one, made again only when routes or middleware were added.
    package func keepResponderBetweenRequests() {
        let kept = KeptResponder(application: self)
        responder.use { _ in kept }
    }
}

private final class KeptResponder: Responder, Sendable {
    private let application: Application
    private let made = NIOLockedValueBox<(routes: Int, middleware: Int, responder: any Responder)?>(nil)

    init(application: Application) {
        self.application = application
    }

    func respond(to request: Request) -> EventLoopFuture<Response> {
        let middleware = application.middleware.resolve()
        let routes = application.routes.all.count
        let responder = made.withLockedValue { made in
            if let made, made.routes == routes, made.middleware == middleware.count { return made.responder }
            let responder = application.responder.default
            made = (routes, middleware.count, responder)
            return responder
        }
        return responder.respond(to: request)
    }
}

/// The error body every 4xx carries.
package struct ErrorEnvelope: Decodable {
    package struct Detail: Decodable { package let code: String; package let message: String }
    package let error: Detail

    package init(error: Detail) {
        self.error = error
    }
}

extension TestingHTTPResponse {
    package var errorCode: String? { try? JSONDecoder().decode(ErrorEnvelope.self, from: Data(buffer: body)).error.code }
    package var errorMessage: String? { try? JSONDecoder().decode(ErrorEnvelope.self, from: Data(buffer: body)).error.message }
    package var text: String { String(buffer: body) }

    package func json<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: Data(buffer: body))
    }

    /// A JSON object as a dictionary, to check exact field names and explicit nulls.
    package func object() throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any])
    }
}

extension Application {
    /// Sends one request through the app (in memory). `json` is encoded as the body;
    /// `raw` is sent as given, for malformed input.
    package func send(
        _ method: HTTPMethod, _ path: String, json: (any Encodable)? = nil, raw: String? = nil,
        token: String? = nil, headers: HTTPHeaders = [:]
    ) async throws -> TestingHTTPResponse {
        var allHeaders = headers
        var body = ByteBuffer()
        if let json {
            body = ByteBuffer(data: try JSONEncoder().encode(json))
            allHeaders.replaceOrAdd(name: .contentType, value: "application/json")
        } else if let raw {
            body = ByteBuffer(string: raw)
            if allHeaders.contentType == nil { allHeaders.replaceOrAdd(name: .contentType, value: "application/json") }
        }
        if let token { allHeaders.bearerAuthorization = .init(token: token) }
        return try await testable().performTest(request: TestingHTTPRequest(
            method: method, url: URI(path: path), headers: allHeaders, body: body))
    }

    package struct Credentials: Decodable {
        package let accessToken: String
        package let refreshToken: String
        package let expiresIn: Int
    }

    /// Signs up through the API and returns the tokens.
    @discardableResult
    package func signUp(_ email: String = "mina@example.com", nickname: String = "미나", password: String = "password1") async throws -> Credentials {
        let response = try await send(.POST, "/api/v1/auth/signup", json: ["email": email, "password": password, "nickname": nickname])
        XCTAssertEqual(response.status, .created, response.text)
        return try response.json(Credentials.self)
    }

    package func logIn(_ email: String = "mina@example.com", password: String = "password1") async throws -> Credentials {
        let response = try await send(.POST, "/api/v1/auth/login", json: ["email": email, "password": password])
        XCTAssertEqual(response.status, .ok, response.text)
        return try response.json(Credentials.self)
    }
}

/// Runs `body` against a fresh site of `features` listening on a free loopback port (real sockets, real addresses).
package func withListeningApp(
    features: [any Feature.Type], adjust: (inout Settings) -> Void = { _ in },
    configure: ((Application, Settings) async throws -> Void)? = nil,
    _ body: (Application, Int) async throws -> Void
) async throws {
    try await withTestApp(features: features, adjust: adjust, configure: configure) { app in
        let port = try freePort()
        try await app.server.start(address: .hostname("127.0.0.1", port: port))
        do { try await body(app, port) } catch {
            await app.server.shutdown()
            throw error
        }
        await app.server.shutdown()
    }
}

/// Requests over a real connection to a listening app, each as if from `address` (the test
/// trusts 127.0.0.1 as its proxy, which names the client in `X-Forwarded-For`).
package struct PortClient {
    package struct Reply {
        package let status: HTTPResponseStatus
        package let headers: HTTPHeaders
        package let text: String

        package var errorCode: String? { try? JSONDecoder().decode(ErrorEnvelope.self, from: Data(text.utf8)).error.code }
        package func object() throws -> [String: Any] { try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) }
    }

    package let port: Int

    package init(port: Int) {
        self.port = port
    }

    /// `json` is encoded as the body; `body` is sent as given, with its content type (an upload).
    package func send(_ method: HTTPMethod, _ path: String, json: (any Encodable)? = nil, body: (data: Data, contentType: String)? = nil,
              token: String? = nil, from address: String? = nil, headers extra: HTTPHeaders = [:], upTo maxBytes: Int = 1 << 20) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        if let address { request.headers.add(name: "X-Forwarded-For", value: address) }
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(json)))
        }
        if let body {
            request.headers.add(name: "Content-Type", value: body.contentType)
            request.body = .bytes(ByteBuffer(data: body.data))
        }
        request.headers.add(contentsOf: extra)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        return Reply(status: response.status, headers: response.headers, text: String(buffer: try await response.body.collect(upTo: maxBytes)))
    }
}

/// A free TCP port on loopback, for tests that need a real socket.
package func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
            guard bind(fd, pointer, length) == 0 else { return -1 }
            return getsockname(fd, pointer, &length)
        }
    }
    guard bound == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Waits until `condition` holds (a socket delivered, another process caught up), or fails. The one
/// way tests wait for something that happens a moment later: a generous deadline (CI machines are
/// busy), checked every 10 ms, so a quiet machine does not wait longer than it must.
package func waitUntil(timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw ServerFailure(message: "condition not met within \(timeout)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// Fails unless `body` throws an `AppError` with `code` (any error when `code` is nil): the way
/// tests of stores and services check a refusal without a route around it.
package func assertRefused(
    _ code: String?, _ message: String = "", file: StaticString = #filePath, line: UInt = #line,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        XCTFail("not refused \(message)", file: file, line: line)
    } catch let error as AppError where code != nil {
        XCTAssertEqual(error.code, code, message, file: file, line: line)
    } catch {
        if let code { XCTFail("refused with \(error), not \(code) \(message)", file: file, line: line) }
    }
}
