package import Foundation
import NIOCore
package import Vapor

/// JSON written by hand, for the few answers read so often that Foundation's encoder is most of
/// their cost (it sorts keys with ICU collation on Linux and goes through `Encoder` boxes for
/// every value). The caller writes keys in sorted order, so the output reads like `AppJSON`'s; a
/// test per use parses both and compares them. Everything else keeps using `Content`.
package struct JSONBytes {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 4_096) { bytes.reserveCapacity(capacity) }

    /// Punctuation and keys the caller spells out: `{"id":`, `,`, `]`.
    package mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// JSON made elsewhere, as it is.
    package mutating func raw(bytesOf data: Data) {
        bytes.append(contentsOf: data)
    }

    package mutating func raw(bytes made: [UInt8]) {
        bytes.append(contentsOf: made)
    }

    package mutating func int(_ value: Int) {
        // Digits written in place, without making a String (a reputation is nine numbers a person).
        if (0...9).contains(value) { return bytes.append(UInt8(ascii: "0") + UInt8(value)) }
        guard value != Int.min else { return bytes.append(contentsOf: String(value).utf8) }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var remaining = value.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(remaining % 10))
            remaining /= 10
        } while remaining > 0
        bytes[start...].reverse()
    }

    /// A finite number as Foundation's encoder writes it: whole numbers without a fraction (`127`),
    /// others as Swift prints them (`37.5665`), which JSON reads back exactly.
    package mutating func double(_ value: Double) {
        guard value.isFinite else { return bytes.append(UInt8(ascii: "0")) }
        if value == value.rounded(), abs(value) < 1e15 { return int(Int(value)) }
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A quoted string: `"` and `\` escaped, control characters as escapes, the rest as UTF-8
    /// (slashes unescaped, as `AppJSON` writes them).
    package mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most texts need no escape: copied at once (byte by byte was a tenth of the apps' search).
        let copied: Bool? = value.utf8.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied == true {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A UUID as Foundation writes it (upper case).
    package mutating func uuid(_ value: UUID) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: value.uuidString.utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    // Loops of their own rather than `list`: a generic across modules runs unspecialized, and
    // looking up its metadata was most of writing a short list.
    package mutating func strings(_ values: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (position, value) in values.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    package mutating func ints(_ values: [Int]) {
        bytes.append(UInt8(ascii: "["))
        for (position, value) in values.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            int(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// `[a,b,…]`, each element written by `write`.
    package mutating func list<Element>(_ values: some Sequence<Element>, _ write: (inout JSONBytes, Element) -> Void) {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for value in values {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            write(&self, value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// A 200 answer with this JSON as its body.
    package func response() -> Response {
        let response = Response(status: .ok, body: .init(buffer: ByteBuffer(bytes: bytes)))
        response.headers.contentType = .json
        return response
    }
}
