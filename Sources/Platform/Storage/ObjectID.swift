package import Foundation

/// 24-hex-digit ids in the shape of the Mongo ObjectIds the seed apps' servers gave out, made from
/// our UUIDs: their first 96 bits. Deterministic, so no table hands them out; read back, the UUIDs
/// that begin with those 96 bits are a range of the primary key (the other 32 bits make a
/// collision as unlikely as a UUID's).
package enum ObjectID {
    /// Lists of posts carry thousands of these: written from the bytes, not through `uuidString`.
    package static func of(_ uuid: UUID) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        return withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 24) { text in
                for index in 0..<12 {
                    text[2 * index] = digits[Int(bytes[index] >> 4)]
                    text[2 * index + 1] = digits[Int(bytes[index] & 0x0F)]
                }
                return 24
            }
        }
    }

    /// The lowest and highest UUID that begin with `objectID`; nil for anything but 24 hex digits.
    package static func range(_ objectID: String) -> (lower: UUID, upper: UUID)? {
        let hex = objectID.lowercased()
        guard hex.utf8.count == 24, hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        func uuid(_ tail: String) -> UUID? {
            let digits = hex + tail
            let parts = [digits.prefix(8), digits.dropFirst(8).prefix(4), digits.dropFirst(12).prefix(4), digits.dropFirst(16).prefix(4), digits.dropFirst(20)]
            return UUID(uuidString: parts.joined(separator: "-"))
        }
        guard let lower = uuid("00000000"), let upper = uuid("ffffffff") else { return nil }
        return (lower, upper)
    }
}
