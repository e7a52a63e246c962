import Vapor

extension Request {
    /// Decodes the JSON body of an API request. A request with no body at all is read as `{}`,
    /// so a forgotten body is reported as the missing fields it lacks (400 `missing_field`)
    /// rather than as an unsupported media type.
    public func decodeJSON<T: Decodable>(_ type: T.Type) throws -> T {
        let isEmpty = (body.data?.readableBytes ?? 0) == 0
        if isEmpty && headers.contentType == nil {
            return try JSONDecoder().decode(T.self, from: Data("{}".utf8))
        }
        return try content.decode(T.self)
    }
}

extension Optional {
    /// The value of a field a request must send, or 400 `missing_field` naming it.
    func required(_ field: String) throws -> Wrapped {
        guard let value = self else { throw AppError.badRequest("missing_field", ["field": field]) }
        return value
    }
}
