@testable import Platform
import WhatWeEatTesting
import XCTVapor

/// `req.cookie(_:)` parses the Cookie header once per request and must read every header the way
/// Vapor's `req.cookies` does (the CSRF check, the session and the device all depend on it).
final class RequestCookieTests: XCTestCase {
    func testReadsCookiesAsVaporDoes() async throws {
        let app = try await Application.make(.testing)
        defer { Task { try? await app.asyncShutdown() } }
        let headerSets: [[String]] = [
            ["wwe_csrf=abc.def; wwe_session=0W_3V-dZ; lang=en"],
            ["a=1;b=2;  c=3 ;d=\"quoted\""],
            ["a=1, b=2", "c=3; a=4"],  // two headers, commas, the last `a` wins
            ["novalue; x=; y==z; wwe_device=web-Poe"],
            [""],
            [";;;"],
            ["lang=ko;lang=ja"],
        ]
        for headers in headerSets {
            var httpHeaders = HTTPHeaders()
            for header in headers { httpHeaders.add(name: .cookie, value: header) }
            let request = Request(application: app, method: .GET, url: URI(string: "/"), headers: httpHeaders, on: app.eventLoopGroup.next())
            let vapors = request.cookies.all.mapValues(\.string)
            let parsed = Request.parseCookieHeaders(headers)
            XCTAssertEqual(Dictionary(uniqueKeysWithValues: parsed.map { (String($0.key), String($0.value)) }), vapors, "\(headers)")
            for name in ["wwe_csrf", "wwe_session", "lang", "a", "b", "c", "d", "x", "y", "wwe_device", "missing", "novalue"] {
                XCTAssertEqual(request.cookie(name), vapors[name], "\(name) in \(headers)")
            }
        }
        // Where Vapor's parser drops a pair a browser would not send anyway (blanks around `=`) or
        // keeps an empty name, this reads the pair and skips the empty name.
        XCTAssertEqual(Request.parseCookieHeaders(["c = 3; =empty-name"]), ["c": "3"])
        var quoted = HTTPHeaders()
        quoted.add(name: .cookie, value: "d=\"quoted\"; lang = ja ")
        let request = Request(application: app, method: .GET, url: URI(string: "/"), headers: quoted, on: app.eventLoopGroup.next())
        XCTAssertEqual(request.cookie("d"), "quoted")
        XCTAssertEqual(request.cookie("lang"), "ja")
        XCTAssertEqual(request.language, .ja)
    }
}
