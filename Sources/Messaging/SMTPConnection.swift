import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Platform

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
    package typealias InboundIn = ByteBuffer
    typealias OutboundIn = SMTPRequest
    package typealias OutboundOut = ByteBuffer

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
