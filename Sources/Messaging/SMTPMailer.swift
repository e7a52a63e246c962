import Foundation
package import NIOCore
import NIOPosix
import NIOSSL
package import Platform

// A small SMTP client (RFC 5321) on SwiftNIO: EHLO/HELO, STARTTLS (RFC 3207) or implicit TLS,
// AUTH PLAIN/LOGIN, one message to one recipient, a reply code checked at every step, a timeout
// for every step, and the connection always closed. Messages are text/plain in UTF-8.

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
    /// What a message's `Date:` header says.
    private let clock: Now

    package init(configuration: SMTPConfiguration, eventLoopGroup: any EventLoopGroup, clock: @escaping Now = WallClock.now) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.clock = clock
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
        let data = envelope.render(eightBitAllowed: eightBit, date: clock())
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
