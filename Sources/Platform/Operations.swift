import Fluent
import SQLKit
import Vapor

/// `/healthz` (the process answers), `/readyz` (the database answers), `/metrics`, and
/// `/openapi.yaml`. `/healthz` touches nothing else: it is also the bare baseline of every
/// load figure in docs/PERFORMANCE.md.
package struct OperationsRoutes: RouteCollection {
    package let openAPIDocument: String

    package struct Status: Content { package let status: String }

    package func boot(routes: any RoutesBuilder) throws {
        routes.get("healthz") { _ in Status(status: "ok") }
        routes.get("readyz", use: ready)
        routes.get("metrics", use: metrics)
        routes.get("openapi.yaml") { _ in
            Response(status: .ok, headers: ["Content-Type": "application/yaml; charset=utf-8"], body: .init(string: openAPIDocument))
        }
    }

    package func ready(req: Request) async throws -> Response {
        do {
            try await req.db.sql.raw("SELECT 1").run()
            return try await Status(status: "ready").encodeResponse(for: req)
        } catch {
            req.logger.warning("readiness check failed: \(String(reflecting: error))")
            return try await Status(status: "unavailable").encodeResponse(status: .serviceUnavailable, for: req)
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
