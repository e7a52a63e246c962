import Foundation
import NIOCore
import NIOPosix
import NIOSSL

// A small SMTP client (RFC 5321) on SwiftNIO: EHLO/HELO, STARTTLS (RFC 3207) or implicit TLS,
// AUTH PLAIN/LOGIN, one message to one recipient, a reply code checked at every step, a timeout
// for every step, and the connection always closed. Messages are text/plain in UTF-8.

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

// MARK: - Message and errors

/// One plain-text message to one recipient.
public struct MailMessage: Sendable, Equatable {
    public var to: String
    public var subject: String
    public var text: String

    public init(to: String, subject: String, text: String) {
        self.to = to
        self.subject = subject
        self.text = text
    }
}

public enum SMTPError: Error, Equatable, CustomStringConvertible {
    /// The configuration URL is malformed; says what is wrong.
    case invalidURL(String)
    /// The message cannot be sent as it is (a bad address, CR or LF in a header); nothing was sent.
    case invalidMessage(String)
    /// No connection could be made, it broke, or TLS failed (certificate, handshake).
    case connectionFailed(String)
    /// The server answered a step with 4xx or 5xx; `message` is its text.
    case rejected(code: Int, message: String)
    /// A step (connecting, TLS, a reply) took longer than the configured timeout.
    case timeout
    /// TLS was required but the server does not offer STARTTLS, or credentials would have gone in the clear.
    case tlsUnavailable
    /// The server said something this client cannot make sense of.
    case protocolViolation(String)

    public var description: String {
        switch self {
        case .invalidURL(let why): "invalid SMTP URL: \(why)"
        case .invalidMessage(let why): "message not sendable: \(why)"
        case .connectionFailed(let why): "SMTP connection failed: \(why)"
        case .rejected(let code, let message): "SMTP server rejected with \(code): \(message)"
        case .timeout: "SMTP server did not answer in time"
        case .tlsUnavailable: "SMTP server does not offer STARTTLS"
        case .protocolViolation(let why): "SMTP protocol violation: \(why)"
        }
    }
}

// MARK: - Mailer

/// Sends each message over its own connection. Safe to share.
public final class SMTPMailer: Sendable {
    public let configuration: SMTPConfiguration
    private let eventLoopGroup: any EventLoopGroup
    /// Built once; nil when TLS is never used; an error when the extra root is not a certificate.
    private let tlsContext: Result<NIOSSLContext, SMTPError>?

