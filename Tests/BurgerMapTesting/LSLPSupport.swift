import Accounts
import BurgerMap
package import Fluent
import LookForRealBurgerApp
import NIOFoundationEssentialsCompat
import Notifications
package import Platform
import WhatWeEatTesting
package import XCTVapor

/// The LookForRealBurger app as it calls us: `SesacKey` on everything, the raw access token in
/// `Authorization`, JSON bodies.
package struct LSLPClient {
    package static let key = "lslp-test-key-0001"

    package let app: Application
    package var accessToken: String?
    package var refreshToken: String?
    package var userID: String?
    package var key = LSLPClient.key

    package init(app: Application) {
        self.app = app
    }

    package func call(_ method: HTTPMethod, _ path: String, json: [String: Any]? = nil, headers extra: HTTPHeaders = [:]) async throws -> TestingHTTPResponse {
        var headers = extra
        var body = Data()
        if let json {
            headers.add(name: "Content-Type", value: "application/json")
            body = try JSONSerialization.data(withJSONObject: json)
        }
        return try await send(method, path, body: body, headers: headers)
    }

    /// Sends raw bytes with the app's headers (its key and token).
    package func send(_ method: HTTPMethod, _ path: String, body: Data, headers extra: HTTPHeaders = [:]) async throws -> TestingHTTPResponse {
        var headers: HTTPHeaders = [:]
        if !key.isEmpty { headers.add(name: "SesacKey", value: key) }
        if let accessToken { headers.add(name: "Authorization", value: accessToken) }
        headers.add(contentsOf: extra)
        return try await app.testable().performTest(request: TestingHTTPRequest(method: method, url: URI(path: path), headers: headers,
                                                                                body: ByteBuffer(data: body)))
    }

    /// `POST /v1/posts/files` as the app sends it: parts named `files`, `LFRB_<UUID>.jpg`, `image/jpg`.
    package func uploadFiles(_ images: [Data]) async throws -> TestingHTTPResponse {
        let parts = images.map { UploadPart(name: "files", filename: "LFRB_\(UUID().uuidString).jpg", contentType: "image/jpg", data: $0) }
        let (body, contentType) = UploadPart.multipart(parts)
        return try await send(.POST, "/v1/posts/files", body: body, headers: ["Content-Type": contentType])
    }

    /// Uploads one phone JPEG and returns its path.
    package func photoPath(seed: UInt8 = UInt8.random(in: 0...255)) async throws -> String {
        let uploaded = try await uploadFiles([TestImages.phoneJPEG(seed: seed)])
        XCTAssertEqual(uploaded.status, .ok, uploaded.text)
        return try XCTUnwrap((try uploaded.object()["files"] as? [String])?.first)
    }

    /// Registers a shop as the app does (§4.1) and returns its post.
    package func addShop(_ name: String, kakaoID: String, lon: Double = 127.0276, lat: Double = 37.4979, phone: String = "02-555-0100") async throws -> [String: Any] {
        let response = try await call(.POST, "/v1/posts", json: [
            "title": name, "content": "#" + name, "content1": String(lon), "content2": String(lat), "content3": "서울 강남구 테헤란로 1",
            "content4": phone, "content5": kakaoID, "product_id": "LFRB_BURGER_HOUSE_TEST"])
        XCTAssertEqual(response.status, .ok, response.text)
        return try response.object()
    }

    /// Writes a review of a shop as the app does (§4.2: a photo, the review, then the link comment)
    /// and returns its post.
    package func addReview(shop: String, title: String = "맛집", rating: Int = 5, text: String = "굿 #치즈버거", files: [String]? = nil) async throws -> [String: Any] {
        var paths = files ?? []
        if files == nil { paths = [try await photoPath()] }
        let response = try await call(.POST, "/v1/posts", json: [
            "title": title, "price": rating, "content": text, "content1": shop, "product_id": "LFRB_BURGER_HOUSE_REVIEW_TEST", "files": paths])
        XCTAssertEqual(response.status, .ok, response.text)
        let review = try response.object()
        let linked = try await call(.POST, "/v1/posts/\(shop)/comments", json: ["content": try XCTUnwrap(review["post_id"] as? String)])
        XCTAssertEqual(linked.status, .ok, linked.text)
        return review
    }

    /// Joins and logs in as a new person; returns the signed-in client.
    package static func member(_ app: Application, nick: String, password: String = "burger-password-1") async throws -> LSLPClient {
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

/// A test app of `features` that accepts `LSLPClient.key` (a test target's own `withLSLPApp` names
/// its features; the whole server's passes its `configure`).
package func withLSLPApp(features: [any Feature.Type], configure: ((Application, Settings) async throws -> Void)? = nil,
                         adjust: (inout Settings) -> Void = { _ in }, _ body: (Application) async throws -> Void) async throws {
    try await withTestApp(features: features, adjust: { settings in
        settings.lookForRealBurgerApp.apiKeys = [LSLPClient.key]
        adjust(&settings)
    }, configure: configure, body)
}

extension TestingHTTPResponse {
    /// The LSLP error body's `message`.
    package var lslpMessage: String? { (try? object())?["message"] as? String }
}

extension Dictionary where Key == String, Value == Any {
    /// A post's `post_id`.
    package func postID() throws -> String { try XCTUnwrap(self["post_id"] as? String, "post_id") }
}

extension ObjectID {
    /// The row of `M` whose id begins with `objectID`; nil when there is none (or it is not one).
    /// The server asks each table's store (`BurgerMapStore.placeID(objectID:)`, …); tests read
    /// any model this way.
    package static func find<M: Model>(_ type: M.Type, _ objectID: String, on database: any Database) async throws -> M? where M.IDValue == UUID {
        guard let (lower, upper) = range(objectID) else { return nil }
        return try await M.query(on: database).filter(\._$id >= lower).filter(\._$id <= upper).first()
    }
}

extension Application {
    /// Our id of a row the app names by its 24-hex id.
    package func uuid<M: Model>(of type: M.Type, _ objectID: String) async throws -> UUID where M.IDValue == UUID {
        let row = try await ObjectID.find(M.self, objectID, on: db)
        return try XCTUnwrap(row?.id, "\(M.self) \(objectID)")
    }
}
