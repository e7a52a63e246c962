import NIOConcurrencyHelpers
package import NIOCore
import NIOWebSocket
package import Vapor

/// Serves Engine.IO 4 / Socket.IO 5 at `/<path>/` (default `socket.io`): what socket.io-client-swift
/// 16 and python-socketio 5 speak, over a WebSocket, over long-polling, or polling upgraded to a
/// WebSocket. One handler serves the default namespace `/`. docs/SOCKETIO.md has the details.
///
/// Every WebSocket goes through `req.liveSocket(feature:)` (per-address cap, the open-sockets
/// gauge, 1012 at shutdown); a polling session holds one of its address's places too.
/// Engine.IO's own errors are answered as the reference server words them
/// (`400 {"code":1,"message":"Session ID unknown"}`), not as the app's error envelope.
///
/// A request (polling or WebSocket) whose `Origin` is another site's is refused with
/// `403 {"code":4,"message":"Forbidden"}`: browsers let any page open a socket to any host, and
/// a page elsewhere must not speak for a person whose browser (or network address) it runs on.
/// Native clients send no `Origin`, or this server's.
package struct SocketIOServer: Sendable {
    /// What every session of this server is given (handler, path, heartbeat, limits).
    package let settings: EngineSettings

    package init(
        handler: any SocketIOHandler, feature: String, host: any SocketIOHost = PlainSocketIOHost(), path: String = "socket.io",
        pingInterval: TimeAmount = .seconds(25), pingTimeout: TimeAmount = .seconds(20), maxPayload: Int = 1_000_000,
        maxBufferedBytes: Int = 1_000_000
    ) {
        var settings = EngineSettings(handler: handler, host: host, feature: feature, path: path.split(separator: "/").joined(separator: "/"),
                                      pingInterval: pingInterval, pingTimeout: pingTimeout, maxPayload: maxPayload)
        settings.maxBufferedBytes = maxBufferedBytes
        self.settings = settings
    }

    package var handler: any SocketIOHandler { settings.handler }
    package var feature: String { settings.feature }
    package var path: String { settings.path }
    package var pingInterval: TimeAmount { settings.pingInterval }
    var maxPayload: Int { settings.maxPayload }

    /// GET and POST `/<path>`; Vapor's router drops empty segments, so `/<path>/` (what the
    /// clients request) reaches the same routes.
    package func register(on routes: any RoutesBuilder) {
        let components = path.split(separator: "/").map { PathComponent.constant(String($0)) }
        routes.on(.GET, components) { req in try await self.get(req) }
        routes.on(.POST, components, body: .stream) { req in try await self.post(req) }
    }

    // MARK: Requests

    package func get(_ req: Request) async throws -> Response {
        // Vapor answers HEAD with the GET route; a HEAD must not open a session.
        guard req.method == .GET else { return EngineError.badRequest.response }
        guard !settings.host.isForeignOrigin(req) else { return EngineError.forbidden.response }
        guard req.query[String.self, at: "EIO"] == "4" else { return EngineError.unsupportedProtocolVersion.response }
        let sid = req.query[String.self, at: "sid"]
        switch req.query[String.self, at: "transport"] {
        case "polling":
            guard let sid else { return try await openPolling(req) }
            guard let session = session(sid, req) else { return EngineError.unknownSession.response }
            switch await session.takePackets(wait: pollWait(req.application)) {
            case .packets(let packets):
                return .engineText(packets.joined(separator: String(EnginePacket.separator)))
            case .unknownSession:
                return EngineError.unknownSession.response
            case .overlap, .wrongTransport:
                return EngineError.badRequest.response
            }
        case "websocket":
            guard Self.isWebSocketUpgrade(req) else { return EngineError.badRequest.response }
            guard let sid else { return try openWebSocket(req) }
            guard let session = session(sid, req) else { return EngineError.unknownSession.response }
            guard await session.canUpgrade else { return EngineError.badRequest.response }
            return try upgrade(session, req)
        default:
            return EngineError.unknownTransport.response
        }
    }

    package func post(_ req: Request) async throws -> Response {
        guard !settings.host.isForeignOrigin(req) else { return EngineError.forbidden.response }
        guard req.query[String.self, at: "EIO"] == "4" else { return EngineError.unsupportedProtocolVersion.response }
        switch req.query[String.self, at: "transport"] {
        case "polling": break
        case "websocket": return EngineError.badRequest.response
        default: return EngineError.unknownTransport.response
        }
        guard let sid = req.query[String.self, at: "sid"] else { return EngineError.badHandshakeMethod.response }
        guard let session = session(sid, req) else { return EngineError.unknownSession.response }
        let declared = req.headers.first(name: .contentLength).flatMap(Int.init) ?? 0
        let body: ByteBuffer?
        do {
            guard declared <= maxPayload else { throw Abort(.payloadTooLarge) }
            body = try await req.body.collect(max: maxPayload).get()
            // A body that came whole is not measured by `collect`.
            guard (body?.readableBytes ?? 0) <= maxPayload else { throw Abort(.payloadTooLarge) }
        } catch let error as Abort where error.status == .payloadTooLarge {
            await session.close(.tooLarge)
            return Response(status: .payloadTooLarge)
        }
        switch await session.receivedPayload(body.map { String(buffer: $0) } ?? "") {
        case .packets: return .engineText("ok")
        case .unknownSession: return EngineError.unknownSession.response
        case .overlap, .wrongTransport: return EngineError.badRequest.response
        }
    }

    private func session(_ sid: String, _ req: Request) -> EngineSession? {
        req.application.socketIOSessions.session(sid, path: path)
    }

    private func origin(_ req: Request) -> EngineOrigin {
        EngineOrigin(address: settings.host.clientAddress(req), headers: req.headers, application: req.application)
    }

    /// A long poll waits for packets up to the ping interval, and never so long that the
    /// connection's idle timeout ends it first (half of it, as for live sockets).
    func pollWait(_ app: Application) -> TimeAmount {
        min(pingInterval, settings.host.longestPoll(app))
    }

    private func openPolling(_ req: Request) async throws -> Response {
        let app = req.application
        let origin = origin(req)
        try settings.host.takePlace(origin.address, app)
        let session = EngineSession(settings: settings, origin: origin, transport: .polling,
                                    registry: app.socketIOSessions, holdsAddressPlace: true)
        guard app.socketIOSessions.add(session) else {
            settings.host.givePlaceBack(origin.address, app)
            return Response(status: .serviceUnavailable, headers: ["Retry-After": "5"])
        }
        await session.start()
        return .engineText(EnginePacket.open(session.handshake(upgrades: ["websocket"])).encoded)
    }

    private func openWebSocket(_ req: Request) throws -> Response {
        let settings = settings
        let origin = origin(req)
        let sessions = req.application.socketIOSessions
        return try settings.host.webSocket(req, feature: feature, maxMessageBytes: settings.maxPayload, backlog: settings.backlog) { socket, inputs in
            let session = EngineSession(settings: settings, origin: origin, transport: .websocket(socket),
                                        registry: sessions, holdsAddressPlace: false)
            guard sessions.add(session) else {
                try? await socket.close(code: .serviceRestart)
                return
            }
            session.writes.send(EnginePacket.open(session.handshake(upgrades: [])).encoded, on: socket)
            await session.start()
            session.consume(inputs, from: socket)
        }
    }

    private func upgrade(_ session: EngineSession, _ req: Request) throws -> Response {
        let settings = settings
        return try settings.host.webSocket(req, feature: feature, maxMessageBytes: settings.maxPayload, backlog: settings.backlog) { socket, inputs in
            // `inputs` has listened since the 101: the client's `2probe` is in it.
            guard await session.beginProbe(socket) else {
                try? await socket.close(code: .policyViolation)
                return
            }
            session.consume(inputs, from: socket)
        }
    }

    static func isWebSocketUpgrade(_ req: Request) -> Bool {
        req.headers[.upgrade].contains { $0.lowercased() == "websocket" }
    }
}

