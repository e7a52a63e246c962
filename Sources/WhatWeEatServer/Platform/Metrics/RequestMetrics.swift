import NIOConcurrencyHelpers
import Vapor

/// Request counts and a latency histogram per route and status, in Prometheus text format.
///
/// Labels use the route pattern (`/api/v1/groups/:pin`), never the raw path, so the number of
/// series stays bounded; requests that match no route share the label `unmatched`.
public final class RequestMetrics: Sendable {
    static let bucketBounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    struct SeriesKey: Hashable {
        let method: String
        let route: String
        let status: UInt
    }

    struct Series {
        var bucketCounts = [UInt64](repeating: 0, count: RequestMetrics.bucketBounds.count)
        var count: UInt64 = 0
        var sum: Double = 0
    }

    private let series = NIOLockedValueBox<[SeriesKey: Series]>([:])

    public init() {}

    func record(method: String, route: String, status: UInt, seconds: Double) {
        series.withLockedValue { all in
            var entry = all[SeriesKey(method: method, route: route, status: status)] ?? Series()
            entry.count += 1
            entry.sum += seconds
            if let index = Self.bucketBounds.firstIndex(where: { seconds <= $0 }) {
                entry.bucketCounts[index] += 1
            }
            all[SeriesKey(method: method, route: route, status: status)] = entry
        }
    }

    /// The exposition text served at `/metrics`.
    public func prometheusText() -> String {
        let snapshot = series.withLockedValue { $0 }.sorted {
            ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status)
        }
        var lines = [
            "# HELP http_requests_total HTTP requests answered, by method, route pattern and status.",
            "# TYPE http_requests_total counter",
        ]
        for (key, entry) in snapshot {
            lines.append("http_requests_total{\(labels(key))} \(entry.count)")
        }
        lines.append("# HELP http_request_duration_seconds Time to answer an HTTP request.")
        lines.append("# TYPE http_request_duration_seconds histogram")
        for (key, entry) in snapshot {
            var cumulative: UInt64 = 0
            for (index, bound) in Self.bucketBounds.enumerated() {
                cumulative += entry.bucketCounts[index]
                lines.append("http_request_duration_seconds_bucket{\(labels(key)),le=\"\(bound)\"} \(cumulative)")
            }
            lines.append("http_request_duration_seconds_bucket{\(labels(key)),le=\"+Inf\"} \(entry.count)")
            lines.append("http_request_duration_seconds_sum{\(labels(key))} \(entry.sum)")
            lines.append("http_request_duration_seconds_count{\(labels(key))} \(entry.count)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func labels(_ key: SeriesKey) -> String {
        "method=\"\(key.method)\",route=\"\(escape(key.route))\",status=\"\(key.status)\""
    }

    private func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}

/// Measures every request, including those that end in an error response.
/// Installed outermost so it sees the status the error middleware chose.
struct RequestMetricsMiddleware: AsyncMiddleware {
    let metrics: RequestMetrics

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next.respond(to: request)
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let route = request.route.map { "/" + $0.path.map(\.description).joined(separator: "/") } ?? "unmatched"
        metrics.record(method: request.method.rawValue, route: route, status: response.status.code, seconds: seconds)
        return response
    }
}
