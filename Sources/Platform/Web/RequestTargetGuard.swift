package import Vapor

/// Turns away request targets no route or file can answer before anything reads them: over-long
/// paths (414; a path past the file system's name limit made the static-file lookup fail with a
/// 500) and paths with an encoded NUL (`/css/app.css%00.swift` would be cut at the NUL and
/// served as `app.css`).
package struct RequestTargetGuard: AsyncMiddleware {
    /// Longer than any path this server has; well under the 4,096 bytes of PATH_MAX.
    static let maxPathBytes = 2_048

    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let path = request.url.path
        guard path.utf8.count <= Self.maxPathBytes else { throw AppError(.uriTooLong, "uri_too_long") }
        // `%00` is the only spelling that decodes to NUL, so no decoding is needed to find it.
        if path.contains("%00") || path.contains("\0") {
            throw AppError.notFound()
        }
        return try await next.respond(to: request)
    }

    package init() {}
}
