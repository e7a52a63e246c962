import NIOConcurrencyHelpers
package import Vapor

/// What a feature does with the clients of the default namespace `/`. Calls for one client come
/// one at a time, in the order its packets arrived: `connected`, then `received` for each event,
/// then `disconnected` exactly once (whoever ended it: the client, the heartbeat, the server).
package protocol SocketIOHandler: Sendable {
    func connected(_ client: SocketIOClient) async
    /// An event from the client. When the client asked for an acknowledgement, the returned values
    /// answer it (nil = empty ack `[]`); otherwise they are dropped.
    func received(event: String, arguments: [SocketIOValue], from client: SocketIOClient) async -> [SocketIOValue]?
    func disconnected(_ client: SocketIOClient) async
}

/// One connected client of the default namespace (its Socket.IO sid), whatever its transport
/// (polling, websocket, or polling upgraded to websocket).
package final class SocketIOClient: Sendable {
    /// The Socket.IO session id sent in `40{"sid":…}`.
    package let id: String
    /// `req.clientAddress` of the request that opened the session.
    package let address: String
    /// Headers of the request that opened the session.
    package let headers: HTTPHeaders
    /// The CONNECT packet's payload, if any (`40{"token":"…"}`).
    package let auth: SocketIOValue?
    package let application: Application
    private let session: EngineSession
    private let state = NIOLockedValueBox(State())

    private struct State {
        var open = true
        /// The handler has been told of the end.
        var ended = false
    }

    package init(session: EngineSession, auth: SocketIOValue?) {
        self.id = EngineID.make()
        self.address = session.origin.address
        self.headers = session.origin.headers
        self.auth = auth
        self.application = session.origin.application
        self.session = session
    }

    /// The Engine.IO session under this client (for logs).
    package var engineID: String { session.id }

    package var logger: Logger { session.logger }

    package var isConnected: Bool { state.withLockedValue { $0.open } }

    /// Sends `42["event",…]`; silently dropped once closed.
    package func emit(_ event: String, _ arguments: [SocketIOValue]) async {
        guard isConnected else { return }
        await session.send(.message(SocketIOPacket(.event, data: .array([.string(event)] + arguments)).encoded))
    }

    /// Sends `41` and closes the transport; the client does not reconnect by itself.
    package func disconnect() async {
        let wasOpen = state.withLockedValue { state in
            defer { state.open = false }
            return state.open
        }
        guard wasOpen else { return }
        await session.send(.message(SocketIOPacket(.disconnect).encoded))
        await session.close(.serverDisconnect)
    }

    /// Marks the client gone; true the first time only (the handler is then told).
    fileprivate func end() -> Bool {
        state.withLockedValue { state in
            state.open = false
            defer { state.ended = true }
            return !state.ended
        }
    }
}

/// The Socket.IO layer over one Engine.IO session: the default namespace and nothing else.
enum SocketIONamespace {
    static let invalidNamespace: SocketIOValue = ["message": "Invalid namespace"]
    static let binaryUnsupported: SocketIOValue = ["message": "Binary packets are not supported"]
    /// The longest namespace a CONNECT_ERROR repeats; longer ones are ignored.
    static let maxEchoedNamespaceBytes = 64

    /// Handles the session's Socket.IO packets one at a time until it ends, then tells the handler.
    static func serve(_ session: EngineSession) async {
        let handler = session.settings.handler
        var client: SocketIOClient?

        func send(_ packet: SocketIOPacket) async {
            await session.send(.message(packet.encoded))
        }
        func end(_ gone: SocketIOClient?) async {
            if let gone, gone.end() { await handler.disconnected(gone) }
            client = nil
        }

        for await text in session.messages {
            session.taken(text)
            guard let packet = SocketIOPacket(decoding: text) else {
                session.logger.debug("socket.io: malformed packet ignored")
                continue
            }
            guard packet.namespace == "/" else {
                // Answered as the reference server does, but never with a long name echoed back:
                // a client could make every answer as large as its packets.
                if packet.kind == .connect, packet.namespace.utf8.count <= maxEchoedNamespaceBytes {
                    await send(SocketIOPacket(.connectError, namespace: packet.namespace, data: invalidNamespace))
                }
                continue
            }
            switch packet.kind {
            case .connect:
                if let current = client, current.isConnected {
                    // Asked again: the same answer, and the handler is not told twice.
                    await send(SocketIOPacket(.connect, data: ["sid": .string(current.id)]))
                    continue
                }
                if let auth = packet.data, auth.object == nil {
                    session.logger.debug("socket.io: CONNECT with a payload that is not an object ignored")
                    continue
                }
                let joined = SocketIOClient(session: session, auth: packet.data)
                client = joined
                await session.namespaceConnected()
                await send(SocketIOPacket(.connect, data: ["sid": .string(joined.id)]))
                await handler.connected(joined)
            case .event:
                guard let current = client, current.isConnected else {
                    session.logger.debug("socket.io: event before CONNECT ignored")
                    continue
                }
                guard let items = packet.data?.array, let name = items.first?.string else {
                    session.logger.debug("socket.io: event without a name ignored")
                    continue
                }
                let reply = await handler.received(event: name, arguments: Array(items.dropFirst()), from: current)
                if let id = packet.id, current.isConnected {
                    await send(SocketIOPacket(.ack, id: id, data: .array(reply ?? [])))
                }
            case .disconnect:
                await end(client)
            case .binaryEvent, .binaryAck:
                // The client's socket is done with once it reads CONNECT_ERROR; so is ours.
                await send(SocketIOPacket(.connectError, data: binaryUnsupported))
                await end(client)
            case .ack, .connectError:
                session.logger.debug("socket.io: unexpected \(packet.kind) packet ignored")
            }
        }
        await end(client)
    }
}
