package import NIOCore
import NIOWebSocket
package import Vapor

/// What the web server around a Socket.IO endpoint decides, so this module knows nothing of the
/// application it runs in: who may open a session, how a client is told apart, how WebSockets are
/// opened and limited. `PlainSocketIOHost` is Vapor alone; an application with its own rules
/// (per-address caps, proxies, a shutdown that closes sockets) gives its own.
package protocol SocketIOHost: Sendable {
    /// A request from a page of another site is refused (`403 {"code":4,"message":"Forbidden"}`):
    /// browsers let any page open a socket to any host.
    func isForeignOrigin(_ req: Request) -> Bool
    /// The client's address, for the host's per-address limits and for handlers.
    func clientAddress(_ req: Request) -> String
    /// Takes a place for a polling session of `address`; throws the host's refusal when it has none.
    func takePlace(_ address: String, _ app: Application) throws
    /// Gives back a place `takePlace` took, when the polling session ends.
    func givePlaceBack(_ address: String, _ app: Application)
    /// The longest a long poll may wait (under the connection's idle timeout).
    func longestPoll(_ app: Application) -> TimeAmount
    /// Answers a WebSocket upgrade. `handler` gets the socket and every message the client sends
    /// from the first frame on (none may be lost before the handler runs), at most `backlog` waiting.
    func webSocket(
        _ req: Request, feature: String, maxMessageBytes: Int, backlog: Int,
        _ handler: @escaping @Sendable (WebSocket, AsyncStream<SocketFrame>) async -> Void
    ) throws -> Response
}

/// A message a client sent on a WebSocket.
package enum SocketFrame: Sendable {
    case text(String)
    case binary(ByteBuffer)
}

/// Vapor alone: pages of other sites refused (an `Origin` whose host is not the request's `Host`),
/// the peer's address as Vapor sees it, no per-address cap.
struct PlainSocketIOHost: SocketIOHost {
    init() {}

    /// Native clients send no `Origin`; a browser sends its page's, which must be this host and
    /// port, the scheme's default port filled in on both sides (Starscream sends `Host: host:80`
    /// beside `Origin: ws://host`).
    func isForeignOrigin(_ req: Request) -> Bool {
        guard let origin = req.headers.first(name: .origin) else { return false }
        guard let host = req.headers.first(name: .host), let components = URLComponents(string: origin),
              let originHost = components.host, let scheme = components.scheme?.lowercased() else { return true }
        let secure = scheme == "https" || scheme == "wss"
        let originPort = components.port ?? (secure ? 443 : 80)
        let (hostName, hostPort) = Self.split(host)
        // A Host without a port was sent to the default port of the scheme the page uses.
        let hostPortFilledIn = hostPort ?? (secure ? 443 : 80)
        return originHost.lowercased() != hostName || originPort != hostPortFilledIn
    }

    /// `host[:port]` of a `Host` header, the host lower-cased.
    private static func split(_ host: String) -> (String, Int?) {
        let lowered = host.lowercased()
        guard !lowered.hasSuffix("]"), let colon = lowered.lastIndex(of: ":"), let port = Int(lowered[lowered.index(after: colon)...]) else {
            return (lowered.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), nil)
        }
        return (String(lowered[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port)
    }
    func clientAddress(_ req: Request) -> String { req.remoteAddress?.ipAddress ?? "unknown" }
    func takePlace(_ address: String, _ app: Application) throws {}
    func givePlaceBack(_ address: String, _ app: Application) {}
    func longestPoll(_ app: Application) -> TimeAmount { .seconds(25) }

    func webSocket(
        _ req: Request, feature: String, maxMessageBytes: Int, backlog: Int,
        _ handler: @escaping @Sendable (WebSocket, AsyncStream<SocketFrame>) async -> Void
    ) throws -> Response {
        req.webSocket(maxFrameSize: WebSocketMaxFrameSize(integerLiteral: max(1 << 14, maxMessageBytes))) { _, socket in
            // On the event loop, before the first frame: nothing the client sends is lost.
            let (frames, feed) = AsyncStream<SocketFrame>.makeStream(bufferingPolicy: .bufferingOldest(backlog))
            socket.onText { _, text in feed.yield(.text(text)) }
            socket.onBinary { _, buffer in feed.yield(.binary(buffer)) }
            socket.onClose.whenComplete { _ in feed.finish() }
            Task { await handler(socket, frames) }
        }
    }
}

/// Session ids and client ids: 15 random bytes as 20 URL-safe characters, as the reference server's.
enum EngineID {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<15).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }
}

extension WebSocketErrorCode {
    /// 1012 "service restart": the server is going away; clients reconnect (to another instance).
    static let serviceRestart = WebSocketErrorCode(codeNumber: 1012)
}
