import Fluent
import XCTVapor
@testable import WhatWeEatServer

/// The LookForRealBurger app as it calls us: `SesacKey` on everything, the raw access token in
/// `Authorization`, JSON bodies.
struct LSLPClient {
    static let key = "lslp-test-key-0001"

    let app: Application
    var accessToken: String?
    var refreshToken: String?
    var userID: String?
    var key = LSLPClient.key

    init(app: Application) {
        self.app = app
    }

    func call(_ method: HTTPMethod, _ path: String, json: [String: Any]? = nil, headers extra: HTTPHeaders = [:]) async throws -> TestingHTTPResponse {
        var headers: HTTPHeaders = [:]
        if !key.isEmpty { headers.add(name: "SesacKey", value: key) }
        if let accessToken { headers.add(name: "Authorization", value: accessToken) }
        var body = ByteBuffer()
        if let json {
            headers.add(name: "Content-Type", value: "application/json")
            body = ByteBuffer(data: try JSONSerialization.data(withJSONObject: json))
        }
        headers.add(contentsOf: extra)
        return try await app.testable().performTest(request: TestingHTTPRequest(method: method, url: URI(path: path), headers: headers, body: body))
    }

    /// Joins and logs in as a new person; returns the signed-in client.
    static func member(_ app: Application, nick: String, password: String = "burger-password-1") async throws -> LSLPClient {
        var client = LSLPClient(app: app)
        let email = "lfrb-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let joined = try await client.call(.POST, "/v1/users/join", json: ["email": email, "password": password, "nick": nick])
        XCTAssertEqual(joined.status, .ok, joined.text)
        let loggedIn = try await client.call(.POST, "/v1/users/login", json: ["email": email, "password": password])
        XCTAssertEqual(loggedIn.status, .ok, loggedIn.text)
        let object = try loggedIn.object()
        client.accessToken = object["accessToken"] as? String
        client.refreshToken = object["refreshToken"] as? String
        client.userID = object["user_id"] as? String
        return client
    }
}

/// A test app that accepts `LSLPClient.key`.
func withLSLPApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application) async throws -> Void) async throws {
    try await withTestApp(adjust: { settings in
        settings.map.lslpAPIKeys = [LSLPClient.key]
        adjust(&settings)
    }, body)
}

extension TestingHTTPResponse {
    /// The LSLP error body's `message`.
    var lslpMessage: String? { (try? object())?["message"] as? String }
}