    public init(configuration: SMTPConfiguration, eventLoopGroup: any EventLoopGroup) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        if configuration.security == .none {
            self.tlsContext = nil
        } else {
            self.tlsContext = Result {
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.certificateVerification = .fullVerification
                tls.minimumTLSVersion = .tlsv12
                if let pem = configuration.additionalTrustedRootPEM {
                    let roots = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
                    guard !roots.isEmpty else { throw SMTPError.connectionFailed("the extra trusted root holds no certificate") }
                    tls.additionalTrustRoots = [.certificates(roots)]
                }
                return try NIOSSLContext(configuration: tls)
            }.mapError { error in
                error as? SMTPError ?? .connectionFailed("TLS setup failed: \(error)")
            }
        }
    }

    /// Sends one message: validates it (throwing `invalidMessage` before connecting), connects,
    /// walks the SMTP dialogue checking every reply, and closes the connection whatever happens.
    public func send(_ message: MailMessage) async throws {
        let envelope = try SMTPEnvelope(message: message, from: configuration.from)
        let connection = try await SMTPConnection.connect(
            configuration: configuration,
            tlsContext: try tlsContext?.get(),
            group: eventLoopGroup
        )
        do {
            try await converse(connection, envelope: envelope)
        } catch let error as SMTPError {
            if case .rejected = error {
                // The server is listening: say goodbye before hanging up.
                await connection.quit(within: configuration.timeout)
            }
            await connection.close()
            throw error
        } catch {
            await connection.close()
            throw SMTPError.connectionFailed("\(error)")
        }
        await connection.close()
    }

    private func converse(_ connection: SMTPConnection, envelope: SMTPEnvelope) async throws {
        try expect(await connection.greeting(), 220)
        let clientName = configuration.clientName.flatMap(SMTPAddress.validHeloName) ?? connection.localAddressLiteral

        var capabilities = try await hello(connection, clientName: clientName)
        var encrypted = configuration.security == .implicitTLS
        switch configuration.security {
        case .startTLSIfOffered, .startTLSRequired:
            if capabilities?.has("STARTTLS") == true, let context = try tlsContext?.get() {
                let hostname = SMTPConnection.isIPAddress(configuration.host) ? nil : configuration.host
                try expect(await connection.command("STARTTLS", upgradeTo: SMTPTLSUpgrade(context: context, serverHostname: hostname)), 220)
                encrypted = true
                // RFC 3207: forget what was learned before TLS and ask again. The first command
                // after STARTTLS is where a failed handshake shows; the closed channel can be
                // reported before the handshake's own error, so it is named for what it is.
                do {
                    capabilities = try await hello(connection, clientName: clientName, heloAllowed: false)
                } catch SMTPError.connectionFailed(let why) where !why.hasPrefix("TLS") {
                    throw SMTPError.connectionFailed("TLS failed: the handshake did not complete (\(why))")
                }
            } else if configuration.security == .startTLSRequired {
                throw SMTPError.tlsUnavailable
            }
        case .none, .implicitTLS:
            break
        }

        if let username = configuration.username, let password = configuration.password {
            guard encrypted || configuration.allowsPlaintextAuthentication || connection.isLoopback else {
                throw SMTPError.tlsUnavailable
            }
            try await authenticate(connection, capabilities: capabilities, username: username, password: password)
        }

        let eightBit = capabilities?.has("8BITMIME") == true
        let data = envelope.render(eightBitAllowed: eightBit)
        try expect(await connection.command("MAIL FROM:<\(envelope.from)>\(data.needs8BitMIME ? " BODY=8BITMIME" : "")"), 250)
        try expect(await connection.command("RCPT TO:<\(envelope.to)>"), 250, 251)
        try expect(await connection.command("DATA"), 354)
        var payload = ByteBuffer(bytes: SMTPData.dotStuffed(data.bytes))
        payload.writeString(".\r\n")
        try expect(await connection.send(payload), 250)
        // The message is accepted; a QUIT that goes wrong changes nothing.
        await connection.quit(within: configuration.timeout)
    }

    /// EHLO, or HELO when the server does not know EHLO (5xx); nil capabilities after HELO.
    private func hello(_ connection: SMTPConnection, clientName: String, heloAllowed: Bool = true) async throws -> SMTPCapabilities? {
        let reply = try await connection.command("EHLO \(clientName)")
        if reply.code == 250 { return SMTPCapabilities(ehlo: reply) }
        guard heloAllowed, (500...599).contains(reply.code) else {
            try expect(reply, 250)
            return nil
        }
        try expect(await connection.command("HELO \(clientName)"), 250)
        return nil
    }

    private func authenticate(_ connection: SMTPConnection, capabilities: SMTPCapabilities?, username: String, password: String) async throws {
        let mechanisms = capabilities?.authMechanisms ?? []
        if mechanisms.contains("PLAIN") {
            let token = Data(([0] + Array(username.utf8) + [0] + Array(password.utf8))).base64EncodedString()
            var reply = try await connection.command("AUTH PLAIN \(token)", secret: true)
            if reply.code == 334 {
                // A server that ignores the initial response asks for it again.
                reply = try await connection.command(token, secret: true)
            }
            try expect(reply, 235)
        } else if mechanisms.contains("LOGIN") {
            try expect(await connection.command("AUTH LOGIN"), 334)
            try expect(await connection.command(Data(username.utf8).base64EncodedString(), secret: true), 334)
            try expect(await connection.command(Data(password.utf8).base64EncodedString(), secret: true), 235)
        } else {
            throw SMTPError.protocolViolation(
                mechanisms.isEmpty
                    ? "credentials are set but the server offers no AUTH"
                    : "the server offers AUTH \(mechanisms.sorted().joined(separator: " ")), not PLAIN or LOGIN"
            )
        }
    }

    private func expect(_ reply: SMTPReply, _ codes: Int...) throws {
        if codes.contains(reply.code) { return }
        if reply.code >= 400 { throw SMTPError.rejected(code: reply.code, message: reply.message) }
        throw SMTPError.protocolViolation("expected \(codes.map(String.init).joined(separator: " or ")), got \(reply.code) \(reply.message)")
    }
}

