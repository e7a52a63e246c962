public import Vapor
import Foundation

/// Random tokens and digests for secrets (refresh tokens, session cookies, CSRF nonces).
/// `SystemRandomNumberGenerator` reads the kernel's cryptographic source on every platform we run on.
public enum SecureRandom {
    /// `bytes` random bytes as unpadded base64url text.
    public static func token(bytes count: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: count)
        // Eight bytes per draw from the kernel's source, not one.
        for start in stride(from: 0, to: count, by: 8) {
            var word = generator.next()
            for index in start..<min(count, start + 8) {
                bytes[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
            }
        }
        return Data(bytes).base64URLEncodedString()
    }

    /// Hex SHA-256 of a secret, which is what the database keeps instead of the secret itself.
    public static func sha256Hex(_ text: String) -> String {
        sha256Hex(Data(text.utf8))
    }

    public static func sha256Hex(_ data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    /// Lowercase hex; on every authenticated request and group poll, so no `String(format:)`
    /// (which goes through printf per byte).
    package static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var characters: [UInt8] = []
        characters.reserveCapacity(64)
        for byte in bytes {
            characters.append(digits[Int(byte >> 4)])
            characters.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// Constant-time comparison so a secret check does not leak how many leading bytes matched.
    public static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}

extension Data {
    /// Unpadded base64url (RFC 4648 §5), written directly: tokens and MACs are made on every page
    /// (the CSRF token, a visitor's nonce), and Foundation's base64 plus three
    /// `replacingOccurrences` cost a tenth of a page there.
    package func base64URLEncodedString() -> String {
        let alphabet = Base64URL.alphabet
        var out: [UInt8] = []
        out.reserveCapacity((count * 4 + 2) / 3)
        withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = 0
            while index + 3 <= bytes.count {
                let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                out.append(alphabet[Int(chunk >> 18 & 63)])
                out.append(alphabet[Int(chunk >> 12 & 63)])
                out.append(alphabet[Int(chunk >> 6 & 63)])
                out.append(alphabet[Int(chunk & 63)])
                index += 3
            }
            let left = bytes.count - index
            if left > 0 {
                let chunk = UInt32(bytes[index]) << 16 | (left == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                out.append(alphabet[Int(chunk >> 18 & 63)])
                out.append(alphabet[Int(chunk >> 12 & 63)])
                if left == 2 { out.append(alphabet[Int(chunk >> 6 & 63)]) }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Reads unpadded (or padded) base64url; nil for any other character or a length base64
    /// cannot have.
    package init?(base64URLEncoded text: String) {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        var padding = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") { padding += 1; continue }
            guard padding == 0, let value = Base64URL.value(of: byte) else { return nil }
            values.append(value)
        }
        guard values.count % 4 != 1, padding <= 2 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index + 4 <= values.count {
            let chunk = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12 | UInt32(values[index + 2]) << 6 | UInt32(values[index + 3])
            out.append(UInt8(chunk >> 16 & 0xFF)); out.append(UInt8(chunk >> 8 & 0xFF)); out.append(UInt8(chunk & 0xFF))
            index += 4
        }
        let left = values.count - index
        if left >= 2 {
            var chunk = UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12
            if left == 3 { chunk |= UInt32(values[index + 2]) << 6 }
            out.append(UInt8(chunk >> 16 & 0xFF))
            if left == 3 { out.append(UInt8(chunk >> 8 & 0xFF)) }
        }
        self.init(out)
    }
}

private enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
