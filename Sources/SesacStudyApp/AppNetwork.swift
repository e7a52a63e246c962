import Foundation
import Platform
import SocketIO

/// The network a client address belongs to, as the apps' chat socket binding compares them: an
/// IPv4 address is its own network (a carrier's NAT puts thousands of strangers in one /24), an
/// IPv6 address its /64 (one home or phone network: the device rotates the rest for privacy, and
/// a phone's HTTP and its socket may leave from different addresses of it).
public enum AppNetwork {
    public static func of(_ address: String) -> String {
        guard address.contains(":") else { return address }
        let plain = address.split(separator: "%", maxSplits: 1).first.map(String.init) ?? address   // no zone
        guard let groups = expanded(plain) else { return plain.lowercased() }
        return groups.prefix(4).map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
    }

    /// The eight 16-bit groups of an IPv6 address (`::` expanded, an embedded IPv4 tail read), or
    /// nil when it is not one.
    package static func expanded(_ address: String) -> [UInt16]? {
        let halves = address.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt16]? {
            guard !part.isEmpty else { return [] }
            var result: [UInt16] = []
            for piece in part.split(separator: ":", omittingEmptySubsequences: false) {
                if piece.contains(".") {
                    let octets = piece.split(separator: ".").compactMap { UInt8($0) }
                    guard octets.count == 4 else { return nil }
                    result += [UInt16(octets[0]) << 8 | UInt16(octets[1]), UInt16(octets[2]) << 8 | UInt16(octets[3])]
                } else {
                    guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                    result.append(value)
                }
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 8 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 7 else { return nil }
        return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
    }
}