// MARK: - Addresses, headers, body

enum SMTPAddress {
    /// Minimal validation: ASCII `local@domain`, no spaces, controls, quotes, brackets or other
    /// characters that could end the address in a header or an SMTP command.
    static func isValid(_ address: String) -> Bool {
        guard address.utf8.count <= 254, let at = address.lastIndex(of: "@") else { return false }
        let local = address[..<at]
        let domain = address[address.index(after: at)...]
        guard !local.isEmpty, local.utf8.count <= 64, !domain.isEmpty else { return false }
        guard local.utf8.allSatisfy(isLocalPartByte), !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..") else {
            return false
        }
        if domain.hasPrefix("[") && domain.hasSuffix("]") {
            let literal = domain.dropFirst().dropLast()
            return !literal.isEmpty && literal.utf8.allSatisfy { byte in
                (0x21...0x7E).contains(byte) && byte != UInt8(ascii: "[") && byte != UInt8(ascii: "]") && byte != UInt8(ascii: "\\")
            }
        }
        return SMTPConfiguration.isValidDomain(String(domain)) && !domain.hasSuffix(".") && !domain.hasSuffix("-")
            && !domain.contains("_")
    }

    private static func isLocalPartByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            // RFC 5322 atext, and the dot.
            return "!#$%&'*+-/=?^_`{|}~.".utf8.contains(byte)
        }
    }

    /// A configured EHLO name if it is a domain or an address literal, nil otherwise.
    static func validHeloName(_ name: String) -> String? {
        isValid("x@\(name)") ? name : nil
    }

    static func domain(of address: String) -> String {
        address.lastIndex(of: "@").map { String(address[address.index(after: $0)...]) } ?? "localhost"
    }
}

/// A checked message, ready to be rendered once the server's extensions are known.
struct SMTPEnvelope: Sendable {
    let from: String
    let to: String
    let subject: String
    let text: String

    /// Refuses, before any connection, what could break out of its header or the SMTP command.
    init(message: MailMessage, from: String) throws {
        guard !message.to.contains(where: { $0 == "\r" || $0 == "\n" }) else {
            throw SMTPError.invalidMessage("the recipient holds a line break")
        }
        guard SMTPAddress.isValid(message.to) else {
            throw SMTPError.invalidMessage("'\(message.to)' is not an email address")
        }
        guard SMTPAddress.isValid(from) else {
            throw SMTPError.invalidMessage("'\(from)' is not an email address")
        }
        guard !message.subject.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw SMTPError.invalidMessage("the subject holds a line break")
        }
        guard message.subject.utf8.count <= 2_000 else {
            throw SMTPError.invalidMessage("the subject is longer than 2,000 bytes")
        }
        self.from = from
        self.to = message.to
        self.subject = message.subject
        self.text = message.text
    }

    /// The message as DATA carries it, before dot-stuffing: headers and body with CRLF line
    /// endings, ending in CRLF.
    func render(eightBitAllowed: Bool, date: Date = Date(), messageID: String? = nil) -> SMTPData {
        let lines = SMTPData.lines(of: text)
        let ascii = text.utf8.allSatisfy { $0 < 0x80 }
        let clean = !text.unicodeScalars.contains("\0") && lines.allSatisfy { $0.utf8.count <= 998 }
        let encoding: String
        let body: String
        if clean && ascii {
            encoding = "7bit"
            body = lines.joined(separator: "\r\n")
        } else if clean && eightBitAllowed {
            encoding = "8bit"
            body = lines.joined(separator: "\r\n")
        } else {
            encoding = "base64"
            let normalized = Data(lines.joined(separator: "\r\n").utf8)
            body = normalized.base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
        }
        let id = messageID ?? "<\(UUID().uuidString.lowercased())@\(SMTPAddress.domain(of: from))>"
        let headers = [
            "From: \(from)",
            "To: \(to)",
            "Subject: \(SMTPData.encodedHeaderText(subject))",
            "Date: \(SMTPData.rfc5322Date(date))",
            "Message-ID: \(id)",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=UTF-8",
            "Content-Transfer-Encoding: \(encoding)",
            "Auto-Submitted: auto-generated",
        ]
        let whole = headers.joined(separator: "\r\n") + "\r\n\r\n" + body + "\r\n"
        return SMTPData(bytes: Array(whole.utf8), needs8BitMIME: encoding == "8bit")
    }
}

