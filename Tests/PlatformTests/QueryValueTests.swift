@testable import Platform
import WhatWeEatTesting
import XCTVapor

/// `queryValue` reads one query parameter as a form would send it: `+` is a space, `%XX` a byte;
/// plain values are taken as they are (the fast path), escaped ones go through Foundation.
final class QueryValueTests: XCTestCase {
    func testPlainAndEscapedValues() async throws {
        let app = try await Application.make(.testing)
        defer { Task { try? await app.asyncShutdown() } }
        func value(_ name: String, in query: String) -> String? {
            Request(application: app, method: .GET, url: URI(string: "/x?" + query), on: app.eventLoopGroup.next()).queryValue(name)
        }
        XCTAssertEqual(value("lat", in: "lat=37.5665&lon=126.978"), "37.5665")
        XCTAssertEqual(value("lon", in: "lat=37.5665&lon=126.978"), "126.978")
        XCTAssertNil(value("limit", in: "lat=37.5665&lon=126.978"))
        XCTAssertEqual(value("q", in: "q=%EB%B2%84%EA%B1%B0+%ED%82%B9"), "버거 킹")
        XCTAssertEqual(value("q", in: "q=a%2Bb"), "a+b", "an escaped plus stays a plus")
        XCTAssertEqual(value("my name", in: "my+name=x&my%20name=y"), "x", "names are decoded too; the first wins")
        XCTAssertEqual(value("flag", in: "flag&other=1"), "")
    }
}
