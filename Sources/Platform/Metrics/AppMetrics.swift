import Fluent
import Metrics
package import Prometheus
import SQLKit
package import Vapor

/// The process's metrics. Code everywhere records with swift-metrics' API (`Counter`, `Timer`,
/// `Meter`); one Prometheus registry (swift-prometheus) keeps them and `/metrics` writes it out
/// in the Prometheus text format.
///
/// - `http_requests_total` and `http_request_duration_seconds` (a histogram), by `method`,
///   `route` (the route pattern, `/api/v1/groups/:pin`, never the raw path, so series stay
///   bounded; `unmatched` for requests no route takes) and `status`;
/// - `whatweeat_websockets_open` by `feature`, `whatweeat_event_bus_delivery_seconds`, the
///   database pool's wait as a request meets it (`whatweeat_db_connection_wait_seconds`), and
///   the features' own counters (`whatweeat_*_total`); README.md's "Using the API" lists them.
public enum AppMetrics {
    /// `MetricsSystem` takes one factory per process, so one registry serves every application
    /// the process makes (a test run makes many; their counts add up, so tests compare before
    /// and after).
    package static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .microseconds(2_500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2_500), .seconds(5), .seconds(10),
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }()

    /// Installs the registry as the process's metrics backend (once; later calls do nothing).
    public static func start() {
        _ = registry
        // `whatweeat_build_info{version, build} 1`: which version each instance runs (a rolling upgrade shows both).
        Gauge(label: "whatweeat_build_info", dimensions: [("version", AppVersion.current), ("build", AppVersion.build)]).record(1)
        countersStartAtZero(["whatweeat_database_write_retries_total"], label: "reason", values: DatabaseFailure.allLabels)
    }

    /// Counters present at zero from the start, declared by the module that counts them: a series
    /// missing until its first event reads as "no data" on a dashboard, and `increase()` in an
    /// alert cannot see its first event. With `label`, one series per value (the same label name
    /// the counting code uses: the registry refuses one name with two label sets).
    package static func countersStartAtZero(_ names: [String], label: String? = nil, values: [String] = []) {
        for name in names {
            guard let label else {
                Counter(label: name).increment(by: 0)
                continue
            }
            for value in values { Counter(label: name, dimensions: [(label, value)]).increment(by: 0) }
        }
    }

    /// The exposition text served at `/metrics`.
    public static func prometheusText() -> String {
        ProcessMetrics.sample()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Every few seconds, how long taking a database connection takes right now: the pool's queue
    /// as a request meets it (`whatweeat_db_connection_wait_seconds`, a gauge; near zero while the
    /// pool has room). AsyncKit's pool keeps its own counts private, so this is measured from outside.
    /// On PostgreSQL the pool's connections carry this process's `application_name`
    /// (`Settings.databaseApplicationName`), so the server's own view of them gives how many are
    /// open and how many are busy (`whatweeat_db_pool_connections_open`, `…_in_use`, the probe's
    /// own not counted) beside `whatweeat_db_pool_connections_max`.
    package static func databaseProbe(settings: Settings) -> PeriodicJob {
        Gauge(label: "whatweeat_db_connection_wait_seconds").record(0)
        if case .postgres = settings.database {
            Gauge(label: "whatweeat_db_pool_connections_open").record(0)
            Gauge(label: "whatweeat_db_pool_connections_in_use").record(0)
        }
        return PeriodicJob("database pool probe", every: .seconds(5)) { app in
            let start = ContinuousClock.now
            try await app.db.withConnection { _ in }
            Gauge(label: "whatweeat_db_connection_wait_seconds").record(seconds(ContinuousClock.now - start))
            try await recordPoolUse(app)
            return 0
        }
    }

    /// The pool's open and busy connections as PostgreSQL sees them (nothing on SQLite).
    package static func recordPoolUse(_ app: Application) async throws {
        guard case .postgres = app.settings.database else { return }
        let rows = try await app.db.sql.raw("""
            SELECT state, COUNT(*)::int AS n FROM pg_stat_activity WHERE application_name = \(bind: app.settings.databaseApplicationName) GROUP BY state
            """).all()
        var open = 0, idle = 0
        for row in rows {
            let count = try row.decode(column: "n", as: Int.self)
            open += count
            if try row.decode(column: "state", as: String?.self) == "idle" { idle += count }
        }
        Gauge(label: "whatweeat_db_pool_connections_open").record(open)
        Gauge(label: "whatweeat_db_pool_connections_in_use").record(max(0, open - idle - 1))
    }

    /// Seconds of a `Duration`, for `Timer.recordSeconds`.
    package static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Measures every request, including those that end in an error response.
/// Installed outermost so it sees the status the error middleware chose.
package struct RequestMetricsMiddleware: AsyncMiddleware {
    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next.respond(to: request)
        let elapsed = ContinuousClock.now - start
        let dimensions = [("method", request.method.rawValue), ("route", request.routePattern), ("status", String(response.status.code))]
        Counter(label: "http_requests_total", dimensions: dimensions).increment()
        Timer(label: "http_request_duration_seconds", dimensions: dimensions).recordSeconds(AppMetrics.seconds(elapsed))
        return response
    }

    package init() {}
}