struct SMTPData: Sendable {
    var bytes: [UInt8]
    var needs8BitMIME: Bool

    /// The text split at CRLF, CR or LF.
    static func lines(of text: String) -> [String] {
        var lines: [String] = []
        var current = ""
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                if !previousWasCR { lines.append(current); current = "" }
                previousWasCR = false
            } else if scalar == "\r" {
                lines.append(current)
                current = ""
                previousWasCR = true
            } else {
                current.unicodeScalars.append(scalar)
                previousWasCR = false
            }
        }
        lines.append(current)
        return lines
    }

    /// RFC 5321 4.5.2: a line that starts with "." gets one more.
    static func dotStuffed(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var atLineStart = true
        for byte in bytes {
            if atLineStart && byte == UInt8(ascii: ".") { out.append(UInt8(ascii: ".")) }
            out.append(byte)
            atLineStart = byte == UInt8(ascii: "\n")
        }
        return out
    }

    /// Printable ASCII as it is; anything else as RFC 2047 `=?UTF-8?B?…?=` words of at most
    /// 75 characters, folded onto continuation lines, never splitting a character's bytes.
    static func encodedHeaderText(_ text: String) -> String {
        let printable = text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
        if printable && !text.contains("=?") && text.utf8.count <= 900 { return text }
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > 45 {  // 45 bytes → 60 base64 characters + 12 = 72
                words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}

// MARK: - Replies and capabilities

struct SMTPReply: Sendable, Equatable {
    var code: Int
    var lines: [String]
    var message: String { lines.joined(separator: " ").trimmingCharacters(in: .whitespaces) }
}

struct SMTPCapabilities: Sendable {
    private var keywords: [String: [String]] = [:]

    init(ehlo reply: SMTPReply) {
        for line in reply.lines.dropFirst() {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "=" }).map { $0.uppercased() }
            guard let keyword = words.first else { continue }
            keywords[keyword, default: []].append(contentsOf: words.dropFirst())
        }
    }

    func has(_ keyword: String) -> Bool { keywords[keyword] != nil }
    var authMechanisms: Set<String> { Set(keywords["AUTH"] ?? []) }
}

// MARK: - Connection

struct SMTPTLSUpgrade: Sendable {
    var context: NIOSSLContext
    var serverHostname: String?
}

/// A command (or the DATA payload) on its way out, and the promise of its reply.
struct SMTPRequest: Sendable {
    var bytes: ByteBuffer
    /// For STARTTLS: put TLS in front of everything once the 220 arrives.
    var upgrade: SMTPTLSUpgrade?
    /// Instead of the configured step timeout.
    var timeout: TimeAmount?
    var promise: EventLoopPromise<SMTPReply>
}

/// One connection: every call hops through the channel, so it is Sendable.
struct SMTPConnection: Sendable {
    let channel: any Channel
    private let greetingFuture: EventLoopFuture<SMTPReply>

