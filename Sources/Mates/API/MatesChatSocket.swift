import Accounts
import Notifications
import Platform
import Vapor

/// The live chat of a match, one WebSocket per open screen.
///
/// Server → client: `{"type":"hello","unreadCount":n,"partnerReadAt":…,"open":true}` at once; then
/// every event of the match as it happens, on any instance: `{"type":"message","message":{…},
/// "clientId":…}` (the sender's sockets too; `clientId` lets them drop their own echo),
/// `{"type":"read","userId":…,"readAt":…}`, `{"type":"ended","reason":…,"by":…}`.
///
/// Client → server: `{"type":"send","text":"…","clientId":"…"}` is answered with
/// `{"type":"ack","clientId":…,"message":{…}}` once the line is stored (never before), or
/// `{"type":"error","clientId":…,"error":{"code":…,"message":…}}`; `{"type":"read","messageId":…}`
/// moves the read marker (to the newest line without an id). Anything else gets an `error`.
enum MatesChatSocket {
    struct Incoming: Decodable {
        let type: String
        let text: String?
        let clientId: String?
        let messageId: UUID?
    }

    struct Hello: Encodable {
        let type = "hello"
        let unreadCount: Int
        let partnerReadAt: Date?
        let open: Bool
    }

    struct Ack: Encodable {
        let type = "ack"
        let clientId: String?
        let message: ChatMessage
    }

    package struct Failure: Encodable {
        package struct Detail: Encodable {
            package let code: String
            package let message: String
        }
        package let type = "error"
        let clientId: String?
        package let error: Detail
    }

    /// Incoming lines are longer than a message's 1,000 characters only by their JSON frame.
    static let maxIncomingBytes = 16 * 1024

    static func open(match: MatchRow, me: UUID, _ req: Request) throws -> Response {
        let matchID = match.id
        let limits = LiveSocketLimits(maxMessageBytes: maxIncomingBytes)
        return try req.liveSocket(feature: MatesService.socketFeature, limits: limits) { req, socket, incoming in
            // `incoming` has listened since the 101: a line the client sends at once waits there
            // for the hello to go out. Subscribe before the hello: a line sent in between is
            // forwarded after it, never lost.
            let events = req.application.events.subscribe(to: MatesService.chatTopic(matchID))
            let service = req.mates
            let partner = match.partner(of: me)
            if let current = try? await service.match(matchID, for: me) {
                let hello = Hello(unreadCount: (try? await service.unreadCount(in: current, for: me)) ?? 0,
                                  partnerReadAt: current.readAt(of: partner), open: current.endedAt == nil)
                try? await socket.send(ChatEvent.encode(hello))
            }
            let forwarding = Task {
                for await event in events {
                    guard await req.signedInSessionIsLive() else { return await endSession(socket, req) }
                    try? await socket.send(event)
                }
            }
            socket.onClose.whenComplete { _ in forwarding.cancel() }
            // One line at a time, in the order they came: a reply never overtakes an earlier one.
            for await input in incoming {
                guard case .text(let text) = input else { continue }
                // The session may have ended since the socket opened (sign-out, a reused refresh
                // token): nothing more is sent or stored in its name.
                guard await req.signedInSessionIsLive() else { return await endSession(socket, req) }
                let reply = await handle(text, matchID: matchID, me: me, req: req)
                if let reply { try? await socket.send(reply) }
            }
        }
    }

    /// Tells the client its session ended and closes with 4401 (`OpenSockets.sessionEndedCode`).
    static func endSession(_ socket: WebSocket, _ req: Request) async {
        try? await socket.send(failure(AppError(.unauthorized, "session_ended"), clientId: nil, req))
        try? await socket.close(code: OpenSockets.sessionEndedCode)
    }

    /// What to answer one client line with.
    static func handle(_ text: String, matchID: UUID, me: UUID, req: Request) async -> String? {
        guard let incoming = try? JSONDecoder().decode(Incoming.self, from: Data(text.utf8)) else {
            return failure(AppError.badRequest("malformed_body"), clientId: nil, req)
        }
        let clientId = incoming.clientId.map { String($0.prefix(64)) }
        do {
            // Read again each time: the match may have ended since the socket opened.
            let match = try await req.mates.match(matchID, for: me)
            switch incoming.type {
            case "send":
                let message = try await req.mates.send(incoming.text ?? "", in: match, by: me, clientId: clientId)
                return ChatEvent.encode(Ack(clientId: clientId, message: message))
            case "read":
                _ = try await req.mates.markRead(match, upTo: incoming.messageId, by: me)
                return nil
            default:
                throw AppError.badRequest("unknown_socket_message")
            }
        } catch {
            return failure(error, clientId: clientId, req)
        }
    }

    static func failure(_ error: any Error, clientId: String?, _ req: Request) -> String {
        // The same answer the HTTP route would give (a busy database is "try again", not "broken").
        let appError = AppErrorMiddleware.appError(for: error)
        if appError.status.code >= 500 { req.logger.error("chat socket: \(error)") }
        return ChatEvent.encode(Failure(clientId: clientId, error: .init(code: appError.code, message: req.t(appError.messageKey, appError.arguments))))
    }
}
