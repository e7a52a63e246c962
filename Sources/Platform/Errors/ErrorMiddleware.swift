package import Vapor

/// Turns every error into the one error shape: JSON for API clients, a page for browsers.
/// Unknown errors become a plain 500 with no detail; the detail goes to the log only.
package struct AppErrorMiddleware: AsyncMiddleware {
    /// Renders the HTML error page; set by the web layer so this layer does not depend on it.
    package let renderPage: @Sendable (Request, HTTPResponseStatus, String) -> Response

    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do {
            return try await next.respond(to: request)
        } catch {
            let appError = Self.appError(for: error)
            request.storage[RefusalCodeKey.self] = appError.code  // the access log's `error`
            if appError.status.code >= 500 {
                request.logger.report(error: error)
            } else {
                request.logger.debug("\(appError.status.code) \(appError.code): \(String(reflecting: error))")
            }
            let message = request.t(appError.messageKey, appError.arguments)
            let response: Response
            if Self.wantsHTML(request) {
                response = renderPage(request, appError.status, message)
            } else {
                response = Response(status: appError.status)
                try response.content.encode(ErrorBody(error: .init(code: appError.code, message: message)))
            }
            response.headers.add(contentsOf: appError.headers)
            return response
        }
    }

    /// Browsers navigating to a page get HTML; API clients and the iOS apps get JSON.
    static func wantsHTML(_ request: Request) -> Bool {
        !request.url.path.hasPrefix("/api/")
            && (request.headers.first(name: .accept)?.contains("text/html") ?? false)
    }

    package static func appError(for error: any Error) -> AppError {
        switch error {
        case let error as AppError:
            return error
        case let error as DecodingError:
            return decodingError(error)
        case let error as any AbortError:
            return abortError(error)
        case let error where isBodyParserError(error):
            return .badRequest("malformed_body")
        case let error where DatabaseFailure(error) != nil:
            // Busy or away: "try again in a moment" (503 with `Retry-After`), never a bare 500.
            return DatabaseFailure(error)!.appError
        default:
            return AppError(.internalServerError, "internal_error")
        }
    }

    /// A body the multipart parser could not read (its error types are private to MultipartKit,
    /// so they are known by their module): the client's malformed input, not our failure.
    private static func isBodyParserError(_ error: any Error) -> Bool {
        String(reflecting: type(of: error)).hasPrefix("MultipartKit.")
    }

    /// Names the offending field so a client can point at it; never echoes Swift type names.
    private static func decodingError(_ error: DecodingError) -> AppError {
        func field(_ path: [any CodingKey]) -> String {
            let names = path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return names.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return .badRequest("missing_field", ["field": field(context.codingPath + [key])])
        case .valueNotFound(_, let context):
            return .badRequest("missing_field", ["field": field(context.codingPath)])
        case .typeMismatch(_, let context):
            return context.codingPath.isEmpty ? .badRequest("malformed_json") : .badRequest("invalid_type", ["field": field(context.codingPath)])
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? .badRequest("malformed_json") : .badRequest("invalid_value", ["field": field(context.codingPath)])
        @unknown default:
            return .badRequest("malformed_json")
        }
    }

    private static func abortError(_ error: any AbortError) -> AppError {
        let code: String
        switch error.status {
        case .notFound: code = "not_found"
        case .methodNotAllowed: code = "method_not_allowed"
        case .payloadTooLarge: code = "payload_too_large"
        case .unsupportedMediaType: code = "unsupported_media_type"
        case .unauthorized: code = "unauthorized"
        case .forbidden: code = "forbidden"
        case .tooManyRequests: code = "too_many_requests"
        case .unprocessableEntity: code = "validation_failed"
        default:
            code = error.status.code >= 500 ? "internal_error" : "bad_request"
        }
        return AppError(error.status.code >= 500 ? .internalServerError : error.status, code, headers: error.headers)
    }

    package init(renderPage: @escaping @Sendable (Request, HTTPResponseStatus, String) -> Response) {
        self.renderPage = renderPage
    }
}
