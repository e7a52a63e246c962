import Accounts
import AsyncHTTPClient
import BanchanApp
import BurgerMap
import LookForRealBurgerApp
import MenuGame
import MenuGameApp
import NIOCore
import Platform
import SesacStudyApp
import SocketIO
import WhatWeEatServer
import XCTVapor

/// The 새싹 스터디 apps' Socket.IO chat on a real port, written frame by frame as the apps'
/// client sends it (`40`, `42["changesocketid",uid]`): a line reaches the recipient's socket as
/// `42["chat",{…}]` and never the sender's; a uid binds only from the address it called `/v1`
/// from, or with its ID token in the CONNECT payload. (Tests/e2e/test_sesac_app.py and the
/// cluster stage drive the same with python-socketio.)
final class MatesCompatSocketTests: XCTestCase {
    /// A 새싹 스터디 app user calling over the real port, from `address` (the proxy at 127.0.0.1 says so).
    struct Caller {
        let port: Int
        let uid: String
        let token: String
        var address = "203.0.113.7"

        func call(_ method: HTTPMethod, _ path: String, form: String? = nil) async throws -> (status: Int, text: String) {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
            request.method = method
            request.headers.add(name: "idtoken", value: token)
            request.headers.add(name: "X-Forwarded-For", value: address)
            if let form {
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(ByteBuffer(string: form))
            }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
        }
    }

    private func withServer(_ body: (Application, Int, FakeFirebase) async throws -> Void) async throws {
        let firebase = try await FakeFirebase.start()
        do {
            try await withTestApp(adjust: { settings in
                settings.firebase = FirebaseSettings(projectIDs: [firebase.projectID], certificatesURL: firebase.certificatesURL)
                settings.trustedProxies = ["127.0.0.1"]
            }) { app in
                let port = try freePort()
                try await app.server.start(address: .hostname("127.0.0.1", port: port))
                do { try await body(app, port, firebase) } catch {
                    await app.server.shutdown()
                    throw error
                }
                await app.server.shutdown()
            }
        } catch {
            await firebase.stop()
            throw error
        }
        await firebase.stop()
    }

    /// Two app users, signed up, searching and matched.
    private func matchedPair(_ port: Int, _ firebase: FakeFirebase) async throws -> (Caller, Caller) {
        var callers: [Caller] = []
        for (index, nick) in ["소켓에이", "소켓비이"].enumerated() {
            let uid = SesacAppClient.newUID()
            let caller = Caller(port: port, uid: uid, token: try firebase.token(uid: uid, phone: SesacAppClient.newPhone()))
            let signedUp = try await caller.call(.POST, "/v1/user", form: "nick=\(nick.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&birth=1995-06-15T09:00:00.000Z&gender=\(index)")
            XCTAssertEqual(signedUp.status, 200, signedUp.text)
            let searching = try await caller.call(.POST, "/v1/queue", form: "lat=37.5665&long=126.978\(index)&studylist=swift")
            XCTAssertEqual(searching.status, 200, searching.text)
            callers.append(caller)
        }
        let asked = try await callers[0].call(.POST, "/v1/queue/studyrequest", form: "otheruid=\(callers[1].uid)")
        XCTAssertEqual(asked.status, 200, asked.text)
        let accepted = try await callers[1].call(.POST, "/v1/queue/studyaccept", form: "otheruid=\(callers[0].uid)")
        XCTAssertEqual(accepted.status, 200, accepted.text)
        return (callers[0], callers[1])
    }

