import Metrics
import NIOConcurrencyHelpers
package import NIOCore
import NIOHTTP1
import NIOWebSocket
package import Vapor

/// What a live socket received, in order, from its first frame on.
package enum LiveSocketInput: Sendable {
    case text(String)
    case binary(ByteBuffer)
}

/// The limits of one kind of live socket. Fragmented messages are reassembled by NIO's frame
/// aggregator up to `maxMessageBytes` (past it the socket closes with 1009), every fragment but
/// the last must carry at least `minFragmentBytes` (so a message cannot be a million one-byte
/// frames), and at most `backlog` messages wait for the handler (past it the socket closes 1008).
package struct LiveSocketLimits: Sendable {
    package var maxMessageBytes: Int
    var maxFrameBytes = 1 << 14
    var minFragmentBytes = 1024
    package var backlog = 64

    /// Sockets that only listen (rooms, the inbox): a client has nothing long to say on them.
    package static let listening = LiveSocketLimits(maxMessageBytes: 4 * 1024)

    package var configuration: WebSocket.Configuration {
        var configuration = WebSocket.Configuration()
        configuration.maxAccumulatedFrameSize = maxMessageBytes
        configuration.minNonFinalFragmentSize = min(minFragmentBytes, maxMessageBytes)
        configuration.maxAccumulatedFrameCount = max(1, maxMessageBytes / max(1, minFragmentBytes) + 1)
        return configuration
    }

    package init(maxMessageBytes: Int, backlog: Int = 64) {
        self.maxMessageBytes = maxMessageBytes
        self.backlog = backlog
    }
}

/// Vapor's `WebSocketUpgrader` with two differences: websocket-kit's frame aggregator gets our
/// limits (Vapor passes none, so one fragmented message could grow without end), and `onUpgrade`
/// is called on the event loop in the same step that installs the WebSocket handlers, before any
/// frame is read — callbacks set there hear the first frame a client sends after the 101.
struct LiveSocketUpgrader: Upgrader {
    package let limits: LiveSocketLimits
    package let headers: HTTPHeaders
    let onUpgrade: @Sendable (WebSocket) -> Void

    func applyUpgrade(req: Request, res: Response) -> any HTTPServerProtocolUpgrader {
        let headers = headers, limits = limits, onUpgrade = onUpgrade
        return NIOWebSocketServerUpgrader(
            // A frame is never larger than a message may be (unfragmented frames skip the aggregator).
            maxFrameSize: min(limits.maxFrameBytes, limits.maxMessageBytes), automaticErrorHandling: false,
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(headers) },
            upgradePipelineHandler: { channel, _ in
                WebSocket.server(on: channel, config: limits.configuration, onUpgrade: onUpgrade).flatMap {
                    channel.pipeline.addHandler(EndAfterFrameError())
                }
            })
    }
}

/// websocket-kit answers a frame the limits refuse (a message past its size, a fragment too
/// small) with a close frame, then waits for the client's own close; a client that sends on
/// regardless would keep the server reading and refusing. The connection ends a moment after
/// the close frame went out.
final class EndAfterFrameError: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = WebSocketFrame

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is NIOWebSocketFrameAggregator.Error || error is NIOWebSocketError else {
            context.fireErrorCaught(error)
            return
        }
        let channel = context.channel
        channel.eventLoop.scheduleTask(in: .milliseconds(200)) { channel.close(promise: nil) }
    }
}

extension Request {
    /// Upgrades to a live WebSocket, within the per-network cap (429 before the upgrade when the
    /// client's network already holds the most; a socket that loses a race for the last place is
    /// closed at once with 1008), pinged so the idle timeout leaves it open, with `limits` on what
    /// a client may send. Every live route uses this. `handler` gets what the client sends,
    /// collected from the first frame on (listen before speaking: nothing sent right after the 101
    /// is lost). A socket opened by a signed-in request belongs to its session: it is closed (4401)
    /// when that session or its account ends (`SessionEnd`). `feature` labels the
    /// `whatweeat_websockets_open` gauge.
    package func liveSocket(
        feature: String, limits: LiveSocketLimits = .listening,
        _ handler: @escaping @Sendable (Request, WebSocket, AsyncStream<LiveSocketInput>) async -> Void
    ) throws -> Response {
        let sockets = application.openSockets
        let network = clientNetwork
        let owner = signedInAccount
        guard sockets.hasRoom(for: network) else {
            throw AppError(.tooManyRequests, "too_many_connections", headers: ["Retry-After": "5"])
        }
        let ping = ConnectionLimits.pingInterval(application)
        // The handshake's answer skips the middleware: the instance's name goes on it here.
        let handshakeHeaders: HTTPHeaders = application.settings.instanceName.map { ["X-Served-By": $0] } ?? [:]
        let response = Response(status: .switchingProtocols)
        response.upgrader = LiveSocketUpgrader(limits: limits, headers: handshakeHeaders) { socket in
            // On the event loop, before the first frame: every message from now on is kept.
            let (inputs, feed) = AsyncStream<LiveSocketInput>.makeStream(bufferingPolicy: .bufferingOldest(limits.backlog))
            socket.onText { socket, text in
                if case .dropped = feed.yield(.text(text)) { socket.close(code: .policyViolation, promise: nil) }
            }
            socket.onBinary { socket, buffer in
                if case .dropped = feed.yield(.binary(buffer)) { socket.close(code: .policyViolation, promise: nil) }
            }
            socket.onClose.whenComplete { _ in feed.finish() }
            socket.pingInterval = ping
            Task {
                guard sockets.take(network) else {
                    try? await socket.close(code: .policyViolation)
                    return
                }
                guard sockets.keep(socket, owner: owner, feature: feature) else {
                    sockets.giveBack(network)
                    try? await socket.close(code: OpenSockets.restartCode)
                    return
                }
                let open = Meter(label: "whatweeat_websockets_open", dimensions: [("feature", feature)])
                open.increment()
                socket.onClose.whenComplete { _ in
                    sockets.giveBack(network)
                    sockets.forget(socket)
                    open.decrement()
                }
                await handler(self, socket, inputs)
            }
        }
        return response
    }
}
