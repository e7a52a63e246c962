import Foundation
import OpenAPIRuntime
import WhatWeEatAPI

extension WhatWeEat {
    /// Uploads one photo for a burger review (JPEG, PNG or WebP, up to 5 MB; the server reads the
    /// type from the bytes and strips metadata). Its `id` goes in `addBurgerReview`'s `photoIds`.
    public func uploadBurgerPhoto(_ data: Data, filename: String = "photo.jpg") async throws -> Components.Schemas.Photo {
        let part = Operations.UploadBurgerPhoto.Input.Body.MultipartFormPayload.file(
            .init(payload: .init(body: HTTPBody(data)), filename: filename))
        return try await api.uploadBurgerPhoto(body: .multipartForm([part])).created.body.json
    }
}
