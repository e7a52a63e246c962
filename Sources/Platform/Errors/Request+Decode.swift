public import Vapor

extension Request {
    /// Decodes the JSON body of an API request. A request with no body at all is read as `{}`,
    /// so a forgotten body is reported as the missing fields it lacks (400 `missing_field`)
    /// rather than as an unsupported media type. Any other body must say it is JSON: a form, a
    /// multipart or a text body (what another page can send without asking first) is 415
    /// `unsupported_media_type`, and nothing is read from it.
    public func decodeJSON<T: Decodable>(_ type: T.Type) throws -> T {
        let isEmpty = (body.data?.readableBytes ?? 0) == 0
        if isEmpty && headers.contentType == nil {
            return try JSONDecoder().decode(T.self, from: Data("{}".utf8))
        }
        guard let contentType = headers.contentType, contentType.type == "application",
              contentType.subType == "json" || contentType.subType.hasSuffix("+json")
        else { throw AppError(.unsupportedMediaType, "unsupported_media_type") }
        return try content.decode(T.self)
    }
}

extension Optional {
    /// The value of a field a request must send, or 400 `missing_field` naming it.
    package func required(_ field: String) throws -> Wrapped {
        guard let value = self else { throw AppError.badRequest("missing_field", ["field": field]) }
        return value
    }
}

extension Request {
    /// One query parameter's value, percent-decoded (`+` is a space), the first when repeated; nil
    /// when absent or not decodable. Parses the query string by hand: Vapor's
    /// `req.query[String.self, at:]` runs its form decoder over the whole query for every
    /// parameter, a measurable part of hot routes (`/nearby`).
    package func queryValue(_ name: String) -> String? {
        guard let query = url.query else { return nil }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard Self.formDecoded(parts[0]) == name else { continue }
            return parts.count == 2 ? Self.formDecoded(parts[1]) : ""
        }
        return nil
    }

    /// A required number in the query (`lat`, `lon`): 400 `missing_field` without it, 400
    /// `invalid_number` for anything but a number.
    package func queryNumber(_ name: String) throws -> Double {
        guard let raw = queryValue(name) else { throw AppError.badRequest("missing_field", ["field": name]) }
        guard let value = Double(raw) else { throw AppError.badRequest("invalid_number", ["field": name]) }
        return value
    }

    /// A query component with `+` as a space and `%XX` escapes decoded; nil for a broken escape.
    /// Most components have neither and are taken as they are (Foundation's decoding was a tenth
    /// of `/nearby`, which reads three numbers).
    private static func formDecoded(_ component: Substring) -> String? {
        guard component.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(component) }
        return component.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
