import Fluent
import SQLKit
package import Vapor

/// `/healthz` (the process answers), `/readyz` (the database answers), `/metrics`, and
/// `/openapi.yaml`. `/healthz` touches nothing else: it is also the bare baseline of every
/// load figure in docs/PERFORMANCE.md.
package struct OperationsRoutes: RouteCollection {
    package let openAPIDocument: String

    /// `/healthz`'s answer: alive, and which version and build answered.
    package struct Status: Content {
        package let status: String
        package let version: String
        package let build: String
    }

    private static let alive = Status(status: "ok", version: AppVersion.current, build: AppVersion.build)

    package func boot(routes: any RoutesBuilder) throws {
        routes.get("healthz") { _ in Self.alive }
        routes.get("readyz", use: ready)
        routes.get("metrics", use: metrics)
        routes.get("openapi.yaml") { _ in
            Response(status: .ok, headers: ["Content-Type": "application/yaml; charset=utf-8"], body: .init(string: openAPIDocument))
        }
    }

    /// `/readyz`'s answer: ready or not (the database), and the details an operator reads (what
    /// features registered with `Application.readinessDetail`: how mail is delivered, say).
    package struct Readiness: Content {
        package let status: String
        package let details: [String: String]
    }

    package func ready(req: Request) async throws -> Response {
        var details = req.application.readinessDetails.mapValues { $0(req.application) }
        do {
            try await req.db.sql.raw("SELECT 1").run()
            details["database"] = "ok"
            // What else a request may need to answer (a bucket for photos): unready without it.
            var reachable = true
            for (name, check) in req.application.readinessChecks {
                let fine = await check(req.application)
                details[name] = fine ? "ok" : "unavailable"
                reachable = reachable && fine
            }
            guard reachable else {
                return try await Readiness(status: "unavailable", details: details).encodeResponse(status: .serviceUnavailable, for: req)
            }
            return try await Readiness(status: "ready", details: details).encodeResponse(for: req)
        } catch {
            req.logger.warning("readiness check failed: \(String(reflecting: error))")
            details["database"] = "unavailable"
            return try await Readiness(status: "unavailable", details: details).encodeResponse(status: .serviceUnavailable, for: req)
        }
    }

    /// For the machine's own collector (a request from loopback that no proxy forwarded) or
    /// whoever shows `METRICS_TOKEN` as a bearer token; 404 for everyone else, as if not there.
    package func metrics(req: Request) async throws -> Response {
        guard MetricsAccess.allows(req, token: req.application.settings.metricsToken) else { throw AppError.notFound() }
        return Response(status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                        body: .init(string: AppMetrics.prometheusText()))
    }

    package init(openAPIDocument: String) {
        self.openAPIDocument = openAPIDocument
    }
}

/// Who may read `/metrics`.
enum MetricsAccess {
    static func allows(_ req: Request, token: String?) -> Bool {
        if let token, let bearer = req.headers.bearerAuthorization?.token {
            return SecureRandom.constantTimeEquals(bearer, token)
        }
        // A proxy on this machine connects from loopback too: a forwarded request is not local.
        let forwarded = req.headers.first(name: "X-Forwarded-For") != nil || req.headers.first(name: "Forwarded") != nil
        guard !forwarded, let address = req.remoteAddress?.ipAddress else { return false }
        return address == "127.0.0.1" || address == "::1" || address.hasPrefix("127.") || address == "::ffff:127.0.0.1"
    }
}

extension Application {
    private struct ReadinessDetailsKey: StorageKey { typealias Value = [String: @Sendable (Application) -> String] }

    /// What `/readyz` reports beside the database, by name.
    package var readinessDetails: [String: @Sendable (Application) -> String] {
        storage[ReadinessDetailsKey.self] ?? [:]
    }

    private struct ReadinessChecksKey: StorageKey { typealias Value = [String: @Sendable (Application) async -> Bool] }

    /// What `/readyz` asks beside the database, by name: false makes the server unready (503).
    package var readinessChecks: [String: @Sendable (Application) async -> Bool] {
        storage[ReadinessChecksKey.self] ?? [:]
    }

    /// Adds a service `/readyz` asks at each request (`files`: the bucket photos are kept in).
    package func readinessCheck(_ name: String, _ check: @escaping @Sendable (Application) async -> Bool) {
        var checks = readinessChecks
        checks[name] = check
        storage[ReadinessChecksKey.self] = checks
    }

    /// Adds a line to `/readyz`'s details (read at each request); it never makes the server unready.
    package func readinessDetail(_ name: String, _ value: @escaping @Sendable (Application) -> String) {
        var details = readinessDetails
        details[name] = value
        storage[ReadinessDetailsKey.self] = details
    }
}
