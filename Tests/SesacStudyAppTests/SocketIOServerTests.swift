import Accounts
import Mates
import MatesTesting
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import Platform
@testable import SesacStudyApp
import SocketIO
import WhatWeEatTesting
import XCTVapor

/// The Socket.IO layer on a real port, with a raw client that writes the wire format by hand:
/// Engine.IO 4 over a WebSocket, over long-polling and upgraded from polling; Socket.IO 5's
/// CONNECT, events, acknowledgements, the server's heartbeat and the errors the reference server
/// answers with. The handler is a test echo; the path is the tests' own.
final class SocketIOServerTests: XCTestCase {
    static let path = "echo-socket.io"

    /// Runs `body` against an app serving the echo handler at `/echo-socket.io/` on a real port.
    private func withSocketIO(
        adjust: (inout Settings) -> Void = { _ in },
        pingInterval: TimeAmount = .seconds(25), pingTimeout: TimeAmount = .seconds(20), maxPayload: Int = 1_000_000,
        maxBufferedBytes: Int = 1_000_000,
        _ body: (Application, Int, EchoSocketIOHandler) async throws -> Void
    ) async throws {
        try await withTestApp(adjust: adjust) { app in
            let handler = EchoSocketIOHandler()
            SocketIOServer(handler: handler, feature: "test", host: LiveSocketHost(), path: Self.path, pingInterval: pingInterval,
                           pingTimeout: pingTimeout, maxPayload: maxPayload, maxBufferedBytes: maxBufferedBytes).register(on: app)
            let port = try freePort()
            try await app.server.start(address: .hostname("127.0.0.1", port: port))
            do {
                try await body(app, port, handler)
            } catch {
                await app.server.shutdown()
                throw error
            }
            await app.server.shutdown()
        }
    }

    private func webSocketURL(_ port: Int, sid: String? = nil) -> String {
        "ws://127.0.0.1:\(port)/\(Self.path)/?EIO=4&transport=websocket" + (sid.map { "&sid=\($0)" } ?? "")
    }

    private func polling(_ port: Int) -> EnginePolling {
        EnginePolling(base: "http://127.0.0.1:\(port)/\(Self.path)/?EIO=4&transport=polling")
    }