/// The Engine.IO sessions of this process, for every `SocketIOServer` of the application.
package final class SocketIOSessions: Sendable {
    private let state = NIOLockedValueBox<(sessions: [String: EngineSession], closing: Bool)>(([:], false))

    /// Keeps `session`; false once the application is shutting down.
    package func add(_ session: EngineSession) -> Bool {
        state.withLockedValue { state in
            guard !state.closing else { return false }
            state.sessions[session.id] = session
            return true
        }
    }

    package func remove(_ session: EngineSession) {
        _ = state.withLockedValue { $0.sessions.removeValue(forKey: session.id) }
    }

    /// The session `id` of the server at `path`.
    package func session(_ id: String, path: String) -> EngineSession? {
        state.withLockedValue { $0.sessions[id] }.flatMap { $0.settings.path == path ? $0 : nil }
    }

    package var count: Int { state.withLockedValue { $0.sessions.count } }

    /// Ends every session (WebSockets with 1012, polling clients with `1`), so clients reconnect
    /// to another instance, and waits (5 s at most) for the handlers to hear of it.
    package func closeAll() async {
        let all = state.withLockedValue { state in
            state.closing = true
            return Array(state.sessions.values)
        }
        guard !all.isEmpty else { return }
        for session in all { await session.close(.shutdown) }
        // A handler that hangs must not hold the shutdown: wait for them all, or 5 s.
        let done = NIOLockedValueBox(false)
        let waiting = Task {
            for session in all { await session.finished() }
            done.withLockedValue { $0 = true }
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while !done.withLockedValue({ $0 }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if !done.withLockedValue({ $0 }) { waiting.cancel() }
    }
}

extension Application {
    private struct SocketIOSessionsKey: StorageKey, LockKey { typealias Value = SocketIOSessions }

    /// Made with the first session; it also arranges for the sessions to end before the rest of
    /// the application does at shutdown (handlers run in reverse order, so this one runs first).
    package var socketIOSessions: SocketIOSessions {
        locks.lock(for: SocketIOSessionsKey.self).withLock {
            if let existing = storage[SocketIOSessionsKey.self] { return existing }
            let sessions = SocketIOSessions()
            storage[SocketIOSessionsKey.self] = sessions
            lifecycle.use(SocketIOShutdown())
            return sessions
        }
    }
}

private struct SocketIOShutdown: LifecycleHandler {
    func shutdownAsync(_ application: Application) async {
        await application.socketIOSessions.closeAll()
    }
}
