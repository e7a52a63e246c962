import NIOConcurrencyHelpers
package import NIOCore
import NIOWebSocket
package import Vapor

/// One Engine.IO session: its transport (long-polling, a WebSocket, or polling upgraded to a
/// WebSocket), the server's heartbeat, and the packets waiting for a poll. Socket.IO packets the
/// client sends come out of `messages`, in order, for `SocketIONamespace.serve`; the session ends
/// once, for whichever reason comes first, and `messages` then finishes.
package actor EngineSession {
    package enum Transport {
        case polling
        case websocket(WebSocket)
    }

    enum PollAnswer: Sendable {
        case packets([String])
        case overlap, unknownSession, wrongTransport
    }

    private enum Phase { case open, draining, closed }

    package nonisolated let id: String
    package nonisolated let settings: EngineSettings
    package nonisolated let origin: EngineOrigin
    package nonisolated let logger: Logger
    package nonisolated let messages: AsyncStream<String>
    private let feed: AsyncStream<String>.Continuation
    private let registry: SocketIOSessions

    private var transport: Transport
    private var phase = Phase.open
    private var outbox: [String] = []
    private var outboxBytes = 0
    /// What this session's WebSockets were sent that their client has not read.
    package nonisolated let writes: UnflushedWrites
    /// Bytes of the client's packets in `messages`, not yet taken by the namespace.
    private nonisolated let inboundBytes = NIOLockedValueBox(0)
    private var poll: CheckedContinuation<[String], Never>?
    private var pollTimer: Task<Void, Never>?
    private var pollGeneration = 0
    private var probe: WebSocket?
    private var probed = false
    private var upgradeTimer: Task<Void, Never>?
    private var heartbeat: Task<Void, Never>?
    private var heartbeatGeneration = 0
    private var awaitingPong = false
    private var connectTimer: Task<Void, Never>?
    private var drainTimer: Task<Void, Never>?
    private var serving: Task<Void, Never>?
    /// A polling session holds one of its address's socket places (`OpenSockets`) until it ends
    /// or becomes a WebSocket, which holds its own.
    private var holdsAddressPlace: Bool

    package init(settings: EngineSettings, origin: EngineOrigin, transport: Transport, registry: SocketIOSessions,
                 holdsAddressPlace: Bool) {
        self.id = EngineID.make()
        self.settings = settings
        self.origin = origin
        self.transport = transport
        self.registry = registry
        self.holdsAddressPlace = holdsAddressPlace
        self.writes = UnflushedWrites(limit: settings.maxBufferedBytes)
        var logger = origin.application.logger
        logger[metadataKey: "engine_sid"] = "\(id)"
        self.logger = logger
        (messages, feed) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(settings.backlog))
    }

    /// The OPEN packet's data, with the upgrades this transport offers.
    package nonisolated func handshake(upgrades: [String]) -> String {
        let list = upgrades.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"sid":"\#(id)","upgrades":[\#(list)],"pingInterval":\#(settings.pingInterval.nanoseconds / 1_000_000),"#
            + #""pingTimeout":\#(settings.pingTimeout.nanoseconds / 1_000_000),"maxPayload":\#(settings.maxPayload)}"#
    }

    /// Starts the heartbeat, the connect deadline and the namespace (after the OPEN packet, which
    /// the caller sends or answers with).
    package func start() {
        schedulePing()
        connectTimer = Task { [weak self, timeout = settings.connectTimeout] in
            guard await Self.sleep(timeout) else { return }
            await self?.connectExpired()
        }
        serving = Task { await SocketIONamespace.serve(self) }
    }

    /// Called once the client joined the namespace: the connect deadline no longer applies.
    func namespaceConnected() {
        connectTimer?.cancel()
        connectTimer = nil
    }

    private func connectExpired() {
        guard connectTimer != nil else { return }
        close(.connectTimeout)
    }

    /// Waits until the namespace has handled everything and heard of the end.
    package func finished() async {
        await serving?.value
    }

    // MARK: Sending

    package func send(_ packet: EnginePacket) {
        guard phase == .open else { return }
        let text = packet.encoded
        switch transport {
        case .websocket(let socket):
            if !writes.send(text, on: socket) { close(.slowReader) }
        case .polling:
            guard outbox.count < settings.backlog, outboxBytes + text.utf8.count <= settings.maxBufferedBytes else {
                // Nobody polls for these: drop them and end the session rather than keep more.
                outbox = []
                outboxBytes = 0
                close(.slowReader)
                return
            }
            outbox.append(text)
            outboxBytes += text.utf8.count
            if poll != nil { answerPoll(with: takeOutbox()) }
        }
    }

    /// The namespace took `packet` out of `messages`.
    package nonisolated func taken(_ packet: String) {
        inboundBytes.withLockedValue { $0 -= packet.utf8.count }
    }

    /// Packets waiting for a poll (tests).
    package var waitingCount: Int { outbox.count }

    /// Whether a GET is waiting (tests).
    package var hasPendingPoll: Bool { poll != nil }

    private func takeOutbox() -> [String] {
        defer {
            outbox = []
            outboxBytes = 0
        }
        return outbox
    }

    private func answerPoll(with packets: [String]) {
        guard let poll else { return }
        self.poll = nil
        pollTimer?.cancel()
        pollTimer = nil
        poll.resume(returning: packets)
    }

    // MARK: Polling

    /// Answers a GET: the packets waiting, or the first to come within `wait` (a noop if none).
    /// A second GET while one waits is an error that ends the session, as in the reference server.
    func takePackets(wait: TimeAmount) async -> PollAnswer {
        switch phase {
        case .closed:
            return .unknownSession
        case .draining:
            let packets = takeOutbox()
            finishDraining()
            return .packets(packets)
        case .open:
            break
        }
        guard case .polling = transport else { return .wrongTransport }
        guard poll == nil else {
            close(.pollOverlap)
            return .overlap
        }
        if !outbox.isEmpty { return .packets(takeOutbox()) }
        // Upgrading: the client is told to stop polling.
        if probed { return .packets([EnginePacket.noop.encoded]) }
        pollGeneration += 1
        let generation = pollGeneration
        let packets = await withCheckedContinuation { continuation in
            poll = continuation
            pollTimer = Task { [weak self] in
                guard await Self.sleep(wait) else { return }
                await self?.pollExpired(generation)
            }
        }
        return .packets(packets)
    }

    private func pollExpired(_ generation: Int) {
        guard generation == pollGeneration else { return }
        answerPoll(with: [EnginePacket.noop.encoded])
    }

    /// Takes the packets of a POST body. False when the session cannot take them any more.
    func receivedPayload(_ payload: String) -> PollAnswer {
        guard phase == .open else { return .unknownSession }
        guard case .polling = transport else { return .wrongTransport }
        for packet in EnginePacket.split(payload: payload) {
            received(String(packet), over: nil)
        }
        return .packets([])
    }

    // MARK: WebSocket

    /// A WebSocket asking to take this polling session over (`transport=websocket&sid=…`).
    var canUpgrade: Bool {
        guard phase == .open, case .polling = transport else { return false }
        return probe == nil
    }

    /// Takes `socket` as the probe. Its `2probe` is kept for it (`liveSocket` listens from the
    /// first frame); a probe still silent after `probeFallback` (a client that waits for the
    /// server) is answered anyway: every client takes a `3probe` as the answer to its probe
    /// whenever it comes, and a late `2probe` is not answered twice.
    func beginProbe(_ socket: WebSocket) -> Bool {
        guard canUpgrade else { return false }
        probe = socket
        probed = false
        upgradeTimer = Task { [weak self, settings] in
            guard await Self.sleep(settings.probeFallback) else { return }
            await self?.probeSilent(socket)
            guard await Self.sleep(settings.upgradeTimeout - settings.probeFallback) else { return }
            await self?.upgradeExpired(socket)
        }
        return true
    }

    private func probeSilent(_ socket: WebSocket) {
        guard socket === probe, !probed else { return }
        logger.debug("socket.io: no probe came; answered anyway")
        answerProbe(socket)
    }

    private func answerProbe(_ socket: WebSocket) {
        socket.send("3probe", promise: nil)
        probed = true
        answerPoll(with: [EnginePacket.noop.encoded])
    }

    private func upgradeExpired(_ socket: WebSocket) {
        guard socket === probe else { return }
        logger.debug("socket.io: upgrade timed out")
        dropProbe()
        socket.close(code: .normalClosure, promise: nil)
    }

    private func dropProbe() {
        probe = nil
        probed = false
        upgradeTimer?.cancel()
        upgradeTimer = nil
    }

    private func probeReceived(_ text: String, _ socket: WebSocket) {
        if text == "2probe" {
            if !probed { answerProbe(socket) }
        } else if text == EnginePacket.upgrade.encoded, probed {
            dropProbe()
            transport = .websocket(socket)
            answerPoll(with: [EnginePacket.noop.encoded])
            for packet in takeOutbox() { writes.send(packet, on: socket) }
            giveBackAddressPlace()
            logger.debug("socket.io: upgraded to websocket")
        } else {
            logger.debug("socket.io: unexpected packet while probing ignored")
        }
    }

    /// What came in on one of this session's WebSockets (the transport or a probe).
    func socketInput(_ input: EngineSocketInput, from socket: WebSocket) {
        switch input {
        case .text(let text):
            received(text, over: socket)
        case .binary:
            logger.debug("socket.io: binary frame ignored (binary packets are not supported)")
        case .tooLarge:
            if socket === probe {
                dropProbe()
                socket.close(code: .messageTooLarge, promise: nil)
            } else if case .websocket(let current) = transport, current === socket {
                close(.tooLarge)
            }
        }
    }

    func socketClosed(_ socket: WebSocket) {
        if socket === probe {
            dropProbe()
        } else if case .websocket(let current) = transport, current === socket {
            close(.transportClose)
        }
    }

    // MARK: Receiving

    /// One Engine.IO packet from the client, over polling (`socket` nil) or a WebSocket.
    private func received(_ text: String, over socket: WebSocket?) {
        guard phase == .open else { return }
        if let socket, socket === probe {
            probeReceived(text, socket)
            return
        }
        switch transport {
        case .polling:
            guard socket == nil else { return }
        case .websocket(let current):
            guard socket === current else { return }
        }
        guard let packet = EnginePacket(text) else {
            logger.debug("socket.io: unknown engine packet ignored")
            return
        }
        switch packet {
        case .close:
            close(.clientClose)
        case .pong:
            guard awaitingPong else { return }
            awaitingPong = false
            schedulePing()
        case .message(let data):
            let admitted = inboundBytes.withLockedValue { waiting in
                guard waiting + data.utf8.count <= settings.maxBufferedBytes else { return false }
                waiting += data.utf8.count
                return true
            }
            guard admitted else { return close(.backlog) }
            if case .dropped = feed.yield(data) { close(.backlog) }
        case .ping, .open, .upgrade, .noop:
            // In Engine.IO 4 only the server pings (a client's `2probe` goes to a probe).
            logger.debug("socket.io: unexpected engine packet ignored")
        }
    }

    // MARK: Heartbeat: the server pings every `pingInterval`; no pong within `pingTimeout` ends it.

    private func schedulePing() {
        heartbeatGeneration += 1
        let generation = heartbeatGeneration
        heartbeat?.cancel()
        heartbeat = Task { [weak self, interval = settings.pingInterval] in
            guard await Self.sleep(interval) else { return }
            await self?.pingDue(generation)
        }
    }

    private func pingDue(_ generation: Int) {
        guard phase == .open, generation == heartbeatGeneration else { return }
        send(.ping(""))
        awaitingPong = true
        heartbeatGeneration += 1
        let next = heartbeatGeneration
        heartbeat = Task { [weak self, timeout = settings.pingTimeout] in
            guard await Self.sleep(timeout) else { return }
            await self?.pongOverdue(next)
        }
    }

    private func pongOverdue(_ generation: Int) {
        guard generation == heartbeatGeneration, awaitingPong else { return }
        close(.pingTimeout)
    }

    // MARK: Closing

    /// Ends the session (once). A WebSocket is closed; a polling client is sent `1` (close) with
    /// whatever was still waiting, on the pending poll or, for a while, the next one.
    package func close(_ reason: EngineCloseReason) {
        guard phase == .open else { return }
        logger.debug("socket.io: session closed (\(reason.rawValue))")
        for timer in [heartbeat, connectTimer, pollTimer] { timer?.cancel() }
        if let probe {
            dropProbe()
            probe.close(code: reason.webSocketCode, promise: nil)
        }
        feed.finish()
        giveBackAddressPlace()
        switch transport {
        case .websocket(let socket):
            phase = .closed
            registry.remove(self)
            if !socket.isClosed { socket.close(code: reason.webSocketCode, promise: nil) }
        case .polling:
            if reason != .clientClose { outbox.append(EnginePacket.close.encoded) }
            outboxBytes = 0
            if poll != nil || outbox.isEmpty {
                answerPoll(with: takeOutbox())
                phase = .closed
                registry.remove(self)
            } else {
                phase = .draining
                drainTimer = Task { [weak self, wait = settings.pingInterval] in
                    guard await Self.sleep(wait) else { return }
                    await self?.finishDraining()
                }
            }
        }
    }

    private func finishDraining() {
        guard phase == .draining else { return }
        phase = .closed
        outbox = []
        drainTimer?.cancel()
        registry.remove(self)
    }

    private func giveBackAddressPlace() {
        guard holdsAddressPlace else { return }
        holdsAddressPlace = false
        settings.host.givePlaceBack(origin.address, origin.application)
    }

    /// Sleeps; false when the sleep was cancelled.
    package static func sleep(_ amount: TimeAmount) async -> Bool {
        (try? await Task.sleep(nanoseconds: UInt64(max(0, amount.nanoseconds)))) != nil
    }
}
