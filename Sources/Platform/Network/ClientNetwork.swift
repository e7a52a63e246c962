import NIOConcurrencyHelpers
package import Vapor

/// The network a client address belongs to, as every per-address budget and cap counts clients
/// (docs/SECURITY.md, "Budgets by network"):
/// - an IPv4 address is its own network: a carrier's NAT puts thousands of strangers in one /24,
///   and a class behind one school NAT shares one address;
/// - an IPv6 address counts as its /64: every phone, home line and rented server is handed a whole
///   /64 and may use any of its 2^64 addresses (privacy addresses rotate), so one /64 is one client;
/// - above it, an IPv6 /48 (a site: one customer of a provider) has a budget of its own, about ten
///   times larger, so a client that holds many /64s is still bounded.
/// An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is the IPv4 address it maps.
public struct ClientNetwork: Hashable, Sendable {
    /// `203.0.113.7` or `2001:db8:1:2::/64`; an address that does not parse is kept as it is.
    public let key: String
    /// `2001:db8:1::/48` for IPv6; nil for IPv4 (no wider budget: see above).
    public let wideKey: String?

    /// How much larger the /48 budget is than a /64's.
    public static let wideFactor = 10

    public init(address: String) {
        let plain = address.split(separator: "%", maxSplits: 1).first.map(String.init) ?? address   // no zone
        guard plain.contains(":") else {
            key = plain
            wideKey = nil
            return
        }
        guard let groups = Self.expanded(plain) else {
            key = plain.lowercased()
            wideKey = nil
            return
        }
        if groups[0..<5].allSatisfy({ $0 == 0 }) && groups[5] == 0xFFFF {
            key = "\(groups[6] >> 8).\(groups[6] & 0xFF).\(groups[7] >> 8).\(groups[7] & 0xFF)"
            wideKey = nil
            return
        }
        func prefix(_ count: Int) -> String { groups.prefix(count).map { String($0, radix: 16) }.joined(separator: ":") }
        key = prefix(4) + "::/64"
        wideKey = prefix(3) + "::/48"
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

extension Request {
    /// The network `clientAddress` belongs to, as budgets count it.
    package var clientNetwork: ClientNetwork { ClientNetwork(address: clientAddress) }
}

/// A request that came from a peer which is not one of `TRUSTED_PROXIES` but carries
/// `X-Forwarded-For`: the server sits behind a proxy it was not told about (every client is then
/// the proxy's address, docs/SECURITY.md). Logged once per process; the 새싹 apps' chat socket
/// then binds nobody by network.
package enum UntrustedForwarding {
    private static let warned = NIOLockedValueBox(false)

    /// Whether a socket or request whose handshake `headers` gave `clientAddress` came through a
    /// proxy the server does not trust: it names hops in `X-Forwarded-For`, and the address the
    /// server settled on is none of them (it is the proxy's own).
    package static func suspected(headers: HTTPHeaders, clientAddress: String) -> Bool {
        let hops = headers[canonicalForm: "X-Forwarded-For"].map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return !hops.isEmpty && !hops.contains(clientAddress)
    }

    static func warnOnce(_ logger: Logger, peer: String) {
        let first = warned.withLockedValue { warned in
            defer { warned = true }
            return !warned
        }
        guard first else { return }
        logger.warning("""
            requests from \(peer) carry X-Forwarded-For, but TRUSTED_PROXIES does not name it: every client behind \
            that proxy counts as one address, and the 새싹 apps' chat binds nobody by network. Set TRUSTED_PROXIES \
            to the proxy's address (docs/SECURITY.md).
            """)
    }
}
