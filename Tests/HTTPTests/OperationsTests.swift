import XCTVapor
@testable import WhatWeEatServer

final class OperationsTests: XCTestCase {
    func testHealthAndReadiness() async throws {
        try await withTestApp { app in
            let health = try await app.send(.GET, "/healthz")
            XCTAssertEqual(health.status, .ok)
            XCTAssertEqual(try health.object()["status"] as? String, "ok")
            let ready = try await app.send(.GET, "/readyz")
            XCTAssertEqual(ready.status, .ok)
            XCTAssertEqual(try ready.object()["status"] as? String, "ready")
        }
    }

    /// An app whose PostgreSQL server is not there: not ready, but alive.
    func testReadinessFailsWhenTheDatabaseIsUnreachable() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var settings = TestDatabase.settings(dataDirectory: directory)
        settings.database = .postgres(url: "postgres://nobody:nothing@127.0.0.1:\(try freePort())/none")
        let app = try await Application.make(.testing)
        do {
            try await configure(app, settings: settings)
            let ready = try await app.send(.GET, "/readyz")
            XCTAssertEqual(ready.status, .serviceUnavailable)
            XCTAssertEqual(try ready.object()["status"] as? String, "unavailable")
            let health = try await app.send(.GET, "/healthz")
            XCTAssertEqual(health.status, .ok, "liveness does not depend on the database")
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    func testMetricsCountRequestsByRoutePatternAndStatus() async throws {
        try await withTestApp { app in
            for _ in 0..<3 { _ = try await app.send(.GET, "/healthz") }
            _ = try await app.send(.GET, "/api/v1/me")
            _ = try await app.send(.GET, "/no/such/route")
            _ = try await app.send(.GET, "/uploads/abc.png")
            let metrics = try await app.send(.GET, "/metrics")
            XCTAssertEqual(metrics.status, .ok)
            XCTAssertEqual(metrics.headers.contentType?.subType, "plain")
            let text = metrics.text
            XCTAssertTrue(text.contains("# TYPE http_requests_total counter"))
            XCTAssertTrue(text.contains("http_requests_total{method=\"GET\",route=\"/healthz\",status=\"200\"} 3"), text)
            XCTAssertTrue(text.contains("http_requests_total{method=\"GET\",route=\"/api/v1/me\",status=\"401\"} 1"), text)
            XCTAssertTrue(text.contains("http_requests_total{method=\"GET\",route=\"unmatched\",status=\"404\"} 1"), text)
            XCTAssertTrue(text.contains("route=\"/uploads/:key\",status=\"404\""), "patterns, not raw paths: \(text)")
            XCTAssertTrue(text.contains("http_request_duration_seconds_bucket{method=\"GET\",route=\"/healthz\",status=\"200\",le=\"+Inf\"} 3"))
            XCTAssertTrue(text.contains("http_request_duration_seconds_count{method=\"GET\",route=\"/healthz\",status=\"200\"} 3"))
        }
    }

    func testSecurityHeadersOnPages() async throws {
        try await withTestApp { app in
            let page = try await app.send(.GET, "/", headers: ["Accept": "text/html"])
            XCTAssertEqual(page.status, .ok)
            XCTAssertEqual(page.headers.first(name: "X-Frame-Options"), "DENY")
            XCTAssertEqual(page.headers.first(name: "X-Content-Type-Options"), "nosniff")
            XCTAssertNotNil(page.headers.first(name: "Content-Security-Policy"))
        }
    }

    /// Every registered route is in openapi.yaml, and everything the document lists exists.
    func testOpenAPIDocumentListsExactlyTheRegisteredRoutes() async throws {
        try await withTestApp { app in
            let served = try await app.send(.GET, "/openapi.yaml")
            XCTAssertEqual(served.status, .ok)
            let documented = OpenAPIPaths.parse(served.text)
            XCTAssertFalse(documented.isEmpty)

            let registered = Set(app.routes.all.map { route -> String in
                let path = "/" + route.path.map { component -> String in
                    switch component {
                    case .parameter(let name): return "{\(name)}"
                    default: return component.description
                    }
                }.joined(separator: "/")
                return "\(route.method.rawValue.lowercased()) \(path)"
            })
            let missing = registered.subtracting(documented).sorted()
            let stale = documented.subtracting(registered).sorted()
            XCTAssertEqual(missing, [], "routes missing from openapi.yaml")
            XCTAssertEqual(stale, [], "openapi.yaml lists routes that do not exist")
        }
    }
}

/// Reads `method path` pairs from the `paths:` section of our OpenAPI document, which keeps
/// paths at two spaces of indent and methods at four.
enum OpenAPIPaths {
    static func parse(_ document: String) -> Set<String> {
        var result = Set<String>()
        var inPaths = false
        var currentPath: String?
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty {
                inPaths = line.hasPrefix("paths:")
                currentPath = nil
                continue
            }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                currentPath = String(line.dropFirst(2).dropLast()).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            } else if let currentPath, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let key = line.trimmingCharacters(in: .whitespaces).dropLast()
                if methods.contains(String(key)) { result.insert("\(key) \(currentPath)") }
            }
        }
        return result
    }
}
