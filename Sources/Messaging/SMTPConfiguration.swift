import Foundation
public import NIOCore
import NIOPosix
import NIOSSL
import Platform

// MARK: - Configuration

/// Where and how to send mail, usually read from `SMTP_URL`:
///
/// - `smtp://[user:password@]host[:port][?from=address&starttls=required]`: port 25 by default;
///   STARTTLS is used when the server offers it (`starttls=required` refuses to go on without it,
///   `starttls=never` never asks for it).
/// - `smtps://[user:password@]host[:port][?from=address]`: TLS from the first byte, port 465 by default.
///
/// `from` defaults to `no-reply@{host}`. `timeout=SECONDS` sets the time allowed for each step
/// (10 s by default). User and password are percent-decoded (`%40` for `@`, `%3A` for `:`).
/// Credentials are only sent over TLS, or in the clear to a loopback address; add
/// `plaintext_auth=allow` to send them in the clear anywhere else.
public struct SMTPConfiguration: Sendable, Equatable, CustomStringConvertible {
    public enum Security: String, Sendable, Equatable {
        /// Plain TCP; STARTTLS is never asked for.
        case none
        /// STARTTLS when the server offers it, plain TCP otherwise.
        case startTLSIfOffered
        /// STARTTLS, or `SMTPError.tlsUnavailable` when the server does not offer it.
        case startTLSRequired
        /// TLS from the first byte (`smtps://`, port 465).
        case implicitTLS
    }

    public var host: String
    public var port: Int
    public var username: String?
    public var password: String?
    /// The envelope sender and the `From:` header.
    public var from: String
    public var security: Security
    /// The time allowed for each step: connecting, the TLS handshake and each reply.
    public var timeout: TimeAmount
    /// One more trusted root certificate (PEM), on top of the system's: a private CA, or a test's.
    /// Certificates are always verified, hostnames (or IP addresses) included.
    public var additionalTrustedRootPEM: String?
    /// Send credentials over a connection without TLS to a host that is not a loopback address.
    public var allowsPlaintextAuthentication: Bool
    /// The name this client gives in EHLO/HELO; by default the address literal of its own end of
    /// the connection (`[192.0.2.1]`), as RFC 5321 asks of a client without a domain name.
    public var clientName: String?

    public init(
        host: String,
        port: Int? = nil,
        username: String? = nil,
        password: String? = nil,
        from: String? = nil,
        security: Security = .startTLSIfOffered,
        timeout: TimeAmount = .seconds(10)
    ) {
        self.host = host
        self.port = port ?? (security == .implicitTLS ? 465 : 25)
        self.username = username
        self.password = password
        self.from = from ?? SMTPConfiguration.defaultFrom(host: host)
        self.security = security
        self.timeout = timeout
        self.additionalTrustedRootPEM = nil
        self.allowsPlaintextAuthentication = false
        self.clientName = nil
    }

