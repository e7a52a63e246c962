import Accounts
package import Fluent
import Mates
import Notifications
package import Platform
import SesacStudyApp
import SocketIO
package import WhatWeEatTesting
package import XCTVapor

/// A 새싹 스터디 app's user as the apps call us: the Firebase uid, an ID token for it, form bodies.
package struct SesacAppClient {
    package let app: Application
    package let firebase: FakeFirebase
    package let uid: String
    package let phone: String
    package var token: String

    package init(app: Application, firebase: FakeFirebase, uid: String = SesacAppClient.newUID(), phone: String = SesacAppClient.newPhone()) throws {
        self.app = app
        self.firebase = firebase
        self.uid = uid
        self.phone = phone
        self.token = try firebase.token(uid: uid, phone: phone)
    }

    /// 28 characters like a Firebase uid.
    package static func newUID() -> String { String((UUID().uuidString + UUID().uuidString).replacingOccurrences(of: "-", with: "").prefix(28)) }
    package static func newPhone() -> String { "+8210" + String(format: "%08d", Int.random(in: 0..<100_000_000)) }

    /// A call as the apps make it: `idtoken` header, the body form-encoded as given (already
    /// encoded: tests choose the exact bytes), Alamofire's default content type.
    package func call(_ method: HTTPMethod, _ path: String, form: String? = nil, contentType: String? = "application/x-www-form-urlencoded; charset=utf-8",
              headers extra: HTTPHeaders = [:]) async throws -> TestingHTTPResponse {
        var headers: HTTPHeaders = ["idtoken": token]
        if let contentType, form != nil { headers.add(name: "Content-Type", value: contentType) }
        headers.add(contentsOf: extra)
        return try await app.testable().performTest(request: TestingHTTPRequest(
            method: method, url: URI(path: path), headers: headers, body: ByteBuffer(string: form ?? "")))
    }

    /// Signs up (`POST /v1/user`) and checks the 200.
    @discardableResult
    package func signUp(nick: String, gender: Int = 1, birth: String = "1995-06-15T09:00:00.000Z", file: StaticString = #filePath, line: UInt = #line)
        async throws -> TestingHTTPResponse
    {
        let response = try await call(.POST, "/v1/user", form: Self.encode([
            ("phoneNumber", phone), ("FCMtoken", "fcm-\(uid)"), ("nick", nick), ("birth", birth), ("email", "\(uid.prefix(6))@example.com"),
            ("gender", String(gender)),
        ]))
        XCTAssertEqual(response.status, .ok, response.text, file: file, line: line)
        return response
    }

    /// `POST /v1/queue` at a point with a study list sent as repeated keys.
    @discardableResult
    package func search(at point: (lat: Double, lon: Double) = MatesPlaces.cityHall, studies: [String] = ["알고리즘"],
                file: StaticString = #filePath, line: UInt = #line) async throws -> TestingHTTPResponse {
        let response = try await call(.POST, "/v1/queue", form: Self.encode(studies.map { ("studylist", $0) } + [("lat", "\(point.lat)"), ("long", "\(point.lon)")]))
        XCTAssertEqual(response.status, .ok, response.text, file: file, line: line)
        return response
    }

    package func queueState() async throws -> (status: HTTPStatus, object: [String: Any]) {
        let response = try await call(.GET, "/v1/queue/myQueueState")
        return (response.status, response.status == .ok ? try response.object() : [:])
    }

    /// Percent-encodes pairs as Alamofire does (spaces as `%20`, Korean as UTF-8 escapes).
    package static func encode(_ pairs: [(String, String)]) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return pairs.map { "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
            .joined(separator: "&")
    }
}

/// A test app of `features` that accepts the fake Firebase project's tokens (and `extraProjects`'):
/// a test target's own `withSesacApp` names its features; the whole server's passes its `configure`.
package func withSesacApp(features: [any Feature.Type], configure: ((Application, Settings) async throws -> Void)? = nil,
                          extraProjects: [String] = [], adjust: (inout Settings) -> Void = { _ in },
                          _ body: (Application, FakeFirebase) async throws -> Void) async throws {
    let firebase = try await FakeFirebase.start()
    do {
        try await withTestApp(features: features, adjust: { settings in
            settings.firebase = FirebaseSettings(projectIDs: [firebase.projectID] + extraProjects, certificatesURL: firebase.certificatesURL)
            adjust(&settings)
        }, configure: configure) { app in
            try await body(app, firebase)
        }
    } catch {
        await firebase.stop()
        throw error
    }
    await firebase.stop()
}

/// `GET /v1/user`'s object.
package func userObject(_ client: SesacAppClient, file: StaticString = #filePath, line: UInt = #line) async throws -> [String: Any] {
    let response = try await client.call(.GET, "/v1/user")
    XCTAssertEqual(response.status, .ok, response.text, file: file, line: line)
    return try response.object()
}

/// The account an app user is linked to.
package func accountID(_ client: SesacAppClient) async throws -> UUID {
    let link = try await AppUserStore(database: client.app.db).appUser(client.uid)
    return try XCTUnwrap(link).userID
}

/// `asker` asks `accepter` over `/v1`, who accepts.
package func matchApps(_ asker: SesacAppClient, _ accepter: SesacAppClient, file: StaticString = #filePath, line: UInt = #line) async throws {
    try await asker.search(file: file, line: line)
    try await accepter.search(at: MatesPlaces.east(300), file: file, line: line)
    let asked = try await asker.call(.POST, "/v1/queue/studyrequest", form: "otheruid=\(accepter.uid)")
    XCTAssertEqual(asked.status, .ok, asked.text, file: file, line: line)
    let accepted = try await accepter.call(.POST, "/v1/queue/studyaccept", form: "otheruid=\(asker.uid)")
    XCTAssertEqual(accepted.status, .ok, accepted.text, file: file, line: line)
}
