import Crypto
import Foundation
import Messaging
package import NIOConcurrencyHelpers
package import NIOCore
import NIOPosix
package import NIOSSL
import SwiftASN1
package import X509
import XCTest

// MARK: - Test PKI

/// A CA and a server certificate for the given names, made at test time.
package struct SMTPTestPKI {
    package let rootPEM: String
    package let serverContext: NIOSSLContext

    package init(names: [GeneralName]) throws {
        let ca = try TestCertificateAuthority(commonName: "WhatWeEat SMTP Test CA")
        let serverKey = P256.Signing.PrivateKey()
        let leaf = try ca.issue(commonName: "test smtp server", key: serverKey, extensions: try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(names)
        })
        rootPEM = try ca.certificate.serializeAsPEM().pemString
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(try leaf.serializeAsPEM().pemString.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(serverKey.pemRepresentation.utf8), format: .pem))
        )
        serverContext = try NIOSSLContext(configuration: configuration)
    }
}

// MARK: - Test SMTP server

/// A real SMTP server on 127.0.0.1 and a port of the system's choosing.
package final class TestSMTPServer: Sendable {
    package struct Refusal: Sendable {
        package var code: Int
        /// Lines separated by "\n" become a multi-line reply.
        package var text: String
        package init(_ code: Int, _ text: String) {
            self.code = code
            self.text = text
        }
    }

    package struct Behavior: Sendable {
        /// EHLO keywords after the greeting line (STARTTLS is added when `startTLS` is set).
        package var capabilities: [String] = ["SIZE 1000000", "AUTH PLAIN LOGIN"]
        /// Verb ("EHLO", "MAIL", "RCPT", "DATA", "AUTH"), "GREETING", or "." for the end of DATA.
        package var refusals: [String: Refusal] = [:]
        /// Never answer this step (same names as `refusals`).
        package var silentAt: String?
        /// Close the connection instead of answering this step.
        package var hangUpAt: String?
        /// Answer this step with something that is not an SMTP reply.
        package var garbageAt: String?
        package var startTLS: NIOSSLContext?
        package var implicitTLS: NIOSSLContext?
        /// After "220" to STARTTLS, send a plaintext reply in the same write (an injection).
        package var injectAfterSTARTTLS = false

        package init(capabilities: [String] = ["SIZE 1000000", "AUTH PLAIN LOGIN"], refusals: [String: Refusal] = [:], silentAt: String? = nil, hangUpAt: String? = nil, garbageAt: String? = nil, startTLS: NIOSSLContext? = nil, implicitTLS: NIOSSLContext? = nil,
                     injectAfterSTARTTLS: Bool = false) {
            self.capabilities = capabilities
            self.refusals = refusals
            self.silentAt = silentAt
            self.hangUpAt = hangUpAt
            self.garbageAt = garbageAt
            self.startTLS = startTLS
            self.implicitTLS = implicitTLS
            self.injectAfterSTARTTLS = injectAfterSTARTTLS
        }
    }

    package struct Record: Sendable {
        package var connections = 0
        package var closed = 0
        package var verbs: [String] = []
        package var helloNames: [String] = []
        package var mailFrom: [String] = []
        package var rcptTo: [String] = []
        /// Each message as received after DATA, un-stuffed, lines ending in CRLF.
        package var messages: [[UInt8]] = []
        /// DATA lines that started with "." and lost it.
        package var stuffedLines = 0
        /// AUTH PLAIN: authorization id, user, password.
        package var plainCredentials: [[String]] = []
        /// AUTH LOGIN: user, password.
        package var loginCredentials: [[String]] = []
        package var bareLineFeeds = 0
        /// Whether TLS was on when a verb arrived (the last time).
        package var tlsAtCommand: [String: Bool] = [:]
    }

    package let port: Int
    private let channel: any Channel
    private let state: NIOLockedValueBox<Record>

    package var record: Record { state.withLockedValue { $0 } }

    private init(port: Int, channel: any Channel, state: NIOLockedValueBox<Record>) {
        self.port = port
        self.channel = channel
        self.state = state
    }

    package static func start(_ behavior: Behavior) async throws -> TestSMTPServer {
        let state = NIOLockedValueBox(Record())
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls = behavior.implicitTLS {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        TestSMTPSession(behavior: behavior, state: state, tlsActive: behavior.implicitTLS != nil)
                    )
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return TestSMTPServer(port: channel.localAddress?.port ?? 0, channel: channel, state: state)
    }

    package func stop() {
        try? channel.close().wait()
    }

    /// Waits (up to 20 s) until every connection made so far has closed, then returns the record.
    package func waitUntilAllClosed() async -> Record {
        for _ in 0..<2_000 {
            let now = record
            if now.connections > 0 && now.closed == now.connections { return now }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return record
    }
}

/// One connection of the test server.
package final class TestSMTPSession: ChannelInboundHandler {
    package typealias InboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private enum Mode {
        case command
        case data([UInt8])
        case authPlain
        case authLoginUser
        case authLoginPassword(user: String)
        case silent
    }

    private let behavior: TestSMTPServer.Behavior
    private let state: NIOLockedValueBox<TestSMTPServer.Record>
    private var tlsActive: Bool
    private var mode = Mode.command
    private var buffer = ByteBuffer()

    package init(behavior: TestSMTPServer.Behavior, state: NIOLockedValueBox<TestSMTPServer.Record>, tlsActive: Bool) {
        self.behavior = behavior
        self.state = state
        self.tlsActive = tlsActive
    }

    package func channelActive(context: ChannelHandlerContext) {
        state.withLockedValue { $0.connections += 1 }
        if intercept("GREETING", context: context) == false {
            reply(context, 220, "test.smtp ESMTP ready")
        }
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        state.withLockedValue { $0.closed += 1 }
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A failed handshake, a reset: hang up.
        context.close(promise: nil)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        buffer.writeBuffer(&incoming)
        while let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
            var line = buffer.readBytes(length: newline - buffer.readerIndex)!
            buffer.moveReaderIndex(forwardBy: 1)
            if line.last == UInt8(ascii: "\r") {
                line.removeLast()
            } else {
                state.withLockedValue { $0.bareLineFeeds += 1 }
            }
            handle(line, context: context)
            if case .silent = mode { buffer.clear(); return }
        }
        buffer.discardReadBytes()
    }

    private func handle(_ line: [UInt8], context: ChannelHandlerContext) {
        switch mode {
        case .silent:
            return
        case .data(var message):
            if line == [UInt8(ascii: ".")] {
                mode = .command
                state.withLockedValue { $0.messages.append(message) }
                if intercept(".", context: context) == false { reply(context, 250, "2.0.0 Ok: queued as TEST1") }
                return
            }
            var content = line[...]
            if content.first == UInt8(ascii: ".") {
                content = content.dropFirst()
                state.withLockedValue { $0.stuffedLines += 1 }
            }
            message += content
            message += [13, 10]
            mode = .data(message)
            return
        case .authPlain:
            mode = .command
            finishPlain(String(decoding: line, as: UTF8.self), context: context)
            return
        case .authLoginUser:
            mode = .authLoginPassword(user: decode64(String(decoding: line, as: UTF8.self)))
            reply(context, 334, "UGFzc3dvcmQ6")
            return
        case .authLoginPassword(let user):
            mode = .command
            let password = decode64(String(decoding: line, as: UTF8.self))
            state.withLockedValue { $0.loginCredentials.append([user, password]) }
            reply(context, 235, "2.7.0 Authentication successful")
            return
        case .command:
            break
        }

        let text = String(decoding: line, as: UTF8.self)
        let words = text.split(separator: " ", maxSplits: 1)
        let verb = words.first.map { $0.split(separator: ":").first.map(String.init) ?? "" }?.uppercased() ?? ""
        let argument = words.count > 1 ? String(words[1]) : ""
        state.withLockedValue {
            $0.verbs.append(verb)
            $0.tlsAtCommand[verb] = tlsActive
        }
        if intercept(verb, context: context) { return }

        switch verb {
        case "EHLO":
            state.withLockedValue { $0.helloNames.append(argument) }
            var lines = ["test.smtp greets \(argument)"] + behavior.capabilities
            if behavior.startTLS != nil && !tlsActive { lines.append("STARTTLS") }
            replyLines(context, 250, lines)
        case "HELO":
            state.withLockedValue { $0.helloNames.append(argument) }
            reply(context, 250, "test.smtp")
        case "STARTTLS":
            guard let tls = behavior.startTLS, !tlsActive else { return reply(context, 502, "5.5.1 No TLS here") }
            var out = context.channel.allocator.buffer(string: "220 2.0.0 Ready to start TLS\r\n")
            if behavior.injectAfterSTARTTLS { out.writeString("250 injected before the handshake\r\n") }
            context.writeAndFlush(wrapOutboundOut(out), promise: nil)
            buffer.clear()
            tlsActive = true
            do {
                try context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls), position: .first)
            } catch {
                context.close(promise: nil)
            }
        case "AUTH":
            let parts = argument.split(separator: " ")
            switch parts.first?.uppercased() {
            case "PLAIN" where parts.count == 2:
                finishPlain(String(parts[1]), context: context)
            case "PLAIN":
                mode = .authPlain
                reply(context, 334, "")
            case "LOGIN":
                mode = .authLoginUser
                reply(context, 334, "VXNlcm5hbWU6")
            default:
                reply(context, 504, "5.5.4 Unrecognized authentication type")
            }
        case "MAIL":
            state.withLockedValue { $0.mailFrom.append(String(text.dropFirst("MAIL FROM:".count))) }
            reply(context, 250, "2.1.0 Ok")
        case "RCPT":
            state.withLockedValue { $0.rcptTo.append(String(text.dropFirst("RCPT TO:".count))) }
            reply(context, 250, "2.1.5 Ok")
        case "DATA":
            mode = .data([])
            reply(context, 354, "End data with <CR><LF>.<CR><LF>")
        case "QUIT":
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: "221 2.0.0 Bye\r\n"))).whenComplete { _ in
                bound.value.close(promise: nil)
            }
        case "RSET", "NOOP":
            reply(context, 250, "2.0.0 Ok")
        default:
            reply(context, 502, "5.5.2 Error: command not recognized")
        }
    }

    /// Handles a scripted refusal, silence, hang-up or garbage at `step`; true when it did.
    private func intercept(_ step: String, context: ChannelHandlerContext) -> Bool {
        if behavior.silentAt == step {
            mode = .silent
            return true
        }
        if behavior.hangUpAt == step {
            mode = .silent
            context.close(promise: nil)
            return true
        }
        if behavior.garbageAt == step {
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: "hello there, this is not SMTP\r\n")), promise: nil)
            return true
        }
        if let refusal = behavior.refusals[step] {
            replyLines(context, refusal.code, refusal.text.components(separatedBy: "\n"))
            return true
        }
        return false
    }

    private func finishPlain(_ token: String, context: ChannelHandlerContext) {
        let decoded = Data(base64Encoded: token).map { Array($0) } ?? []
        let parts = decoded.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        state.withLockedValue { $0.plainCredentials.append(parts) }
        reply(context, 235, "2.7.0 Authentication successful")
    }

    private func decode64(_ text: String) -> String {
        Data(base64Encoded: text).map { String(decoding: $0, as: UTF8.self) } ?? "<bad base64>"
    }

    private func reply(_ context: ChannelHandlerContext, _ code: Int, _ text: String) {
        replyLines(context, code, [text])
    }

    private func replyLines(_ context: ChannelHandlerContext, _ code: Int, _ lines: [String]) {
        var out = context.channel.allocator.buffer(capacity: 256)
        for (index, line) in lines.enumerated() {
            out.writeString("\(code)\(index == lines.count - 1 ? " " : "-")\(line)\r\n")
        }
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
    }
}
