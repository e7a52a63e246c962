import MultipartKit
import NIOCore
import Vapor

/// MultipartKit (4.7.1) looks each byte of a part's header name up in a table of 128 entries
/// (`isAllowedHeaderFieldNameCharacter`), so a byte of 0x80 or more there is an index out of range
/// that stops the whole process: one request took the server down. Header names are ASCII, so such
/// a body is malformed: it is refused (400 `malformed_body`) before the parser sees it. Header
/// values (a filename in Korean) are not affected. An empty boundary (`boundary=`) would stop it
/// too (a precondition of `MultipartParser`), and is refused the same way.
package enum MultipartGuard {
    package static func check(_ body: ByteBuffer, boundary: String) throws {
        if boundary.isEmpty || hasNonASCIIHeaderName(Array(body.readableBytesView), boundary: boundary) {
            throw AppError.badRequest("malformed_body")
        }
    }

    /// Whether a part's header name holds a byte of 0x80 or more. Looks after every `--boundary`
    /// line (a superset of the delimiters the parser acts on), walking header lines as it does:
    /// a name up to `:`, a value up to CR LF, an empty line ending the headers.
    package static func hasNonASCIIHeaderName(_ bytes: [UInt8], boundary: String) -> Bool {
        let delimiter = Array("--\(boundary)\r\n".utf8)
        let cr: UInt8 = 13, lf: UInt8 = 10, colon: UInt8 = 58
        var searchFrom = bytes.startIndex
        while let found = bytes[searchFrom...].firstRange(of: delimiter) {
            var index = found.upperBound
            var inName = true
            headers: while index < bytes.endIndex {
                let byte = bytes[index]
                if inName {
                    if byte >= 0x80 { return true }
                    if byte == cr { break headers }  // The end of the headers (or a syntax error).
                    if byte == colon { inName = false }
                } else if byte == cr {
                    guard index + 1 < bytes.endIndex, bytes[index + 1] == lf else { break headers }
                    index += 1
                    inName = true
                }
                index += 1
            }
            searchFrom = found.upperBound
        }
        return false
    }
}

/// The decoder of every `req.content` read of a multipart form (the CSRF check's `_csrf`, the
/// profile photo form): MultipartKit's, behind `MultipartGuard`.
package struct GuardedFormDataDecoder: ContentDecoder {
    package func decode<D: Decodable>(_ decodable: D.Type, from body: ByteBuffer, headers: HTTPHeaders) throws -> D {
        try decode(D.self, from: body, headers: headers, userInfo: [:])
    }

    package func decode<D: Decodable>(_ decodable: D.Type, from body: ByteBuffer, headers: HTTPHeaders,
                              userInfo: [CodingUserInfoKey: any Sendable]) throws -> D {
        if let boundary = headers.contentType?.parameters["boundary"] { try MultipartGuard.check(body, boundary: boundary) }
        return try FormDataDecoder().decode(D.self, from: body, headers: headers, userInfo: userInfo)
    }

    package init() {}
}