    /// Connects from `address` (as the proxy reports it), joins `/` with `connectPayload`, and
    /// binds `uid` with an acknowledgement.
    private func socket(_ app: Application, _ port: Int, from address: String, binding uid: String, connectPayload: String = "",
                        headers extra: HTTPHeaders = [:]) async throws -> EngineTestSocket
    {
        var headers: HTTPHeaders = ["X-Forwarded-For": address]
        headers.add(contentsOf: extra)
        let socket = try await EngineTestSocket.connect("ws://127.0.0.1:\(port)/socket.io/?EIO=4&transport=websocket", on: app,
                                                        headers: headers)
        let open = try await socket.next()
        XCTAssertTrue(open.hasPrefix("0{"), open)
        try await socket.send("40" + connectPayload)
        let connected = try await socket.next()
        XCTAssertTrue(connected.hasPrefix("40{\"sid\""), connected)
        try await socket.send("421[\"changesocketid\",\"\(uid)\"]")
        // A socket that must wait is told so before the acknowledgement.
        var acknowledged = try await socket.next()
        if acknowledged.hasPrefix("42[\"bind_pending\"") { acknowledged = try await socket.next() }
        XCTAssertEqual(acknowledged, "431[]")
        return socket
    }

    /// `sender` writes `text` to `recipient` over the apps' HTTP chat route.
    private func send(_ text: String, from sender: Caller, to recipient: Caller, file: StaticString = #filePath, line: UInt = #line) async throws {
        let sent = try await sender.call(.POST, "/v1/chat/\(recipient.uid)", form: "chat=\(text)")
        XCTAssertEqual(sent.status, 200, sent.text, file: file, line: line)
    }

    private func chatEvents(_ socket: EngineTestSocket) async throws -> [[String: Any]] {
        try await socket.unread(after: .milliseconds(700)).compactMap { frame -> [String: Any]? in
            guard frame.hasPrefix("42"), let array = try JSONSerialization.jsonObject(with: Data(frame.dropFirst(2).utf8)) as? [Any],
                  array.first as? String == "chat" else { return nil }
            return array.last as? [String: Any]
        }
    }

