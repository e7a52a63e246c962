import Platform
package import Vapor

/// `GET /uploads/:key`: an uploaded file by its content-hash key, from wherever files are kept.
package struct UploadRoutes: RouteCollection {
    package init() {}

    package func boot(routes: any RoutesBuilder) throws {
        routes.get("uploads", ":key", use: upload)
    }

    package func upload(req: Request) async throws -> Response {
        guard let key = req.parameters.get("key"), let response = try await req.storedFile(key) else { throw AppError.notFound() }
        return response
    }
}
