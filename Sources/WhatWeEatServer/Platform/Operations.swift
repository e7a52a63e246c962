import Fluent
import SQLKit
import Vapor

/// `/healthz` (the process answers), `/readyz` (the database answers), `/metrics`, and
/// `/openapi.yaml`. `/healthz` touches nothing else: it is also the bare baseline of every
/// load figure in docs/PERFORMANCE.md.
struct OperationsRoutes: RouteCollection {
    let openAPIDocument: String

    struct Status: Content { let status: String }

    func boot(routes: any RoutesBuilder) throws {
        routes.get("healthz") { _ in Status(status: "ok") }
        routes.get("readyz", use: ready)
        routes.get("metrics", use: metrics)
        routes.get("openapi.yaml") { _ in
            Response(status: .ok, headers: ["Content-Type": "application/yaml; charset=utf-8"], body: .init(string: openAPIDocument))
        }
        routes.get("uploads", ":key", use: upload)
    }

    func ready(req: Request) async throws -> Response {
        do {
            try await req.db.sql.raw("SELECT 1").run()
            return try await Status(status: "ready").encodeResponse(for: req)
        } catch {
            req.logger.warning("readiness check failed: \(String(reflecting: error))")
            return try await Status(status: "unavailable").encodeResponse(status: .serviceUnavailable, for: req)
        }
    }

    func metrics(req: Request) async throws -> Response {
        Response(status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                 body: .init(string: req.application.requestMetrics.prometheusText()))
    }

    /// Uploaded files, by content-hash key; immutable, so browsers may cache them for good.
    func upload(req: Request) async throws -> Response {
        guard let key = req.parameters.get("key"), let path = req.application.files.path(for: key),
              let type = key.split(separator: ".").last.flatMap({ ImageType(rawValue: String($0)) })
        else { throw AppError.notFound() }
        let response = try await req.fileio.asyncStreamFile(at: path, mediaType: type.mediaType)
        response.headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=31536000, immutable")
        return response
    }
}

extension Application {
    private struct RequestMetricsKey: StorageKey { typealias Value = RequestMetrics }

    public var requestMetrics: RequestMetrics {
        get { configured(RequestMetricsKey.self) }
        set { storage[RequestMetricsKey.self] = newValue }
    }
}