    func testALineReachesTheRecipientsSocketAndNotTheSenders() async throws {
        try await withServer { app, port, firebase in
            let (a, b) = try await matchedPair(port, firebase)
            let aSocket = try await socket(app, port, from: a.address, binding: a.uid)
            let bSocket = try await socket(app, port, from: b.address, binding: b.uid)
            let sent = try await b.call(.POST, "/v1/chat/\(a.uid)", form: "chat=%EC%95%88%EB%85%95")
            XCTAssertEqual(sent.status, 200, sent.text)
            let heard = try await chatEvents(aSocket)
            XCTAssertEqual(heard.count, 1)
            let sentObject = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(sent.text.utf8)) as? [String: Any])
            XCTAssertEqual(heard.first?["_id"] as? String, sentObject["_id"] as? String)
            XCTAssertEqual(heard.first?["chat"] as? String, "안녕")
            XCTAssertEqual(heard.first?["from"] as? String, b.uid)
            XCTAssertEqual(heard.first?["to"] as? String, a.uid)
            XCTAssertEqual(heard.first?["createdAt"] as? String, sentObject["createdAt"] as? String)
            let echoed = try await chatEvents(bSocket)
            XCTAssertTrue(echoed.isEmpty, "the sender's socket hears nothing of its own line")
            await aSocket.close()
            await bSocket.close()
        }
    }

    func testAUidBindsOnlyWhereItCalledFromOrWithItsToken() async throws {
        try await withServer { app, port, firebase in
            let (a, b) = try await matchedPair(port, firebase)
            func send(_ text: String) async throws { try await self.send(text, from: b, to: a) }
            // Someone elsewhere who read A's uid in a search result binds nothing.
            let eavesdropper = try await socket(app, port, from: "198.51.100.9", binding: a.uid)
            try await send("first")
            let eavesdropped = try await chatEvents(eavesdropper)
            XCTAssertTrue(eavesdropped.isEmpty, "a uid alone binds nothing")
            // A's own phone, from where it called the API.
            let phone = try await socket(app, port, from: a.address, binding: a.uid)
            try await send("second")
            let phoneHeard = try await chatEvents(phone)
            XCTAssertEqual(phoneHeard.map { $0["chat"] as? String }, ["second"])
            // A's tablet on another network, with its ID token in the CONNECT payload; the latest socket wins.
            let tablet = try await socket(app, port, from: "192.0.2.44", binding: a.uid, connectPayload: "{\"idtoken\":\"\(a.token)\"}")
            try await send("third")
            let tabletHeard = try await chatEvents(tablet)
            XCTAssertEqual(tabletHeard.map { $0["chat"] as? String }, ["third"])
            let phoneLater = try await chatEvents(phone)
            XCTAssertTrue(phoneLater.isEmpty, "the phone's socket was bound earlier")
            // B's token does not bind A; the tablet keeps hearing.
            let wrongToken = try await socket(app, port, from: "192.0.2.45", binding: a.uid, connectPayload: "{\"idtoken\":\"\(b.token)\"}")
            try await send("fourth")
            let wrongHeard = try await chatEvents(wrongToken)
            XCTAssertTrue(wrongHeard.isEmpty)
            let tabletStill = try await chatEvents(tablet)
            XCTAssertEqual(tabletStill.map { $0["chat"] as? String }, ["fourth"])
            let eavesdroppedLater = try await chatEvents(eavesdropper)
            XCTAssertTrue(eavesdroppedLater.isEmpty)
            for socket in [eavesdropper, phone, tablet, wrongToken] { await socket.close() }
        }
    }

    /// The 2026-11-26 probe, item 1: a page on any site, opened on A's phone (A's address), opened
    /// a socket here, bound A's uid and read A's chat. Another site's page is refused before any
    /// session; a browser, even on our own origin, never binds by address; the app still does.
    func testAPageOfAnotherSiteOnTheVictimsPhoneReadsNothing() async throws {
        try await withServer { app, port, firebase in
            let (a, b) = try await matchedPair(port, firebase)
            // Chromium's handshake from a page elsewhere, from A's own address.
            let evil = try RawWebSocket(port: port, path: "/socket.io/?EIO=4&transport=websocket",
                                        headers: ["Origin": "https://evil.example", "Sec-Fetch-Mode": "websocket", "Sec-Fetch-Site": "cross-site",
                                                  "X-Forwarded-For": a.address])
            XCTAssertTrue(evil.handshake.hasPrefix("HTTP/1.1 403"), evil.handshake)
            var polling = EnginePolling(base: "http://127.0.0.1:\(port)/socket.io/?EIO=4&transport=polling")
            polling.headers = ["Origin": "https://evil.example", "X-Forwarded-For": a.address]
            let pollingRefused = try await polling.get("").status
            XCTAssertEqual(pollingRefused, .forbidden)
            // A browser on our own origin (no page of ours does this, but a browser never binds by address).
            let browser = try await socket(app, port, from: a.address, binding: a.uid,
                                           headers: ["Origin": "http://127.0.0.1:\(port)", "Host": "127.0.0.1:\(port)", "Sec-Fetch-Mode": "websocket",
                                                     "Sec-Fetch-Site": "same-origin"])
            try await b.call(.POST, "/v1/chat/\(a.uid)", form: "chat=secret").status.assertOK()
            let browserHeard = try await chatEvents(browser)
            XCTAssertTrue(browserHeard.isEmpty, "a browser socket does not bind by address")
            // The app (Starscream sends our origin, no Sec-Fetch) from A's address still does.
            let phone = try await socket(app, port, from: a.address, binding: a.uid, headers: ["Origin": "http://127.0.0.1:\(port)", "Host": "127.0.0.1:\(port)"])
            try await b.call(.POST, "/v1/chat/\(a.uid)", form: "chat=hello").status.assertOK()
            let phoneHeard = try await chatEvents(phone)
            XCTAssertEqual(phoneHeard.map { $0["chat"] as? String }, ["hello"])
            for socket in [browser, phone] { await socket.close() }
        }
    }

    /// Issue "real people, real networks", item 3: a bind was refused in silence whenever the
    /// phone's socket and its HTTP calls came from different addresses, or 30 minutes after the
    /// last call. Now: a network the uid called from in the last day binds (IPv6 by its /64);
    /// another network waits, is told so, and binds at the uid's next call from it, with the lines
    /// it missed; a stranger who only knows the uid still hears nothing.
    func testTheChatDoesNotGoSilentForTheOwnerAndStaysShutForAStranger() async throws {
        try await withServer { app, port, firebase in
            var (a, b) = try await matchedPair(port, firebase)
            func send(_ text: String) async throws { try await self.send(text, from: b, to: a) }
            // The chat screen left open for 31 minutes: the socket reconnects with no HTTP call between.
            try await app.db.sql.raw("UPDATE mates_app_networks SET seen_at = \(bind: Date().addingTimeInterval(-31 * 60))").run()
            let reconnected = try await socket(app, port, from: a.address, binding: a.uid)
            try await send("after31")
            let afterLongQuiet = try await chatEvents(reconnected)
            XCTAssertEqual(afterLongQuiet.map { $0["chat"] as? String }, ["after31"])
            await reconnected.close()

            // IPv6: the phone's HTTP calls and its socket leave from different addresses of one /64.
            a.address = "2001:db8:1:2::10"
            let polled = try await a.call(.GET, "/v1/queue/myQueueState")
            XCTAssertEqual(polled.status, 200, polled.text)
            let rotated = try await socket(app, port, from: "2001:db8:1:2:a1b2:c3d4:e5f6:7788", binding: a.uid)
            try await send("v6")
            let onV6 = try await chatEvents(rotated)
            XCTAssertEqual(onV6.map { $0["chat"] as? String }, ["v6"])

            // From Wi-Fi to LTE mid-chat: the new socket waits, is told, and keeps what comes.
            let lte = "198.51.100.77"
            let moved = try await EngineTestSocket.connect("ws://127.0.0.1:\(port)/socket.io/?EIO=4&transport=websocket", on: app,
                                                         headers: ["X-Forwarded-For": lte])
            _ = try await moved.next()
            try await moved.send("40")
            _ = try await moved.next()
            try await moved.send("42[\"changesocketid\",\"\(a.uid)\"]")
            let told = try await moved.next()
            XCTAssertTrue(told.hasPrefix("42[\"bind_pending\""), told)
            try await send("while-moving")
            let beforeConfirming = try await chatEvents(moved)
            XCTAssertTrue(beforeConfirming.isEmpty, "nothing before the uid shows up on this network")
            let stillOnV6 = try await chatEvents(rotated)
            XCTAssertEqual(stillOnV6.map { $0["chat"] as? String }, ["while-moving"], "the bound socket keeps hearing meanwhile")
            // The phone's next request from LTE binds the waiting socket, with what it missed.
            a.address = lte
            let fromLTE = try await a.call(.GET, "/v1/queue/myQueueState")
            XCTAssertEqual(fromLTE.status, 200)
            try await waitUntil { moved.received.contains { $0.contains("while-moving") } }
            try await send("on-lte")
            let afterConfirming = try await chatEvents(moved)
            XCTAssertEqual(afterConfirming.map { $0["chat"] as? String }, ["while-moving", "on-lte"])
            let oldSocket = try await chatEvents(rotated)
            XCTAssertTrue(oldSocket.isEmpty, "the latest socket wins once bound")

            // A stranger who read the uid in a search result: waits forever, and their own calls
            // (their own token, from their own network) bind nothing.
            let strangerUID = SesacAppClient.newUID()
            var stranger = Caller(port: port, uid: strangerUID, token: try firebase.token(uid: strangerUID, phone: SesacAppClient.newPhone()))
            stranger.address = "192.0.2.200"
            let joined = try await stranger.call(.POST, "/v1/user", form: "nick=stranger&birth=1995-06-15T09:00:00.000Z&gender=1")
            XCTAssertEqual(joined.status, 200, joined.text)
            let eavesdropper = try await socket(app, port, from: stranger.address, binding: a.uid)
            _ = try await stranger.call(.GET, "/v1/queue/myQueueState")
            try await send("secret")
            let eavesdropped = try await chatEvents(eavesdropper)
            XCTAssertTrue(eavesdropped.isEmpty, "\(eavesdropped)")
            let owner = try await chatEvents(moved)
            XCTAssertEqual(owner.map { $0["chat"] as? String }, ["secret"])
            for socket in [rotated, moved, eavesdropper] { await socket.close() }
        }
    }
}

private extension Int {
    func assertOK(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(self, 200, file: file, line: line)
    }
}