    /// Parses `smtp://…` or `smtps://…`; throws `SMTPError.invalidURL` saying what is wrong (the
    /// password never appears in the message).
    public init(url: String) throws {
        func invalid(_ why: String) -> SMTPError { .invalidURL(why) }

        let security: Security
        let rest: Substring
        let lowered = url.lowercased()
        if lowered.hasPrefix("smtp://") {
            security = .startTLSIfOffered
            rest = url.dropFirst("smtp://".count)
        } else if lowered.hasPrefix("smtps://") {
            security = .implicitTLS
            rest = url.dropFirst("smtps://".count)
        } else {
            let scheme = url.firstIndex(of: ":").map { String(url[..<$0]) } ?? ""
            throw invalid(
                scheme.isEmpty || scheme.count > 20
                    ? "an SMTP URL starts with smtp:// or smtps://"
                    : "the scheme '\(scheme)' is not smtp:// or smtps://"
            )
        }
        guard !rest.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true }) else {
            throw invalid("an SMTP URL has no spaces or control characters")
        }
        // A raw /, ? or # in the password would move part of it into the path or the query, where
        // a message below might quote it: an "@" anywhere after the authority, other than in the
        // from= value, means exactly that.
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let strayAt = rest[authorityEnd...].split(separator: "&").contains { piece in
            piece.contains("@") && !piece.drop(while: { $0 == "/" || $0 == "?" }).lowercased().hasPrefix("from=")
        }
        guard !strayAt else {
            throw invalid("the user name or password holds a raw /, ? or #: percent-encode them as %2F, %3F, %23")
        }
        guard !rest.contains("#") else { throw invalid("an SMTP URL has no #fragment") }

        let beforeQuery: Substring
        let query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            beforeQuery = rest[..<mark]
            query = rest[rest.index(after: mark)...]
        } else {
            beforeQuery = rest
            query = nil
        }
        let authority: Substring
        if let slash = beforeQuery.firstIndex(of: "/") {
            authority = beforeQuery[..<slash]
            guard beforeQuery[slash...] == "/" else { throw invalid("an SMTP URL has no path") }
        } else {
            authority = beforeQuery
        }

        var username: String?
        var password: String?
        let hostPort: Substring
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
            guard let colon = userInfo.firstIndex(of: ":") else {
                throw invalid("the user name needs a password: smtp://user:password@host")
            }
            guard let user = Self.percentDecoded(userInfo[..<colon]), !user.isEmpty else {
                throw invalid("the user name is empty or badly percent-encoded")
            }
            guard let secret = Self.percentDecoded(userInfo[userInfo.index(after: colon)...]), !secret.isEmpty else {
                throw invalid("the password is empty or badly percent-encoded")
            }
            username = user
            password = secret
        } else {
            hostPort = authority
        }

        var host: String
        var portText: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw invalid("an IPv6 host needs its closing ]") }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("only :port may follow [IPv6 address]") }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }), host.contains(":") else {
                throw invalid("'\(host)' is not an IPv6 address")
            }
        } else {
            if let colon = hostPort.lastIndex(of: ":") {
                host = String(hostPort[..<colon])
                portText = hostPort[hostPort.index(after: colon)...]
            } else {
                host = String(hostPort)
            }
            guard !host.isEmpty else { throw invalid("the URL names no host") }
            guard Self.isValidDomain(host) else { throw invalid("'\(host)' is not a valid host name") }
        }
        host = host.lowercased()

        var port = security == .implicitTLS ? 465 : 25
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                let number = Int(portText), (1...65535).contains(number)
            else {
                let shown = portText.allSatisfy({ $0.isASCII && $0.isNumber }) ? "'\(portText)' " : ""
                throw invalid("the port \(shown)is not a number from 1 to 65535")
            }
            port = number
        }

        self.init(host: host, port: port, username: username, password: password, security: security)

        var seen = Set<String>()
        for pair in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0]).lowercased()
            guard parts.count == 2, let value = Self.percentDecoded(parts[1]) else {
                throw invalid("the query part '\(key)' needs a percent-encoded =value")
            }
            guard seen.insert(key).inserted else { throw invalid("'\(key)' is given twice") }
            switch key {
            case "from":
                guard SMTPAddress.isValid(value) else { throw invalid("from=\(value) is not an email address") }
                self.from = value
            case "starttls":
                guard security != .implicitTLS else { throw invalid("starttls= is for smtp://; smtps:// is TLS already") }
                switch value.lowercased() {
                case "required", "require", "always": self.security = .startTLSRequired
                case "auto", "opportunistic", "optional", "if-offered": self.security = .startTLSIfOffered
                case "never", "off", "no": self.security = .none
                default: throw invalid("starttls=\(value): expected required, auto or never")
                }
            case "timeout":
                guard let seconds = Double(value), seconds > 0, seconds <= 600 else {
                    throw invalid("timeout=\(value): expected seconds, more than 0 and at most 600")
                }
                self.timeout = .nanoseconds(Int64(seconds * 1_000_000_000))
            case "plaintext_auth":
                switch value.lowercased() {
                case "allow", "true", "yes": self.allowsPlaintextAuthentication = true
                case "deny", "false", "no": self.allowsPlaintextAuthentication = false
                default: throw invalid("plaintext_auth=\(value): expected allow or deny")
                }
            default:
                throw invalid("unknown setting '\(key)' (known: from, starttls, timeout, plaintext_auth)")
            }
        }
        if !seen.contains("from") {
            guard SMTPAddress.isValid(self.from) else {
                throw invalid("no-reply@\(host) is not an address: set from=")
            }
        }
    }

    public var description: String {
        let user = username.map { "\($0):***@" } ?? ""
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "\(security == .implicitTLS ? "smtps" : "smtp")://\(user)\(hostPart):\(port) (from \(from), \(security.rawValue))"
    }

    static func defaultFrom(host: String) -> String {
        host.contains(":") ? "no-reply@[IPv6:\(host)]" : "no-reply@\(host)"
    }

    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    static func isValidDomain(_ host: String) -> Bool {
        guard host.utf8.count <= 253, !host.hasPrefix("."), !host.hasPrefix("-"), !host.contains("..") else { return false }
        return host.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
                true
            default:
                false
            }
        }
    }
}