    /// The JSON after a packet's type digits.
    private func json(_ packet: String, after prefix: String) throws -> [String: Any] {
        XCTAssertTrue(packet.hasPrefix(prefix), packet)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(packet.dropFirst(prefix.count).utf8)) as? [String: Any], packet)
    }

    func testWebSocketHandshakeEventsAcknowledgementsAndEmits() async throws {
        try await withSocketIO { app, port, handler in
            let client = try await EngineTestSocket.connect(webSocketURL(port), on: app)
            let open = try await client.next()
            let sid = try XCTUnwrap(try json(open, after: "0")["sid"] as? String)
            XCTAssertEqual(open, #"0{"sid":"\#(sid)","upgrades":[],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#)
            XCTAssertEqual(sid.count, 20)

            try await client.send("40")
            let connected = try await client.next()
            let socketID = try XCTUnwrap(try json(connected, after: "40")["sid"] as? String)
            XCTAssertNotEqual(socketID, sid, "the Socket.IO id is not the Engine.IO one")
            try await waitUntil { handler.log == ["connected \(socketID)"] }
            XCTAssertEqual(handler.connectedClients.first?.address, "127.0.0.1")
            XCTAssertNil(handler.connectedClients.first?.auth)

            // An event reaches the handler; what the handler emits reaches the client.
            try await client.send(#"42["shout","안녕",1,{"a":[true,null]}]"#)
            let heard = try await client.next()
            XCTAssertEqual(heard, #"42["heard","안녕",1,{"a":[true,null]}]"#)
            XCTAssertEqual(handler.log.last, #"event shout ["안녕",1,{"a":[true,null]}]"#)

            // Acknowledgements: the handler's values, or [] when it returns nil.
            try await client.send(#"421["echo",{"text":"밥 먹자"},"x"]"#)
            let acknowledged = try await client.next()
            XCTAssertEqual(acknowledged, #"431[{"text":"밥 먹자"},"x"]"#)
            try await client.send(#"4212["quiet"]"#)
            let empty = try await client.next()
            XCTAssertEqual(empty, "4312[]")

            // Another namespace is refused; the default one stays usable.
            try await client.send("40/admin,")
            let refused = try await client.next()
            XCTAssertEqual(refused, #"44/admin,{"message":"Invalid namespace"}"#)

            // Garbage is ignored, never answered, and the connection stays usable.
            for garbage in ["", "x", "4", "42", "42not json", "42[1,2]", #"42{"a":1}"#, "42[", "4{", "9", "49", "43[1]", "0", "5", "6"] {
                try await client.send(garbage)
            }
            try await client.socket.send([0x34, 0x32, 0x00])
            try await client.send(#"425["echo","still here"]"#)
            let still = try await client.next()
            XCTAssertEqual(still, #"435["still here"]"#)
            XCTAssertEqual(handler.count("event"), 4, handler.log.joined(separator: "\n"))

            // The client goes away: the handler hears of it once, and the session is gone.
            await client.close()
            try await waitUntil { handler.count("disconnected") == 1 && app.socketIOSessions.count == 0 }
            try await Task.sleep(for: .milliseconds(100))
            XCTAssertEqual(handler.log.last, "disconnected \(socketID)")
            XCTAssertEqual(handler.count("disconnected"), 1)
            try await waitUntil { app.openSockets.count(of: "127.0.0.1") == 0 }
        }
    }

    func testEventsBeforeConnectAreIgnoredAndTheServerCanDisconnect() async throws {
        try await withSocketIO { app, port, handler in
            let client = try await EngineTestSocket.connect(webSocketURL(port), on: app)
            _ = try await client.next()
            try await client.send(#"42["echo","too early"]"#)
            try await client.send(#"421["echo","too early"]"#)
            try await client.send(#"40{"token":"abc"}"#)
            let connected = try await client.next()
            XCTAssertTrue(connected.hasPrefix(#"40{"sid":"#), connected)
            try await waitUntil { handler.count("connected") == 1 }
            XCTAssertEqual(handler.log.count, 1, "nothing before CONNECT reached the handler: \(handler.log)")
            XCTAssertEqual(handler.connectedClients.first?.auth, ["token": "abc"])
            XCTAssertTrue(handler.connectedClients.first?.isConnected == true)

            // Binary packets are not supported: the client's socket is told, the engine stays.
            try await client.send("451-[\"echo\",{\"_placeholder\":true,\"num\":0}]")
            let binary = try await client.next()
            XCTAssertEqual(binary, #"44{"message":"Binary packets are not supported"}"#)
            try await waitUntil { handler.count("disconnected") == 1 }
            try await client.send("40")
            let again = try await client.next()
            XCTAssertTrue(again.hasPrefix(#"40{"sid":"#), again)
            try await waitUntil { handler.count("connected") == 2 }

            // The handler disconnects the client: `41`, then the socket closes; told once.
            try await client.send(#"42["bye"]"#)
            let bye = try await client.next()
            XCTAssertEqual(bye, "41")
            try await client.waitClosed()
            try await waitUntil { handler.count("disconnected") == 2 && app.socketIOSessions.count == 0 }
            let second = try XCTUnwrap(handler.connectedClients.last)
            XCTAssertFalse(second.isConnected)
            await second.emit("late", ["dropped"])  // silently dropped
            await second.disconnect()
            try await Task.sleep(for: .milliseconds(100))
            XCTAssertEqual(handler.count("disconnected"), 2)
        }
    }

    func testTheServerPingsAndClosesWhenNoPongComes() async throws {
        // The timeout is five intervals, so a busy machine answering a ping late is not taken for
        // a client that stopped answering.
        try await withSocketIO(pingInterval: .milliseconds(200), pingTimeout: .seconds(1)) { app, port, handler in
            let client = try await EngineTestSocket.connect(webSocketURL(port), on: app)
            let open = try await client.next()
            XCTAssertEqual(try json(open, after: "0")["pingInterval"] as? Int, 200)
            XCTAssertEqual(try json(open, after: "0")["pingTimeout"] as? Int, 1000)
            try await client.send("40")
            _ = try await client.next()

            // Answered pings keep the session open well past one timeout.
            let started = ContinuousClock.now
            for _ in 0..<8 {
                let ping = try await client.next(timeout: .seconds(5))
                XCTAssertEqual(ping, "2")
                try await client.send("3")
            }
            XCTAssertGreaterThan(ContinuousClock.now - started, .milliseconds(1_400))
            XCTAssertFalse(client.socket.isClosed)
            XCTAssertEqual(handler.count("disconnected"), 0)

            // No pong: closed after the timeout, and the handler is told once.
            let ping = try await client.next(timeout: .seconds(5))
            XCTAssertEqual(ping, "2")
            try await client.waitClosed(timeout: .seconds(20))
            try await waitUntil { handler.count("disconnected") == 1 }
            try await Task.sleep(for: .milliseconds(700))
            XCTAssertEqual(handler.count("disconnected"), 1)
            XCTAssertEqual(app.socketIOSessions.count, 0)
        }
    }

    func testPollingHandshakePostsAndLongPolls() async throws {
        try await withSocketIO { app, port, handler in
            let polling = polling(port)
            let open = try await polling.get("&t=Nx1")
            XCTAssertEqual(open.status, .ok)
            XCTAssertEqual(open.headers.first(name: "Content-Type"), "text/plain; charset=UTF-8")
            XCTAssertNil(open.headers.first(name: "Set-Cookie"))
            XCTAssertFalse(open.headers.contains { $0.name.lowercased().hasPrefix("access-control") })
            let sid = try XCTUnwrap(try json(open.text, after: "0")["sid"] as? String)
            XCTAssertEqual(open.text, #"0{"sid":"\#(sid)","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}"#)
            let session = "&sid=\(sid)"

            let posted = try await polling.post(session, "40")
            XCTAssertEqual(posted.status, .ok)
            XCTAssertEqual(posted.text, "ok")
            let connected = try await polling.get(session)
            XCTAssertTrue(connected.text.hasPrefix(#"40{"sid":"#), connected.text)

            // A poll waits until something comes.
            let waiting = Task { try await polling.get(session) }
            try await pollPending(app, sid)
            _ = try await polling.post(session, #"42["shout","늦었지만"]"#)
            let delivered = try await waiting.value
            XCTAssertEqual(delivered.packets, [#"42["heard","늦었지만"]"#])

            // Several packets in one POST, and everything waiting in one answer.
            let batch = try await polling.post(session, "421[\"echo\",\"a\"]\u{1e}422[\"echo\",\"b\"]\u{1e}42[\"shout\",\"c\"]")
            XCTAssertEqual(batch.text, "ok")
            try await packetsWaiting(app, sid, 3)
            let batched = try await polling.get(session)
            XCTAssertEqual(batched.text, "431[\"a\"]\u{1e}432[\"b\"]\u{1e}42[\"heard\",\"c\"]")
            XCTAssertEqual(handler.count("event"), 4)

            // A second poll while one waits is an error that ends the session, as in the reference server.
            let first = Task { try await polling.get(session) }
            try await pollPending(app, sid)
            let overlapping = try await polling.get(session)
            XCTAssertEqual(overlapping.status, .badRequest)
            let ended = try await first.value
            XCTAssertEqual(ended.packets, ["1"])
            try await waitUntil { handler.count("disconnected") == 1 }
            let gone = try await polling.get(session)
            XCTAssertEqual(gone.status, .badRequest)
            XCTAssertEqual(gone.text, #"{"code":1,"message":"Session ID unknown"}"#)
            XCTAssertEqual(app.openSockets.count(of: "127.0.0.1"), 0, "the session's place is given back")
        }
    }

    func testPollingUpgradesToWebSocket() async throws {
        try await withSocketIO { app, port, handler in
            let polling = polling(port)
            let open = try await polling.get("")
            let sid = try XCTUnwrap(try json(open.text, after: "0")["sid"] as? String)
            let session = "&sid=\(sid)"
            _ = try await polling.post(session, "40")
            _ = try await polling.get(session)

            let waiting = Task { try await polling.get(session) }
            try await pollPending(app, sid)
            // `2probe` the moment the 101 is in, as the clients do (see `EngineSession.beginProbe`).
            let socket = try await EngineTestSocket.connect(webSocketURL(port, sid: sid), on: app, first: "2probe")
            let probe = try await socket.next()
            XCTAssertEqual(probe, "3probe")
            let released = try await waiting.value
            XCTAssertEqual(released.packets, ["6"], "the pending poll is answered with a noop")

            // What the server sends before `5` waits, and goes over the WebSocket once upgraded.
            _ = try await polling.post(session, #"42["shout","queued"]"#)
            try await packetsWaiting(app, sid, 1)
            try await socket.send("5")
            let queued = try await socket.next()
            XCTAssertEqual(queued, #"42["heard","queued"]"#)
            try await socket.send(#"421["echo","over the socket"]"#)
            let acknowledged = try await socket.next()
            XCTAssertEqual(acknowledged, #"431["over the socket"]"#)

            let polled = try await polling.get(session)
            XCTAssertEqual(polled.status, .badRequest)
            XCTAssertEqual(polled.text, #"{"code":3,"message":"Bad request"}"#)
            let postedAfter = try await polling.post(session, #"42["echo"]"#)
            XCTAssertEqual(postedAfter.status, .badRequest)
            do {
                _ = try await EngineTestSocket.connect(webSocketURL(port, sid: sid), on: app)
                XCTFail("a session already on a WebSocket is not upgraded again")
            } catch {}
            XCTAssertEqual(app.openSockets.count(of: "127.0.0.1"), 1, "the WebSocket's place only")

            await socket.close()
            try await waitUntil { handler.count("disconnected") == 1 && app.socketIOSessions.count == 0 }
            try await waitUntil { app.openSockets.count(of: "127.0.0.1") == 0 }

            // A probe that arrives is answered at once, not by the fallback a second later.
            let other = try await openSession(polling)
            let late = try await EngineTestSocket.connect(webSocketURL(port, sid: other), on: app)
            try await Task.sleep(for: .milliseconds(100))
            let sent = ContinuousClock.now
            try await late.send("2probe")
            let answer = try await late.next()
            XCTAssertEqual(answer, "3probe")
            XCTAssertLessThan(ContinuousClock.now - sent, .milliseconds(800), "not the fallback, which answers ~900 ms after this send")
            try await late.send("5")
            try await late.send("40")
            let joined = try await late.next()
            XCTAssertTrue(joined.hasPrefix(#"40{"sid":"#), joined)
            let more = try await late.unread(after: .milliseconds(300))
            XCTAssertEqual(more, [], "one answer to one probe")
            await late.close()
            try await waitUntil { app.socketIOSessions.count == 0 }
        }
    }

    func testErrorsAnsweredAsTheReferenceServerDoes() async throws {
        try await withSocketIO { app, port, _ in
            let base = "http://127.0.0.1:\(port)/\(Self.path)/"
            func get(_ query: String) async throws -> EnginePolling.Answer { try await EnginePolling(base: base).get(query) }
            func post(_ query: String) async throws -> EnginePolling.Answer { try await EnginePolling(base: base).post(query, "40") }
            let unknown = #"{"code":1,"message":"Session ID unknown"}"#
            let version = #"{"code":5,"message":"Unsupported protocol version"}"#
            let cases: [(EnginePolling.Answer, String)] = [
                (try await get("?EIO=4&transport=polling&sid=nope"), unknown),
                (try await post("?EIO=4&transport=polling&sid=nope"), unknown),
                (try await get("?EIO=3&transport=polling"), version),
                (try await get("?transport=polling"), version),
                (try await get("?EIO=4&transport=flash"), #"{"code":0,"message":"Transport unknown"}"#),
                (try await get("?EIO=4"), #"{"code":0,"message":"Transport unknown"}"#),
                (try await get("?EIO=4&transport=websocket"), #"{"code":3,"message":"Bad request"}"#),
                (try await post("?EIO=4&transport=polling"), #"{"code":2,"message":"Bad handshake method"}"#),
            ]
            for (answer, body) in cases {
                XCTAssertEqual(answer.status, .badRequest, body)
                XCTAssertEqual(answer.text, body)
                XCTAssertEqual(answer.headers.first(name: "Content-Type"), "application/json")
            }
            // Without the trailing slash too (Vapor's router ignores empty segments).
            let bare = try await EnginePolling(base: "http://127.0.0.1:\(port)/\(Self.path)").get("?EIO=4&transport=polling")
            XCTAssertTrue(bare.text.hasPrefix(#"0{"sid":"#), bare.text)
            XCTAssertEqual(app.socketIOSessions.count, 1)
        }
    }

    func testOversizedPayloadsCloseTheSession() async throws {
        try await withSocketIO(maxPayload: 1_000) { app, port, handler in
            let big = #"42["echo",""# + String(repeating: "가", count: 400) + #""]"#  // 1,200 bytes
            let client = try await EngineTestSocket.connect(webSocketURL(port), on: app)
            let open = try await client.next()
            XCTAssertEqual(try json(open, after: "0")["maxPayload"] as? Int, 1_000)
            try await client.send("40")
            _ = try await client.next()
            try await client.send(big)
            try await client.waitClosed()
            XCTAssertEqual(client.closeCode, .messageTooLarge)
            try await waitUntil { handler.count("disconnected") == 1 }
            XCTAssertEqual(handler.count("event"), 0)

            let polling = polling(port)
            let sid = try await openSession(polling)
            _ = try await polling.post("&sid=\(sid)", "40")
            _ = try await polling.get("&sid=\(sid)")
            let tooLarge = try await polling.post("&sid=\(sid)", big)
            XCTAssertEqual(tooLarge.status, .payloadTooLarge)
            try await waitUntil { handler.count("disconnected") == 2 }
            let last = try await polling.get("&sid=\(sid)")
            XCTAssertEqual(last.packets, ["1"], "the client is told the session is closed")
            let gone = try await polling.get("&sid=\(sid)")
            XCTAssertEqual(gone.status, .badRequest)
            XCTAssertEqual(handler.count("event"), 0)
        }
    }

    func testShutdownEndsEverySession() async throws {
        try await withSocketIO { app, port, handler in
            let client = try await EngineTestSocket.connect(webSocketURL(port), on: app)
            _ = try await client.next()
            try await client.send("40")
            _ = try await client.next()
            let polling = polling(port)
            let sid = try await openSession(polling)
            _ = try await polling.post("&sid=\(sid)", "40")
            _ = try await polling.get("&sid=\(sid)")
            try await waitUntil { handler.count("connected") == 2 }
            let waiting = Task { try await polling.get("&sid=\(sid)") }
            try await pollPending(app, sid)

            await app.socketIOSessions.closeAll()
            XCTAssertEqual(handler.count("disconnected"), 2, "the handlers heard of it before the shutdown went on")
            let answered = try await waiting.value
            XCTAssertEqual(answered.packets, ["1"])
            try await client.waitClosed()
            XCTAssertEqual(client.closeCode, OpenSockets.restartCode)
            let refused = try await polling.get("")
            XCTAssertEqual(refused.status, .serviceUnavailable)
        }
    }

    func testPollingSessionsCountTowardTheAddressCap() async throws {
        try await withSocketIO(adjust: { $0.limits.socketsPerClient = 2 }) { app, port, handler in
            let polling = polling(port)
            let first = try await openSession(polling)
            _ = try await openSession(polling)
            let refused = try await polling.get("")
            XCTAssertEqual(refused.status, .tooManyRequests)
            XCTAssertEqual(refused.headers.first(name: "Retry-After"), "5")
            XCTAssertTrue(refused.text.contains("too_many_connections"), refused.text)
            XCTAssertEqual(app.socketIOSessions.count, 2)

            // A session that ends gives its place back.
            _ = try await polling.post("&sid=\(first)", "1")
            try await waitUntil { app.openSockets.count(of: "127.0.0.1") == 1 }
            _ = try await openSession(polling)
        }
    }

    // MARK: The 2026-11-26 probe

    /// Item 1: a page of another site, opened on a person's phone, opened a socket to us from their
    /// address and bound their uid. Browsers always send `Origin`; another site's is refused, on
    /// polling and on the WebSocket, before any session exists. Native clients send none, or ours.
    func testAnotherSitesPagesCannotOpenASession() async throws {
        try await withSocketIO { app, port, handler in
            for origin in ["https://evil.example", "null", "http://127.0.0.1:\(port + 1)", "http://127.0.0.1.evil.example:\(port)"] {
                var foreign = polling(port)
                foreign.headers = ["Origin": origin]
                let refused = try await foreign.get("")
                XCTAssertEqual(refused.status, .forbidden, origin)
                XCTAssertEqual(refused.text, #"{"code":4,"message":"Forbidden"}"#, origin)
                let posted = try await foreign.post("&sid=whatever", "40")
                XCTAssertEqual(posted.status, .forbidden, origin)
                let socket = try RawWebSocket(port: port, path: "/\(Self.path)/?EIO=4&transport=websocket", headers: ["Origin": origin])
                XCTAssertFalse(socket.upgraded, "\(origin): \(socket.handshake)")
                XCTAssertTrue(socket.handshake.hasPrefix("HTTP/1.1 403"), socket.handshake)
            }
            XCTAssertEqual(app.socketIOSessions.count, 0, "no session was made for another site")
            // Our own pages' origin, and clients without one, are served.
            var ours = polling(port)
            ours.headers = ["Origin": "http://127.0.0.1:\(port)"]
            let sid = try await openSession(ours)
            let joined = try await ours.post("&sid=\(sid)", "40").status
            XCTAssertEqual(joined, .ok)
            let native = try await EngineTestSocket.connect(webSocketURL(port), on: app)
            let nativeOpen = try await native.next()
            XCTAssertTrue(nativeOpen.hasPrefix("0{"))
            // Starscream sends our origin, and a Host with the port (the test client leaves the port out unless told).
            let starscream = try await EngineTestSocket.connect(webSocketURL(port), on: app,
                                                                headers: ["Origin": "http://127.0.0.1:\(port)", "Host": "127.0.0.1:\(port)"])
            let starscreamOpen = try await starscream.next()
            XCTAssertTrue(starscreamOpen.hasPrefix("0{"))
            // Left open, they would hold the server's stop for its ten seconds.
            for socket in [native, starscream] { await socket.close() }
        }
    }

    /// Item 3, polling: a client that posts and never polls made its session keep 113 MB. What a
    /// session holds for its client is capped; past it the session ends and lets go of it all. A
    /// made-up namespace is answered only when short: a long one is never echoed.
    func testAClientThatPostsAndNeverPollsIsCutOff() async throws {
        try await withSocketIO(maxBufferedBytes: 50_000) { app, port, handler in
            let polling = polling(port)
            let sid = try await openSession(polling)
            let session = "&sid=\(sid)"
            _ = try await polling.post(session, "40")
            _ = try await polling.post(session, "40/" + String(repeating: "n", count: 5_000) + ",")
            _ = try await polling.post(session, "40/short,")
            try await packetsWaiting(app, sid, 2)
            let answers = try await polling.get(session)
            XCTAssertEqual(answers.packets.count, 2, answers.text)
            XCTAssertTrue(answers.packets[0].hasPrefix(#"40{"sid":"#), answers.text)
            XCTAssertEqual(answers.packets[1], #"44/short,{"message":"Invalid namespace"}"#)

            // 1 KB acknowledgements, never collected: the session ends before it holds 50 KB.
            let payload = String(repeating: "x", count: 1_000)
            var refused = false
            for id in 0..<200 where !refused {
                let posted = try await polling.post(session, "42\(id)[\"echo\",\"\(payload)\"]")
                refused = posted.status != .ok
            }
            try await waitUntil { handler.count("disconnected") == 1 }
            XCTAssertLessThan(handler.count("event"), 60, "no more was taken than the cap holds")
            let last = try await polling.get(session)
            XCTAssertEqual(last.packets, ["1"], "what waited is dropped; the client is told the session ended")
            XCTAssertEqual(app.openSockets.count(of: "127.0.0.1"), 0)
        }
    }

    /// Item 3, polling, measured: 27 MB of acknowledgements asked for by a client that never polls.
    /// The session ends at its cap and the server's memory stays flat.
    func testAPollerThatNeverPollsCostsLittleMemory() async throws {
        try await withSocketIO { app, port, handler in
            let polling = polling(port)
            let sid = try await openSession(polling)
            _ = try await polling.post("&sid=\(sid)", "40")
            let before = residentMemory()
            let payload = String(repeating: "x", count: 10_000)
            let body = (0..<90).map { #"42\#($0)["echo","\#(payload)"]"# }.joined(separator: "\u{1e}")
            var accepted = 0
            for _ in 0..<30 {
                guard try await polling.post("&sid=\(sid)", body).status == .ok else { break }
                accepted += 1
            }
            try await waitUntil { handler.count("disconnected") == 1 }
            let grown = residentMemory() - before
            XCTAssertLessThan(accepted, 5, "the session ended once a megabyte waited")
            XCTAssertLessThan(grown, 12 << 20, "the server kept \(grown >> 20) MB for a client that never polls")
        }
    }

    /// Item 3, WebSocket: a client that never reads its socket grew the server by 62 MB in 15 s.
    /// Writes the client has not taken are counted; past the cap the session ends, and the
    /// server's memory stays flat however much the client asks for (measured).
    func testAClientThatNeverReadsIsCutOffAndCostsLittleMemory() async throws {
        try await withSocketIO { app, port, handler in
            let client = try RawWebSocket(port: port, path: "/\(Self.path)/?EIO=4&transport=websocket", receiveBuffer: 4_096)
            XCTAssertTrue(client.upgraded, client.handshake)
            try client.sendText("40")
            try await waitUntil { handler.count("connected") == 1 }
            let before = residentMemory()
            // 24 MB of 8 KB acknowledgements asked for, none read.
            let payload = String(repeating: "x", count: 8_000)
            for id in 0..<3_000 {
                do { try client.sendText("42\(id)[\"echo\",\"\(payload)\"]") } catch { break }
            }
            try await waitUntil(timeout: .seconds(20)) { handler.count("disconnected") == 1 }
            let grown = residentMemory() - before
            XCTAssertLessThan(grown, 12 << 20, "the server kept \(grown >> 20) MB for a client that reads nothing")
            XCTAssertEqual(app.socketIOSessions.count, 0)
        }
    }

    // MARK: -

    /// Opens a polling session; its sid.
    private func openSession(_ polling: EnginePolling) async throws -> String {
        let open = try await polling.get("")
        return try XCTUnwrap(try json(open.text, after: "0")["sid"] as? String, open.text)
    }

    private func session(_ app: Application, _ sid: String) -> EngineSession? {
        app.socketIOSessions.session(sid, path: Self.path)
    }

    /// Waits until a GET is waiting on the session.
    private func pollPending(_ app: Application, _ sid: String) async throws {
        try await waitUntil { await self.session(app, sid)?.hasPendingPoll == true }
    }

    /// Waits until `count` packets wait for a poll.
    private func packetsWaiting(_ app: Application, _ sid: String, _ count: Int) async throws {
        try await waitUntil { await self.session(app, sid)?.waitingCount == count }
    }
}