    static func connect(configuration: SMTPConfiguration, tlsContext: NIOSSLContext?, group: any EventLoopGroup) async throws -> SMTPConnection {
        let eventLoop = group.next()
        let greeting = eventLoop.makePromise(of: SMTPReply.self)
        let timeout = configuration.timeout
        var implicitTLS: SMTPTLSUpgrade?
        if configuration.security == .implicitTLS {
            guard let tlsContext else { throw SMTPError.connectionFailed("TLS is not set up") }
            implicitTLS = SMTPTLSUpgrade(context: tlsContext, serverHostname: isIPAddress(configuration.host) ? nil : configuration.host)
        }
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(timeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { [implicitTLS] channel in
                channel.eventLoop.makeCompletedFuture {
                    if let implicitTLS {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: implicitTLS.context, serverHostname: implicitTLS.serverHostname)
                        )
                    }
                    try channel.pipeline.syncOperations.addHandler(SMTPClientHandler(greeting: greeting, timeout: timeout))
                }
            }
        do {
            let channel = try await bootstrap.connect(host: configuration.host, port: configuration.port).get()
            return SMTPConnection(channel: channel, greetingFuture: greeting.futureResult)
        } catch {
            let mapped: SMTPError
            if case ChannelError.connectTimeout = error {
                mapped = .timeout
            } else if let error = error as? SMTPError {
                mapped = error
            } else {
                mapped = .connectionFailed("\(configuration.host):\(configuration.port): \(error)")
            }
            greeting.fail(mapped)
            throw mapped
        }
    }

    func greeting() async throws -> SMTPReply {
        try await greetingFuture.get()
    }

    /// Sends one command line (CRLF added) and waits for its reply. `secret` lines are
    /// credentials; nothing here logs them either way.
    func command(_ line: String, secret: Bool = false, upgradeTo upgrade: SMTPTLSUpgrade? = nil, timeout: TimeAmount? = nil) async throws -> SMTPReply {
        var buffer = channel.allocator.buffer(capacity: line.utf8.count + 2)
        buffer.writeString(line)
        buffer.writeString("\r\n")
        return try await send(buffer, upgrade: upgrade, timeout: timeout)
    }

    /// QUIT, waiting for the 221 at most 2 seconds (less when the step timeout is shorter): the
    /// outcome is settled by then, and a server that dawdles over goodbye keeps nobody waiting.
    func quit(within timeout: TimeAmount) async {
        _ = try? await command("QUIT", timeout: min(timeout, .seconds(2)))
    }

    func send(_ bytes: ByteBuffer, upgrade: SMTPTLSUpgrade? = nil, timeout: TimeAmount? = nil) async throws -> SMTPReply {
        let promise = channel.eventLoop.makePromise(of: SMTPReply.self)
        let request = SMTPRequest(bytes: bytes, upgrade: upgrade, timeout: timeout, promise: promise)
        channel.writeAndFlush(request).whenFailure { error in
            // Completing twice is harmless: the handler usually got there first with a better reason.
            promise.fail(error as? SMTPError ?? SMTPError.connectionFailed("the connection is closed (\(error))"))
        }
        return try await promise.futureResult.get()
    }

    func close() async {
        try? await channel.close().get()
    }

    var isLoopback: Bool {
        guard let ip = channel.remoteAddress?.ipAddress else { return false }
        return ip.hasPrefix("127.") || ip == "::1" || ip.hasPrefix("::ffff:127.")
    }

    /// `[192.0.2.1]` or `[IPv6:2001:db8::1]`: what RFC 5321 asks a client without a name to say.
    var localAddressLiteral: String {
        switch channel.localAddress {
        case .v4?: return "[\(channel.localAddress?.ipAddress ?? "127.0.0.1")]"
        case .v6?: return "[IPv6:\(channel.localAddress?.ipAddress ?? "::1")]"
        default: return "localhost"
        }
    }

    static func isIPAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }
}

