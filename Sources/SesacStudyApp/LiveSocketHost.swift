import NIOCore
import Platform
package import SocketIO
package import Vapor

/// The server's rules around its Socket.IO endpoint: another site's pages are refused, a client is
/// its address behind the trusted proxies, every session holds one of its network's socket places
/// (`ClientNetwork`: an IPv4 address, an IPv6 /64),
/// and WebSockets open through `req.liveSocket` (fragment limits, the open-sockets gauge, 1012 at
/// shutdown), as every live route of the server does.
package struct LiveSocketHost: SocketIOHost {
    package init() {}

    package func isForeignOrigin(_ req: Request) -> Bool { req.hasForeignOrigin }

    package func clientAddress(_ req: Request) -> String { req.clientAddress }

    package func takePlace(_ address: String, _ app: Application) throws {
        guard app.openSockets.take(ClientNetwork(address: address)) else {
            throw AppError(.tooManyRequests, "too_many_connections", headers: ["Retry-After": "5"])
        }
    }

    package func givePlaceBack(_ address: String, _ app: Application) {
        app.openSockets.giveBack(ClientNetwork(address: address))
    }

    /// Half the connection's idle timeout, as for live sockets' pings.
    package func longestPoll(_ app: Application) -> TimeAmount { ConnectionLimits.pingInterval(app) }

    package func webSocket(
        _ req: Request, feature: String, maxMessageBytes: Int, backlog: Int,
        _ handler: @escaping @Sendable (WebSocket, AsyncStream<SocketFrame>) async -> Void
    ) throws -> Response {
        try req.liveSocket(feature: feature, limits: LiveSocketLimits(maxMessageBytes: maxMessageBytes, backlog: backlog)) { _, socket, inputs in
            await handler(socket, inputs.frames)
        }
    }
}

extension AsyncStream<LiveSocketInput> {
    /// The same messages as Socket.IO names them, read one by one as the session asks for them, so
    /// the live socket's bounded buffer still bounds what a client can queue.
    var frames: AsyncStream<SocketFrame> {
        let source = OneReader(makeAsyncIterator())
        return AsyncStream<SocketFrame>(unfolding: {
            switch await source.iterator.next() {
            case .text(let text)?: return .text(text)
            case .binary(let buffer)?: return .binary(buffer)
            case nil: return nil
            }
        })
    }
}

/// An iterator read by one consumer at a time (an `AsyncStream(unfolding:)` calls its closure
/// serially), so it may cross into the closure.
private final class OneReader: @unchecked Sendable {
    var iterator: AsyncStream<LiveSocketInput>.Iterator
    init(_ iterator: AsyncStream<LiveSocketInput>.Iterator) { self.iterator = iterator }
}
