import Accounts
import Banchan
import BurgerMap
import LookForRealBurgerApp
import Mates
import NIOConcurrencyHelpers
import Platform
import SesacStudyApp
import SocketIO
import WhatWeEatServer
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// Security probe items 1 and 7 against real servers: the request that stopped the process, and
/// connections that hold descriptors without ever finishing a request.
final class ConnectionLimitTests: XCTestCase {
    /// The probe's crash, replayed against the real executable: the answer is 422 and the
    /// server is still there afterwards.
    func testTheCartOverflowNoLongerStopsTheServer() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ServerProcess(dataDirectory: directory)
        defer { server.stop(signal: SIGINT) }
        try await server.waitUntilHealthy()

        let page = try RawHTTP.exchange(port: server.port, "GET /shop/dishes/HU6Z5 HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nConnection: close\r\n\r\n")
        let cookies = RawHTTP.cookies(page).map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        let token = try XCTUnwrap(CSRFAndKeyTests.formToken(page))
        let body = "hash=HU6Z5&quantity=9223372036854775807&_csrf=\(token)"
        let reply = try RawHTTP.exchange(port: server.port, """
            POST /shop/cart HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nCookie: \(cookies)\r\n\
            Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)
            """)
        XCTAssertTrue(reply.hasPrefix("HTTP/1.1 422"), String(reply.prefix(200)))
        XCTAssertTrue(server.process.isRunning)
        let health = try await server.get("/healthz")
        XCTAssertEqual(health.status, .ok)
    }

    /// A form POST without our CSRF cookie is refused before its body is read (the probe saw
    /// 60 such 8 MB posts take 536 MB); with the cookie, a body past what forms need is 413.
    func testFormsAreCheckedBeforeTheirBodyAndBoundedWhileRead() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ServerProcess(dataDirectory: directory)
        defer { server.stop(signal: SIGINT) }
        try await server.waitUntilHealthy()

        // 8 MB announced, a few bytes sent: the answer comes without waiting for the rest.
        let started = ContinuousClock.now
        let refused = try RawHTTP.exchange(port: server.port, """
            POST /shop/cart HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\
            Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 8000000\r\n\r\nhash=HU6Z5
            """)
        XCTAssertTrue(refused.hasPrefix("HTTP/1.1 403"), String(refused.prefix(120)))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(4), "answered before the body")

        let page = try RawHTTP.exchange(port: server.port, "GET /login HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nConnection: close\r\n\r\n")
        let cookies = RawHTTP.cookies(page).map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
        let token = try XCTUnwrap(CSRFAndKeyTests.formToken(page))
        let body = "_csrf=\(token)&email=a%40example.com&password=password1&pad=" + String(repeating: "a", count: 200 * 1024)
        let tooBig = try RawHTTP.exchange(port: server.port, """
            POST /login HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nCookie: \(cookies)\r\n\
            Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)
            """)
        XCTAssertTrue(tooBig.hasPrefix("HTTP/1.1 413"), String(tooBig.prefix(120)))
    }

    /// More silent connections than the process's soft descriptor limit: the server raises the
    /// limit and keeps answering, and closes the silent ones after `IDLE_TIMEOUT`.
    func testSilentConnectionsNeitherStarveTheServerNorStayOpen() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ServerProcess(dataDirectory: directory, extraEnvironment: ["IDLE_TIMEOUT": "2"], softFileLimit: 256)
        defer { server.stop(signal: SIGINT) }
        try await server.waitUntilHealthy()

        var silent: [Int32] = []
        defer { silent.forEach { close($0) } }
        for _ in 0..<300 { silent.append(try RawHTTP.connect(port: server.port)) }
        let started = ContinuousClock.now
        let health = try RawHTTP.exchange(port: server.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(health.hasPrefix("HTTP/1.1 200"), String(health.prefix(100)))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(2))

        // A slow client that started a request and went quiet is closed too.
        let trickle = try RawHTTP.connect(port: server.port)
        defer { close(trickle) }
        _ = "GET /healthz HTTP/1.1\r\nHost: x\r\n".withCString { send(trickle, $0, strlen($0), 0) }
        try await Task.sleep(for: .seconds(4))
        XCTAssertTrue(RawHTTP.isClosedByPeer(trickle), "an unfinished request past the idle timeout")
        let closed = silent.prefix(50).filter(RawHTTP.isClosedByPeer).count
        XCTAssertEqual(closed, 50, "silent connections are closed after IDLE_TIMEOUT")
    }

    /// One address holds at most MAX_SOCKETS_PER_CLIENT live sockets; the next is refused
    /// before the upgrade, and a closed socket gives its place back.
    func testLiveSocketsPerAddressAreCapped() async throws {
        try await withTestApp(adjust: { $0.limits.socketsPerClient = 3 }) { app in
            let port = try freePort()
            try await app.server.start(address: .hostname("127.0.0.1", port: port))
            do {
                try await socketCapScenario(app, port: port)
            } catch {
                await app.server.shutdown()  // a failed step must not leave the server running
                throw error
            }
            await app.server.shutdown()
        }
    }

    private func socketCapScenario(_ app: Application, port: Int) async throws {
        let host = "socket-cap-host-000001"
        let created = try await app.send(.POST, "/api/v1/menu-game/groups", headers: ["X-Device-Token": host])
        let pin = try XCTUnwrap(try created.object()["pin"] as? String, created.text)
        let path = "/api/v1/menu-game/groups/\(pin)/live?token=\(host)"
        func open() async throws -> WebSocket {
            let promise = app.eventLoopGroup.any().makePromise(of: WebSocket.self)
            WebSocket.connect(to: "ws://127.0.0.1:\(port)\(path)", on: app.eventLoopGroup) { promise.succeed($0) }.cascadeFailure(to: promise)
            return try await promise.futureResult.get()
        }
        var sockets: [WebSocket] = []
        for _ in 0..<3 { sockets.append(try await open()) }
        try await waitUntil { app.openSockets.count(of: "127.0.0.1") == 3 }
        let upgrade = "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
        let refused = try RawHTTP.exchange(port: port, upgrade)
        XCTAssertTrue(refused.hasPrefix("HTTP/1.1 429"), String(refused.prefix(120)))
        XCTAssertTrue(refused.contains("too_many_connections"), refused)

        try await sockets[0].close()
        try await waitUntil { app.openSockets.count(of: "127.0.0.1") == 2 }
        sockets.append(try await open())
        try await waitUntil { app.openSockets.count(of: "127.0.0.1") == 3 }
        for socket in sockets.dropFirst() { try await socket.close() }
        try await waitUntil { app.openSockets.count(of: "127.0.0.1") == 0 }
    }

    /// The 2026-11-26 probe, item 4: one socket that keeps a message open with continuation frames
    /// grew the server by a gigabyte (Vapor's upgrade reassembles without a limit). Every live
    /// route now upgrades through `LiveSocketUpgrader`: a message past its limit closes the socket,
    /// and the server keeps no more than that limit of it, measured.
    func testFragmentedMessagesAreBoundedOnEveryLiveRoute() async throws {
        try await withTestApp { app in
            SocketIOServer(handler: EchoSocketIOHandler(), feature: "test", host: LiveSocketHost(), path: "fragments-socket.io").register(on: app)
            let port = try freePort()
            try await app.server.start(address: .hostname("127.0.0.1", port: port))
            do {
                let host = "fragment-host-0000001"
                let created = try await app.send(.POST, "/api/v1/menu-game/groups", headers: ["X-Device-Token": host])
                let pin = try XCTUnwrap(try created.object()["pin"] as? String, created.text)
                let routes = [
                    ("a group room", "/api/v1/menu-game/groups/\(pin)/live?token=\(host)", LiveSocketLimits.listening.maxMessageBytes),
                    ("Socket.IO", "/fragments-socket.io/?EIO=4&transport=websocket", 1_000_000),
                ]
                for (name, path, limit) in routes {
                    let client = try RawWebSocket(port: port, path: path)
                    XCTAssertTrue(client.upgraded, "\(name): \(client.handshake)")
                    let before = residentMemory()
                    // 32 MB in 16 KB fragments of one text message that never ends.
                    let fragment = [UInt8](repeating: 0x61, count: 16 * 1024)
                    try client.sendText("", fin: false)
                    var refusedAfter: Int?
                    for index in 0..<2_048 {
                        do { try client.sendContinuation(fragment) } catch { refusedAfter = index; break }
                    }
                    let grown = residentMemory() - before
                    // The server said so: a close frame before anything else it had to say.
                    var closed = false
                    while let frame = client.readFrame() {
                        if frame.opcode == 0x8 { closed = true; break }
                    }
                    XCTAssertTrue(closed, "\(name): the socket was closed (sent until fragment \(refusedAfter ?? 2_048))")
                    XCTAssertLessThan(grown, limit + 12 * 1024 * 1024, "\(name): the server kept at most its message limit of the 32 MB")
                }
                // The route still serves a socket that behaves.
                let fine = try RawWebSocket(port: port, path: "/fragments-socket.io/?EIO=4&transport=websocket")
                XCTAssertTrue(fine.upgraded, fine.handshake)
                var first = fine.readFrame()
                while first?.opcode == 0x9 { first = fine.readFrame() }   // the server pings as soon as a socket opens
                XCTAssertEqual(first?.opcode, 0x1)
                XCTAssertEqual(first.map { String(decoding: $0.payload, as: UTF8.self).prefix(7) }, "0{\"sid\"", "\(first.map { String(decoding: $0.payload, as: UTF8.self) } ?? "nothing")")
            } catch {
                await app.server.shutdown()
                throw error
            }
            await app.server.shutdown()
        }
    }
}
