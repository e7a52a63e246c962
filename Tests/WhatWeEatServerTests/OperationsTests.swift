import Banchan
import BurgerMap
import LookForRealBurgerApp
import MenuGame
import Platform
import SesacStudyApp
import SocketIO
import WhatWeEatServer
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

final class OperationsTests: XCTestCase {
    func testHealthAndReadiness() async throws {
        try await withTestApp { app in
            let health = try await app.send(.GET, "/healthz")
            XCTAssertEqual(health.status, .ok)
            XCTAssertEqual(try health.object()["status"] as? String, "ok")
            XCTAssertEqual(try health.object()["version"] as? String, AppVersion.current)
            XCTAssertEqual(try health.object()["build"] as? String, AppVersion.build)
            let metrics = AppMetrics.prometheusText()
            XCTAssertTrue(metrics.contains("whatweeat_build_info{"), "which version each instance runs")
            XCTAssertTrue(metrics.contains(#"version="\#(AppVersion.current)""#))
            #if os(Linux)
            for name in ["process_resident_memory_bytes", "process_open_fds", "process_max_fds", "process_start_time_seconds", "process_cpu_seconds_total"] {
                XCTAssertTrue(metrics.contains("\n\(name) ") || metrics.contains("\n\(name){"), "\(name) in /metrics")
            }
            #endif
            let document = try await app.send(.GET, "/openapi.yaml")
            XCTAssertTrue(document.text.contains("\n  version: \(AppVersion.current)\n"), "openapi.yaml's info.version is the server's")
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

    static let metricsToken = "metrics-token-for-the-tests-0001"

    /// The value of one series in `/metrics` (0 when it is not there yet). The registry is the
    /// process's (one per process, as swift-metrics wants), so tests compare before and after.
    func value(_ text: String, _ series: String) -> Double {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? 0
        }
        return 0
    }

    func readMetrics(_ app: Application) async throws -> String {
        let metrics = try await app.send(.GET, "/metrics", headers: ["Authorization": "Bearer \(Self.metricsToken)"])
        XCTAssertEqual(metrics.status, .ok)
        XCTAssertEqual(metrics.headers.contentType?.subType, "plain")
        return metrics.text
    }

    func testMetricsCountRequestsByRoutePatternAndStatus() async throws {
        try await withTestApp(adjust: { $0.metricsToken = Self.metricsToken }) { app in
            let healthz = #"http_requests_total{method="GET",route="/healthz",status="200"}"#
            let me = #"http_requests_total{method="GET",route="/api/v1/me",status="401"}"#
            let unmatched = #"http_requests_total{method="GET",route="unmatched",status="404"}"#
            let upload = #"http_requests_total{method="GET",route="/uploads/:key",status="404"}"#
            let histogram = #"http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}"#
            let orders = "whatweeat_banchan_orders_placed_total"
            let before = try await readMetrics(app)

            for _ in 0..<3 { _ = try await app.send(.GET, "/healthz") }
            _ = try await app.send(.GET, "/api/v1/me")
            _ = try await app.send(.GET, "/no/such/route")
            _ = try await app.send(.GET, "/uploads/abc.png")
            let placed = try await app.send(.POST, "/api/v1/banchan/orders", raw: #"{"items": [{"hash": "HU6Z5", "quantity": 1}]}"#,
                                            headers: ["X-Device-Token": "metrics-test-device-0001"])
            XCTAssertEqual(placed.status, .created, placed.text)

            let after = try await readMetrics(app)
            XCTAssertTrue(after.contains("# TYPE http_requests_total counter"), after)
            XCTAssertTrue(after.contains("# TYPE http_request_duration_seconds histogram"), after)
            XCTAssertEqual(value(after, healthz) - value(before, healthz), 3, after)
            XCTAssertEqual(value(after, me) - value(before, me), 1)
            XCTAssertEqual(value(after, unmatched) - value(before, unmatched), 1)
            XCTAssertEqual(value(after, upload) - value(before, upload), 1, "patterns, not raw paths")
            XCTAssertFalse(after.contains("abc.png"), "never the raw path")
            XCTAssertEqual(value(after, histogram) - value(before, histogram), 3)
            XCTAssertTrue(after.contains(#"http_request_duration_seconds_bucket{method="GET",route="/healthz",status="200",le="+Inf"}"#))
            XCTAssertEqual(value(after, orders) - value(before, orders), 1, "the shop counts the orders it places")
        }
    }

    func testMetricsAreForLoopbackOrTheTokenOnly() async throws {
        try await withTestApp(adjust: { $0.metricsToken = Self.metricsToken }) { app in
            // An in-memory request has no address: not loopback.
            let anonymous = try await app.send(.GET, "/metrics")
            XCTAssertEqual(anonymous.status, .notFound)
            let wrong = try await app.send(.GET, "/metrics", headers: ["Authorization": "Bearer metrics-token-for-the-tests-0002"])
            XCTAssertEqual(wrong.status, .notFound)
        }
        // A real process: loopback may read it, unless a proxy forwarded the request.
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ServerProcess(dataDirectory: directory, extraEnvironment: ["METRICS_TOKEN": Self.metricsToken])
        defer { server.stop(signal: SIGINT) }
        try await server.waitUntilHealthy()
        let local = try await server.send(.GET, "/metrics", json: String?.none, headers: [:])
        XCTAssertEqual(local.status, .ok)
        let forwarded = try await server.send(.GET, "/metrics", json: String?.none, headers: ["X-Forwarded-For": "203.0.113.9"])
        XCTAssertEqual(forwarded.status, .notFound, "through a proxy on this machine is not local")
        let withToken = try await server.send(.GET, "/metrics", json: String?.none,
                                              headers: ["X-Forwarded-For": "203.0.113.9", "Authorization": "Bearer \(Self.metricsToken)"])
        XCTAssertEqual(withToken.status, .ok)
    }

    func testSecurityHeadersOnPages() async throws {
        try await withTestApp { app in
            let page = try await app.send(.GET, "/", headers: ["Accept": "text/html"])
            XCTAssertEqual(page.status, .ok)
            XCTAssertEqual(page.headers.first(name: "X-Frame-Options"), "DENY")
            XCTAssertEqual(page.headers.first(name: "X-Content-Type-Options"), "nosniff")
            XCTAssertNotNil(page.headers.first(name: "Content-Security-Policy"))

            // An API answer gets the strict document policy and no frame rule; a stylesheet runs
            // under its page's policy. Files come from Public/ (only paths naming a file look there).
            let api = try await app.send(.GET, "/api/v1/me")
            XCTAssertEqual(api.status, .unauthorized)
            XCTAssertNil(api.headers.first(name: "X-Frame-Options"))
            XCTAssertEqual(api.headers.first(name: "Content-Security-Policy"), SecurityHeadersMiddleware.documentPolicy)
            let css = try await app.send(.GET, "/css/app.css")
            XCTAssertEqual(css.status, .ok)
            XCTAssertTrue(css.text.contains("{"))
            XCTAssertNil(css.headers.first(name: "Content-Security-Policy"))
            XCTAssertEqual(css.headers.first(name: "X-Content-Type-Options"), "nosniff")
            let missing = try await app.send(.GET, "/css/none.css")
            XCTAssertEqual(missing.status, .notFound)
        }
    }

    func testOnlyPathsNamingAFileAreLookedUpOnDisk() {
        XCTAssertTrue(PublicFilesMiddleware.namesAFile("/css/app.css"))
        XCTAssertTrue(PublicFilesMiddleware.namesAFile("/favicon.ico"))
        XCTAssertFalse(PublicFilesMiddleware.namesAFile("/api/v1/me"))
        XCTAssertFalse(PublicFilesMiddleware.namesAFile("/v1.2/queue"), "a dot in an earlier segment names no file")
        XCTAssertFalse(PublicFilesMiddleware.namesAFile("/"))
        XCTAssertEqual(SecurityHeadersMiddleware.mediaType("Text/HTML; charset=utf-8"), "text/html")
        XCTAssertEqual(SecurityHeadersMiddleware.mediaType("application/json"), "application/json")
        XCTAssertEqual(SecurityHeadersMiddleware.mediaType(nil), "")
        XCTAssertEqual(SecurityHeadersMiddleware.mediaType("  text/css ;charset=utf-8"), "text/css", "spaces around it go")
        XCTAssertEqual(SecurityHeadersMiddleware.mediaType("\ttext/javascript\t"), "text/javascript")
        XCTAssertEqual(SecurityHeadersMiddleware.mediaType(";charset=utf-8"), "")
        XCTAssertEqual(SecurityHeadersMiddleware.mediaType("   "), "")
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

    /// No two routes share a method and a path: a feature and an app's layer both under `/v1`
    /// would otherwise replace one another in the router without a word, and the parity test above
    /// compares sets, so it would not see it. Parameters count as one shape whatever their name
    /// (`/v1/posts/:post` and `/v1/posts/:id` are the same route to the router).
    func testNoTwoRoutesShareAMethodAndAPath() async throws {
        try await withTestApp { app in
            let shapes = app.routes.all.map { route -> String in
                let path = route.path.map { component -> String in
                    switch component {
                    case .parameter: return ":"
                    case .catchall: return "**"
                    case .anything: return "*"
                    case .constant(let name): return name
                    }
                }.joined(separator: "/")
                return "\(route.method.rawValue) /\(path)"
            }
            var seen: [String: Int] = [:]
            for shape in shapes { seen[shape, default: 0] += 1 }
            XCTAssertEqual(seen.filter { $0.value > 1 }.keys.sorted(), [], "routes registered twice")
            XCTAssertEqual(Set(shapes).count, shapes.count)
            XCTAssertGreaterThan(shapes.count, 200, "every feature's routes were registered")
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
