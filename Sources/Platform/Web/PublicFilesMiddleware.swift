package import Vapor

/// Serves `Public/` (stylesheets, scripts, icons), asking the disk only for a path whose last
/// segment names a file (has a dot): every file there has one, and no page or API route does.
/// `FileMiddleware` alone looked each page and API request up on the disk first (2 % of a light
/// API answer).
package struct PublicFilesMiddleware: AsyncMiddleware {
    private let files: FileMiddleware

    package init(publicDirectory: String) {
        files = FileMiddleware(publicDirectory: publicDirectory)
    }

    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        guard Self.namesAFile(request.url.path) else { return try await next.respond(to: request) }
        return try await files.respond(to: request, chainingTo: next).get()
    }

    package static func namesAFile(_ path: String) -> Bool {
        path.utf8.reversed().prefix { $0 != UInt8(ascii: "/") }.contains(UInt8(ascii: "."))
    }
}
