import Fluent
import Accounts
import Banchan
import Platform
import SesacStudyApp
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// Issue 37, items 4 and 6: in production only the hosts we serve are answered (a DNS-rebinding
/// page names its own host: 421), origins are compared as origins with default ports filled in
/// (a rebuilt 새싹 app on `http://host` sends `Host: host:80` and `Origin: ws://host`), and the
/// JSON API reads JSON only and hands a device's cart over only by an explicit header.
final class ServedHostsTests: XCTestCase {
    private func inProduction(_ settings: inout Settings) {
        settings.publicURL = "https://whatweeat.example"
        settings.servedHosts = ServedHosts(publicURL: "https://whatweeat.example", entries: ["api.sesac.co.kr:1210"])
    }

    func testARebindingHostGets421OnEveryRouteAndServedHostsAreAnswered() async throws {
        try await withTestApp(adjust: inProduction) { app in
            for (path, host) in [("/api/v1/menu-game/menus/random", "rebind.example:1210"), ("/", "rebind.example"), ("/socket.io/?EIO=4&transport=polling", "rebind.example:1210"),
                                 ("/api/v1/me", "whatweeat.example.evil.example")] {
                let refused = try await app.send(.GET, path, headers: ["Host": host])
                XCTAssertEqual(refused.status, .misdirectedRequest, "\(path) \(host)")
            }
            let api = try await app.send(.GET, "/api/v1/menu-game/menus/random", headers: ["Host": "rebind.example"])
            XCTAssertEqual(api.errorCode, "misdirected_request")
            XCTAssertFalse(api.errorMessage?.isEmpty ?? true)
            for host in ["whatweeat.example", "WhatWeEat.example:443", "api.sesac.co.kr:1210", "127.0.0.1:8081", "[::1]:8081"] {
                let served = try await app.send(.GET, "/api/v1/menu-game/menus/random", headers: ["Host": host])
                XCTAssertEqual(served.status, .ok, host)
            }
            let health = try await app.send(.GET, "/healthz", headers: ["Host": "anything.internal"])
            XCTAssertEqual(health.status, .ok, "a machine's own probe by any name")
            // A page of the served host, through the proxy, opens the apps' socket; a rebinding one cannot.
            let ours = try await app.send(.GET, "/socket.io/?EIO=4&transport=polling", headers: ["Host": "api.sesac.co.kr:1210", "Origin": "ws://api.sesac.co.kr:1210"])
            XCTAssertEqual(ours.status, .ok, ours.text)
        }
    }

    /// The compat review's C12: Starscream writes the default port into `Host` but not into
    /// `Origin`, and the literal comparison refused every rebuilt app on a default port (403).
    func testDefaultPortOriginsAreOurOwn() async throws {
        try await withTestApp { app in
            for (host, origin) in [("whatweeat.example:80", "ws://whatweeat.example"), ("whatweeat.example:443", "wss://whatweeat.example"),
                                   ("whatweeat.example", "http://whatweeat.example"), ("whatweeat.example", "https://whatweeat.example"),
                                   ("whatweeat.example:8080", "ws://whatweeat.example:8080")] {
                let opened = try await app.send(.GET, "/socket.io/?EIO=4&transport=polling", headers: ["Host": host, "Origin": origin])
                XCTAssertEqual(opened.status, .ok, "\(host) \(origin): \(opened.text)")
            }
            for (host, origin) in [("whatweeat.example:8080", "ws://whatweeat.example"), ("whatweeat.example", "https://evil.example"),
                                   ("whatweeat.example", "null"), ("whatweeat.example:80", "https://whatweeat.example")] {
                let refused = try await app.send(.GET, "/socket.io/?EIO=4&transport=polling", headers: ["Host": host, "Origin": origin])
                XCTAssertEqual(refused.status, .forbidden, "\(host) \(origin)")
            }
        }
    }

    /// The probe's finding 11: a same-site page posted a form to the API login with the visitor's
    /// device cookie, and the visitor's cart moved into the attacker's account.
    func testTheAPILoginReadsJSONOnlyAndNeverTheDeviceCookie() async throws {
        try await withTestApp { app in
            _ = try await app.signUp("attacker@example.com", nickname: "공격자")
            let visitor = "visitor-device-token-0001"
            let added = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.bulgogi)", json: ["quantity": 3], headers: ["X-Device-Token": visitor])
            XCTAssertEqual(added.status, .ok, added.text)
            let form = try await app.send(.POST, "/api/v1/auth/login", raw: "email=attacker%40example.com&password=password1",
                                          headers: ["Content-Type": "application/x-www-form-urlencoded", "Cookie": "wwe_device=\(visitor)"])
            XCTAssertEqual(form.status, .unsupportedMediaType)
            XCTAssertEqual(form.errorCode, "unsupported_media_type")
            for contentType in ["text/plain", "multipart/form-data; boundary=x"] {
                let other = try await app.send(.POST, "/api/v1/auth/signup", raw: #"{"email":"x@example.com","password":"password1","nickname":"엑스"}"#,
                                               headers: ["Content-Type": contentType])
                XCTAssertEqual(other.status, .unsupportedMediaType, contentType)
            }
            let json = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "attacker@example.com", "password": "password1"],
                                          headers: ["Cookie": "wwe_device=\(visitor)"])
            XCTAssertEqual(json.status, .ok)
            let token = try XCTUnwrap(try json.object()["accessToken"] as? String)
            let attackersCart = try await app.send(.GET, "/api/v1/banchan/cart", token: token).object()
            XCTAssertEqual((attackersCart["items"] as? [Any])?.count, 0, "the cookie's device hands nothing over")
            let visitorsCart = try await app.send(.GET, "/api/v1/banchan/cart", headers: ["X-Device-Token": visitor]).object()
            XCTAssertEqual((visitorsCart["items"] as? [[String: Any]])?.first?["quantity"] as? Int, 3, "the visitor keeps the cart")
            let users = try await User.query(on: app.db).filter(\.$email == "x@example.com").count()
            XCTAssertEqual(users, 0, "a refused body writes nothing")
        }
    }
}
