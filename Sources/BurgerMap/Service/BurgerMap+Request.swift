import Accounts
package import FluentKit
import Media
import MultipartKit
import Platform
import Vapor

extension Request {
    package var burgerMap: BurgerMapService { BurgerMapService(request: self) }

    /// The signed-in account as the map sees it; nil when anonymous.
    package func mapActor() -> MapActor? {
        guard let user = auth.get(User.self), let id = user.id else { return nil }
        return MapActor(id: id, isAdmin: user.role == .admin)
    }

    /// The signed-in account, or 401.
    package func requireMapActor() throws -> MapActor {
        let user = try requireUser()
        return MapActor(id: try user.requireID(), isAdmin: user.role == .admin)
    }

    package func placeID() throws -> UUID { try uuidParameter("place", notFound: "place_not_found") }
    package func reviewID() throws -> UUID { try uuidParameter("review", notFound: "review_not_found") }
    func commentID() throws -> UUID { try uuidParameter("comment", notFound: "comment_not_found") }
    func userIDParameter() throws -> UUID { try uuidParameter("user", notFound: "user_not_found") }

    /// A path parameter that must be a UUID: anything else names nothing (404).
    private func uuidParameter(_ name: String, notFound code: String) throws -> UUID {
        guard let id = parameters.get(name).flatMap(UUID.init(uuidString:)) else { throw AppError.notFound(code) }
        return id
    }

    /// The bytes of the one file in a multipart body, whatever its field is called.
    func singleUploadedFile() throws -> Data {
        let files = try uploadedFiles()
        guard files.count == 1, let file = files.first else { throw AppError.badRequest("one_file_required") }
        return file
    }

    /// The bytes of every file in a multipart body (parts with a filename), whatever their field
    /// is called; other fields are ignored.
    package func uploadedFiles() throws -> [Data] {
        guard headers.contentType?.type == "multipart", headers.contentType?.subType == "form-data" else {
            throw AppError(.unsupportedMediaType, "multipart_required")
        }
        guard let buffer = body.data, let boundary = headers.contentType?.parameters["boundary"] else {
            throw AppError.badRequest("empty_upload")
        }
        var files: [Data] = []
        var isFile = false
        var current = Data()
        try MultipartGuard.check(buffer, boundary: boundary)
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in
            if name.lowercased() == "content-disposition", value.contains("filename") { isFile = true }
        }
        parser.onBody = { chunk in if isFile { current.append(contentsOf: chunk.readableBytesView) } }
        parser.onPartComplete = {
            if isFile { files.append(current) }
            isFile = false
            current = Data()
        }
        do { try parser.execute(buffer) } catch { throw AppError.badRequest("malformed_body") }
        return files
    }
}
