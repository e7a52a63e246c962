import Logging
package import Vapor

/// The request id and the access log, outermost of all middleware:
/// - a request's id is the `X-Request-Id` a trusted proxy sent (nginx's `$request_id`), when it is
///   a plain token of at most 128 characters, else a new one; every line the request logs
///   carries it (`request-id`), and every answer sends it back as `X-Request-Id`;
/// - with `ACCESS_LOG` on (the default), one line per request at `info`: method, route pattern
///   (never the raw path, which may hold a token), status, milliseconds, and a refusal's error code.
package struct RequestLogMiddleware: AsyncMiddleware {
    let accessLog: Bool

    package init(accessLog: Bool) {
        self.accessLog = accessLog
    }

    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        // Vapor adopts any client's `X-Request-Id` as `request.id`: only a trusted proxy's is kept.
        let id = Self.forwardedID(of: request)
            ?? (request.headers.contains(name: "X-Request-Id") ? UUID().uuidString : request.id)
        request.logger[metadataKey: "request-id"] = .string(id)
        let start = ContinuousClock.now
        let response = try await next.respond(to: request)
        response.headers.replaceOrAdd(name: "X-Request-Id", value: id)
        // Nothing is built for a line the log level drops (benchmarks run at `error`).
        guard accessLog, request.logger.logLevel <= .info else { return response }
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1_000 + Double(elapsed.components.attoseconds) / 1e15
        var metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue), "route": .string(request.routePattern),
            "status": .stringConvertible(response.status.code), "duration_ms": .string(String(format: "%.1f", milliseconds)),
        ]
        if let code = request.storage[RefusalCodeKey.self] { metadata["error"] = .string(code) }
        request.logger.info("\(request.method.rawValue) \(request.routePattern) \(response.status.code)", metadata: metadata)
        return response
    }

    /// A trusted proxy's `X-Request-Id`, if it is one we would write into a log line.
    private static func forwardedID(of request: Request) -> String? {
        guard let value = request.headers.first(name: "X-Request-Id"), (1...128).contains(value.utf8.count),
              value.utf8.allSatisfy(idBytes.contains),
              let peer = request.remoteAddress?.ipAddress, request.application.settings.trustedProxies.contains(peer)
        else { return nil }
        return value
    }

    /// What a forwarded id may be made of: ASCII letters, digits, `-`, `_` and `.`.
    private static let idBytes = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)
}

/// The error code of a refused request, kept by `AppErrorMiddleware` for the access log.
package struct RefusalCodeKey: StorageKey { package typealias Value = String }

extension Request {
    /// The route's pattern (`/api/v1/groups/:pin`), or `unmatched`: what logs and metrics name a request by.
    package var routePattern: String {
        route.map { "/" + $0.path.map(\.description).joined(separator: "/") } ?? "unmatched"
    }
}