/// Turns bytes into replies and matches each to the request that is waiting for it; runs each
/// request's timer; puts NIOSSL in front when STARTTLS is answered with 220; fails everything
/// that waits when the connection breaks, times out or the server talks nonsense.
final class SMTPClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = SMTPRequest
    typealias OutboundOut = ByteBuffer

    private struct Waiter {
        var promise: EventLoopPromise<SMTPReply>
        var upgrade: SMTPTLSUpgrade?
        var timer: Scheduled<Void>?
    }

    private static let maximumLineLength = 4_096
    private static let maximumLines = 200

    private let timeout: TimeAmount
    private var waiters: [Waiter] = []
    private var buffer = ByteBuffer()
    private var partialLines: [String] = []
    private var partialCode: Int?
    private var failure: SMTPError?
    private var context: ChannelHandlerContext?

    init(greeting: EventLoopPromise<SMTPReply>, timeout: TimeAmount) {
        self.timeout = timeout
        self.waiters = [Waiter(promise: greeting, upgrade: nil, timer: nil)]
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { startGreetingTimer(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        fail(.connectionFailed("the connection is closed"), close: false)
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        startGreetingTimer(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(.connectionFailed("the server closed the connection"), close: false)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? SMTPError {
            fail(error)
        } else if error is NIOSSLError || error is BoringSSLError || error is NIOSSLExtraError {
            fail(.connectionFailed("TLS failed: \(error)"))
        } else {
            fail(.connectionFailed("\(error)"))
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        if let failure {
            request.promise.fail(failure)
            promise?.fail(failure)
            return
        }
        waiters.append(Waiter(promise: request.promise, upgrade: request.upgrade, timer: makeTimer(context: context, timeout: request.timeout)))
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.whenFailure { error in
            request.promise.fail(SMTPError.connectionFailed("could not write: \(error)"))
        }
        context.write(wrapOutboundOut(request.bytes), promise: written)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        guard failure == nil else { return }
        buffer.writeBuffer(&incoming)
        while failure == nil, let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - buffer.readerIndex
            var line = buffer.readBytes(length: length)!
            buffer.moveReaderIndex(forwardBy: 1)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            guard line.count <= Self.maximumLineLength else {
                fail(.protocolViolation("a reply line is longer than \(Self.maximumLineLength) bytes"))
                return
            }
            handleLine(line, context: context)
        }
        if buffer.readableBytes > Self.maximumLineLength {
            fail(.protocolViolation("a reply line is longer than \(Self.maximumLineLength) bytes"))
        }
        buffer.discardReadBytes()
    }

    private func handleLine(_ line: [UInt8], context: ChannelHandlerContext) {
        guard line.count >= 3, line[0...2].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            (UInt8(ascii: "2")...UInt8(ascii: "5")).contains(line[0])
        else {
            fail(.protocolViolation("not a reply: \(String(decoding: line.prefix(80), as: UTF8.self))"))
            return
        }
        let code = Int(String(decoding: line[0...2], as: UTF8.self))!
        let separator = line.count > 3 ? line[3] : UInt8(ascii: " ")
        guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else {
            fail(.protocolViolation("not a reply: \(String(decoding: line.prefix(80), as: UTF8.self))"))
            return
        }
        guard partialCode == nil || partialCode == code else {
            fail(.protocolViolation("a multi-line reply changed its code from \(partialCode!) to \(code)"))
            return
        }
        partialCode = code
        partialLines.append(String(decoding: line.dropFirst(4), as: UTF8.self))
        guard partialLines.count <= Self.maximumLines else {
            fail(.protocolViolation("a reply has more than \(Self.maximumLines) lines"))
            return
        }
        if separator == UInt8(ascii: "-") { return }

        let reply = SMTPReply(code: code, lines: partialLines)
        partialLines = []
        partialCode = nil
        guard !waiters.isEmpty else {
            fail(.protocolViolation("a reply nobody asked for: \(reply.code) \(reply.message)"))
            return
        }
        let waiter = waiters.removeFirst()
        waiter.timer?.cancel()
        if let upgrade = waiter.upgrade, reply.code == 220 {
            // Anything already received after the 220 came before TLS: it could be injected.
            guard buffer.readableBytes == 0 else {
                let error = SMTPError.protocolViolation("the server sent data after agreeing to STARTTLS")
                waiter.promise.fail(error)
                fail(error)
                return
            }
            do {
                let tls = try NIOSSLClientHandler(context: upgrade.context, serverHostname: upgrade.serverHostname)
                try context.pipeline.syncOperations.addHandler(tls, position: .first)
            } catch {
                let error = SMTPError.connectionFailed("TLS failed: \(error)")
                waiter.promise.fail(error)
                fail(error)
                return
            }
        }
        waiter.promise.succeed(reply)
    }

    private func startGreetingTimer(context: ChannelHandlerContext) {
        guard let first = waiters.first, first.timer == nil, waiters.count == 1 else { return }
        waiters[0].timer = makeTimer(context: context)
    }

    private func makeTimer(context: ChannelHandlerContext, timeout: TimeAmount? = nil) -> Scheduled<Void> {
        context.eventLoop.assumeIsolated().scheduleTask(in: timeout ?? self.timeout) { [weak self] in
            self?.fail(.timeout)
        }
    }

    /// Fails whatever waits, remembers why, and closes the connection.
    private func fail(_ error: SMTPError, close: Bool = true) {
        if failure == nil { failure = error }
        let pending = waiters
        waiters = []
        for waiter in pending {
            waiter.timer?.cancel()
            waiter.promise.fail(error)
        }
        if close, let context {
            context.close(promise: nil)
        }
    }
}
