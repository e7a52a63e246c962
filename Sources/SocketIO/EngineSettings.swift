package import NIOCore
import NIOWebSocket
package import Vapor

/// What a server gives each of its sessions.
package struct EngineSettings: Sendable {
    package let handler: any SocketIOHandler
    /// The web server's rules around the endpoint (origins, addresses, WebSockets).
    package let host: any SocketIOHost
    package let feature: String
    package let path: String
    package let pingInterval: TimeAmount
    let pingTimeout: TimeAmount
    let maxPayload: Int
    /// How long a probing WebSocket may take to send `5` (the reference server's 10 s).
    var upgradeTimeout: TimeAmount = .seconds(10)
    /// How long a probing WebSocket may stay silent before it is answered `3probe` anyway
    /// (`EngineSession.beginProbe`).
    var probeFallback: TimeAmount = .seconds(1)
    /// How long a session may stay without joining the namespace (the reference server's 45 s).
    package var connectTimeout: TimeAmount = .seconds(45)
    /// Packets of one client waiting for the handler; a client that sends more is cut off.
    package var backlog = 256
    /// Bytes one session may hold for its client (packets waiting for a poll, or written to a
    /// WebSocket the client has not read yet) and bytes of its client's packets waiting for the
    /// handler. Past either the session is closed: a client that posts and never polls, or never
    /// reads its socket, cannot make the server keep more for it.
    var maxBufferedBytes = 1_000_000
}

/// The request that opened a session.
package struct EngineOrigin: Sendable {
    package let address: String
    package let headers: HTTPHeaders
    package let application: Application
}

/// Why a session ended (logged at debug).
package enum EngineCloseReason: String, Sendable {
    case clientClose = "client close"
    case transportClose = "transport close"
    case pingTimeout = "ping timeout"
    case connectTimeout = "connect timeout"
    case pollOverlap = "overlapping polls"
    case tooLarge = "payload too large"
    case backlog = "too many packets waiting"
    case slowReader = "client not reading"
    case serverDisconnect = "server disconnect"
    case shutdown = "server shutting down"

    var webSocketCode: WebSocketErrorCode {
        switch self {
        case .tooLarge: .messageTooLarge
        case .backlog, .slowReader: .policyViolation
        case .shutdown: .serviceRestart
        default: .normalClosure
        }
    }
}
