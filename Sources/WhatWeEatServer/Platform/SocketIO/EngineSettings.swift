import NIOCore
import NIOWebSocket
import Vapor

/// What a server gives each of its sessions.
struct EngineSettings: Sendable {
    let handler: any SocketIOHandler
    let feature: String
    let path: String
    let pingInterval: TimeAmount
    let pingTimeout: TimeAmount
    let maxPayload: Int
    /// How long a probing WebSocket may take to send `5` (the reference server's 10 s).
    var upgradeTimeout: TimeAmount = .seconds(10)
    /// How long a probing WebSocket may stay silent before it is answered `3probe` anyway
    /// (`EngineSession.beginProbe`).
    var probeFallback: TimeAmount = .seconds(1)
    /// How long a session may stay without joining the namespace (the reference server's 45 s).
    var connectTimeout: TimeAmount = .seconds(45)
    /// Packets of one client waiting for the handler; a client that sends more is cut off.
    var backlog = 256
    /// Bytes one session may hold for its client (packets waiting for a poll, or written to a
    /// WebSocket the client has not read yet) and bytes of its client's packets waiting for the
    /// handler. Past either the session is closed: a client that posts and never polls, or never
    /// reads its socket, cannot make the server keep more for it.
    var maxBufferedBytes = 1_000_000
}

/// The request that opened a session.
struct EngineOrigin: Sendable {
    let address: String
    let headers: HTTPHeaders
    let application: Application
}

/// Why a session ended (logged at debug).
enum EngineCloseReason: String, Sendable {
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
        case .shutdown: OpenSockets.restartCode
        default: .normalClosure
        }
    }
}
