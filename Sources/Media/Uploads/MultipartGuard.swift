import Foundation
package import MultipartKit
package import NIOCore
import Platform
import Vapor

/// MultipartKit (4.7.1) looks each byte of a part's header name up in a table of 128 entries
/// (`isAllowedHeaderFieldNameCharacter`), so a byte of 0x80 or more there is an index out of range
/// that stops the whole process: one request took the server down. Header names are ASCII, so such
/// a body is malformed: it is refused (400 `malformed_body`) before the parser sees it. Header
/// values (a filename in Korean) are not affected. An empty boundary (`boundary=`) would stop it
/// too (a precondition of `MultipartParser`), and is refused the same way.
package enum MultipartGuard {
    package static func check(_ body: ByteBuffer, boundary: String) throws {
        let refused = boundary.isEmpty || body.withUnsafeReadableBytes { hasNonASCIIHeaderName($0, boundary: boundary) }
        if refused { throw AppError.badRequest("malformed_body") }
    }

    package static func hasNonASCIIHeaderName(_ bytes: [UInt8], boundary: String) -> Bool {
        bytes.withUnsafeBytes { hasNonASCIIHeaderName($0, boundary: boundary) }
    }

    /// Whether a part's header name holds a byte of 0x80 or more. Looks after every `--boundary`
    /// line (a superset of the delimiters the parser acts on), walking header lines as it does:
    /// a name up to `:`, a value up to CR LF, an empty line ending the headers.
    ///
    /// The delimiter is found with `memchr` and `memcmp`: a generic `firstRange(of:)` over the
    /// bytes took half a second for a 5 MB photo, most of an upload's cost.
    static func hasNonASCIIHeaderName(_ bytes: UnsafeRawBufferPointer, boundary: String) -> Bool {
        let delimiter = Array("--\(boundary)\r\n".utf8)
        guard let base = bytes.baseAddress, bytes.count >= delimiter.count else { return false }
        let cr: UInt8 = 13, lf: UInt8 = 10, colon: UInt8 = 58
        var searchFrom = 0
        while let found = firstIndex(of: delimiter, in: bytes, base: base, from: searchFrom) {
            var index = found + delimiter.count
            var inName = true
            headers: while index < bytes.count {
                let byte = bytes[index]
                if inName {
                    if byte >= 0x80 { return true }
                    if byte == cr { break headers }  // The end of the headers (or a syntax error).
                    if byte == colon { inName = false }
                } else if byte == cr {
                    guard index + 1 < bytes.count, bytes[index + 1] == lf else { break headers }
                    index += 1
                    inName = true
                }
                index += 1
            }
            searchFrom = found + delimiter.count
        }
        return false
    }

    private static func firstIndex(of delimiter: [UInt8], in bytes: UnsafeRawBufferPointer, base: UnsafeRawPointer, from start: Int) -> Int? {
        var position = start
        let last = bytes.count - delimiter.count
        return delimiter.withUnsafeBytes { needle -> Int? in
            while position <= last {
                guard let hit = memchr(base + position, Int32(delimiter[0]), last - position + 1) else { return nil }
                let offset = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + offset, needle.baseAddress!, delimiter.count) == 0 { return offset }
                position = offset + 1
            }
            return nil
        }
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
