@testable import Mates
@testable import Accounts
import AsyncHTTPClient
@testable import BanchanApp
@testable import BurgerMap
@testable import LookForRealBurgerApp
@testable import MenuGame
@testable import MenuGameApp
import NIOCore
import Platform
@testable import SesacStudyApp
@testable import SocketIO
import WhatWeEatServer
import WhatWeEatTesting
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

        func call(_ method: HTTPMethod, _ path: String, form: String? = nil) async throws -> (status: Int, text: String, headers: HTTPHeaders) {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
            request.method = method
            request.headers.add(name: "idtoken", value: token)
            request.headers.add(name: "X-Forwarded-For", value: address)
            if let form {
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(ByteBuffer(string: form))
            }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)), response.headers)
        }
    }

    private func withServer(trustingTheProxy: Bool = true, socketWaitSeconds: Int = 600,
                            _ body: (Application, Int, FakeFirebase) async throws -> Void) async throws {
        let firebase = try await FakeFirebase.start()
        do {
            try await withTestApp(adjust: { settings in
                settings.firebase = FirebaseSettings(projectIDs: [firebase.projectID], certificatesURL: firebase.certificatesURL)
                settings.firebase.socketWaitSeconds = socketWaitSeconds
                if trustingTheProxy { settings.trustedProxies = ["127.0.0.1"] }
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
    /// last call. Now (without the binding cookie, which the next tests cover): the network of the
    /// uid's latest call of the last day binds (IPv6 by its /64); another network waits, is told
    /// so, and binds at the uid's next call from it, with the lines from then on (never those
    /// written while it waited: the 2026-11-27 probe, finding 2); a stranger who only knows the
    /// uid still hears nothing.
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
            // The phone's next request from LTE binds the waiting socket: lines from then on.
            a.address = lte
            let fromLTE = try await a.call(.GET, "/v1/queue/myQueueState")
            XCTAssertEqual(fromLTE.status, 200)
            // (The binding follows the call a moment later: lines are sent until the socket hears one.)
            var afterConfirming: [String?] = []
            try await waitUntil {
                try await send("on-lte")
                afterConfirming += try await self.chatEvents(moved).map { $0["chat"] as? String }
                return !afterConfirming.isEmpty
            }
            XCTAssertFalse(afterConfirming.contains("while-moving"), "a line written while it waited is never handed over: \(afterConfirming)")
            XCTAssertTrue(afterConfirming.allSatisfy { $0 == "on-lte" }, "\(afterConfirming)")
            _ = try await chatEvents(rotated)  // what it heard before the new socket was bound
            try await send("after-bind")
            let newSocket = try await chatEvents(moved)
            XCTAssertEqual(newSocket.map { $0["chat"] as? String }, ["after-bind"])
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

extension MatesCompatSocketTests {
    /// The binding cookie of an answer: `Set-Cookie: wwe_sesac_socket=…; HttpOnly; Path=/`.
    private func bindingCookie(_ headers: HTTPHeaders, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let header = try XCTUnwrap(headers[canonicalForm: "Set-Cookie"].map(String.init).first { $0.hasPrefix(SesacSocketBinding.cookieName + "=") },
                                   "every /v1 answer to a signed-up app sets the binding cookie", file: file, line: line)
        XCTAssertTrue(header.contains("HttpOnly"), header, file: file, line: line)
        XCTAssertTrue(header.contains("Path=/"), header, file: file, line: line)
        return String(header.split(separator: ";")[0])
    }

    /// Issue 37, item 2: the phone holds a cookie from its `/v1` answers, and socket.io-client-swift
    /// sends it on the handshake: its socket binds at once from any network (a phone that moved to
    /// LTE keeps hearing without a call), while a stranger who only knows the uid, or holds
    /// someone else's cookie, hears nothing.
    func testThePhonesCookieBindsItsSocketFromAnyNetwork() async throws {
        try await withServer { app, port, firebase in
            let (a, b) = try await matchedPair(port, firebase)
            let answer = try await a.call(.GET, "/v1/queue/myQueueState")
            let cookie = try bindingCookie(answer.headers)
            let bCookie = try bindingCookie(try await b.call(.GET, "/v1/queue/myQueueState").headers)
            // From a network A never called from, with A's cookie: bound at once, not told to wait.
            let lte = try await socket(app, port, from: "198.51.100.201", binding: a.uid, headers: ["Cookie": cookie])
            XCTAssertFalse(lte.received.contains { $0.contains("bind_pending") }, "\(lte.received)")
            try await send("heard-on-lte", from: b, to: a)
            let heard = try await chatEvents(lte)
            XCTAssertEqual(heard.map { $0["chat"] as? String }, ["heard-on-lte"])
            // A stranger elsewhere, with no cookie or with B's: waits, hears nothing; A's socket keeps hearing.
            let bare = try await socket(app, port, from: "192.0.2.77", binding: a.uid)
            let borrowed = try await socket(app, port, from: "192.0.2.78", binding: a.uid, headers: ["Cookie": bCookie])
            XCTAssertTrue(bare.received.contains { $0.contains("bind_pending") })
            XCTAssertTrue(borrowed.received.contains { $0.contains("bind_pending") })
            try await send("private", from: b, to: a)
            let bareHeard = try await chatEvents(bare)
            let borrowedHeard = try await chatEvents(borrowed)
            XCTAssertTrue(bareHeard.isEmpty && borrowedHeard.isEmpty, "\(bareHeard) \(borrowedHeard)")
            let stillHeard = try await chatEvents(lte)
            XCTAssertEqual(stillHeard.map { $0["chat"] as? String }, ["private"], "a waiting stranger does not silence the owner")
            // A forged cookie (A's uid, another MAC) binds nothing either.
            let forged = cookie.split(separator: ".").dropLast().joined(separator: ".") + ".AAAA"
            let forger = try await socket(app, port, from: "192.0.2.79", binding: a.uid, headers: ["Cookie": forged])
            XCTAssertTrue(forger.received.contains { $0.contains("bind_pending") })
            for socket in [lte, bare, borrowed, forger] { await socket.close() }
        }
    }

    /// The 2026-11-27 probe, finding 2: A's app called from a café, then from home; a stranger who
    /// stayed at the café bound A's uid by that network and heard the next line, and A's own socket
    /// went silent. Now only the uid's latest network binds without a cookie.
    func testACafeTheOwnerLeftBindsNobody() async throws {
        try await withServer { app, port, firebase in
            var (a, b) = try await matchedPair(port, firebase)
            a.address = "203.0.113.50"  // the café
            let atTheCafe = try await a.call(.GET, "/v1/queue/myQueueState")
            XCTAssertEqual(atTheCafe.status, 200)
            try await Task.sleep(for: .milliseconds(20))
            a.address = "198.51.100.60"  // home
            let atHome = try await a.call(.GET, "/v1/queue/myQueueState")
            XCTAssertEqual(atHome.status, 200)
            let home = try await socket(app, port, from: a.address, binding: a.uid)
            let stranger = try await socket(app, port, from: "203.0.113.50", binding: a.uid)
            XCTAssertTrue(stranger.received.contains { $0.contains("bind_pending") }, "the café is not A's latest network: \(stranger.received)")
            try await send("my number is 010-1234-5678", from: b, to: a)
            let strangerHeard = try await chatEvents(stranger)
            XCTAssertTrue(strangerHeard.isEmpty, "\(strangerHeard)")
            let homeHeard = try await chatEvents(home)
            XCTAssertEqual(homeHeard.map { $0["chat"] as? String }, ["my number is 010-1234-5678"], "A's own socket keeps hearing")
            for socket in [home, stranger] { await socket.close() }
        }
    }

    /// The 2026-11-27 probe, finding 3: every waiting socket kept 64 lines, with no bound per uid.
    /// Now at most two wait for one uid (a third lets the oldest go), and they keep nothing.
    func testAtMostTwoSocketsWaitForOneUID() async throws {
        try await withServer { app, port, firebase in
            var (a, b) = try await matchedPair(port, firebase)
            var waiting: [EngineTestSocket] = []
            for index in 0..<3 {
                waiting.append(try await socket(app, port, from: "192.0.2.\(100 + index)", binding: a.uid))
            }
            try await waiting[0].waitClosed(timeout: .seconds(10))
            XCTAssertTrue(waiting[0].received.contains("41"), "the oldest is told it is let go: \(waiting[0].received)")
            XCTAssertFalse(waiting[1].socket.isClosed)
            XCTAssertFalse(waiting[2].socket.isClosed)
            // The phone shows up on the third socket's network: that one is bound, and no longer waits.
            a.address = "192.0.2.102"
            let call = try await a.call(.GET, "/v1/queue/myQueueState")
            XCTAssertEqual(call.status, 200)
            var heard: [String?] = []
            try await waitUntil {
                try await self.send("bound", from: b, to: a)
                heard += try await self.chatEvents(waiting[2]).map { $0["chat"] as? String }
                return !heard.isEmpty
            }
            // Two more wait: the older waiting one is let go, the bound one stays.
            for index in 3..<5 {
                waiting.append(try await socket(app, port, from: "192.0.2.\(100 + index)", binding: a.uid))
            }
            try await waiting[1].waitClosed(timeout: .seconds(10))
            try await Task.sleep(for: .milliseconds(300))
            XCTAssertFalse(waiting[2].socket.isClosed, "a bound socket is not counted among the waiting")
            XCTAssertFalse(waiting[3].socket.isClosed)
            XCTAssertFalse(waiting[4].socket.isClosed)
            for socket in waiting { await socket.close() }
        }
    }

    /// A socket nobody confirms is let go after `SESAC_SOCKET_WAIT_SECONDS`; a bound one stays.
    func testAWaitingSocketIsLetGoWhenItsWaitEnds() async throws {
        try await withServer(socketWaitSeconds: 2) { app, port, firebase in
            let (a, _) = try await matchedPair(port, firebase)
            let bound = try await socket(app, port, from: a.address, binding: a.uid)
            let waiting = try await socket(app, port, from: "192.0.2.150", binding: a.uid)
            XCTAssertTrue(waiting.received.contains { $0.contains("bind_pending") })
            try await waiting.waitClosed(timeout: .seconds(10))
            XCTAssertTrue(waiting.received.contains("41"), "told it is let go: \(waiting.received)")
            try await Task.sleep(for: .seconds(1))
            XCTAssertFalse(bound.socket.isClosed, "a bound socket has no such end")
            await bound.close()
        }
    }

    /// Issue 37, items 2 and 3: withdrawal forgets the uid's networks and lets its socket go; rows
    /// older than a day are pruned.
    func testWithdrawalForgetsTheNetworksAndEndsTheSocket() async throws {
        try await withServer { app, port, firebase in
            let (a, b) = try await matchedPair(port, firebase)
            let phone = try await socket(app, port, from: a.address, binding: a.uid)
            func networks(_ uid: String) async throws -> Int {
                try await app.db.sql.raw("SELECT COUNT(*) AS n FROM mates_app_networks WHERE uid = \(bind: uid)").first()?.decode(column: "n", as: Int.self) ?? -1
            }
            let before = try await networks(a.uid)
            XCTAssertGreaterThan(before, 0)
            let withdrawn = try await a.call(.POST, "/v1/user/withdraw")
            XCTAssertEqual(withdrawn.status, 200, withdrawn.text)
            try await phone.waitClosed(timeout: .seconds(5))
            let after = try await networks(a.uid)
            XCTAssertEqual(after, 0, "the withdrawn uid's networks are gone")

            // A day-old sighting of B is pruned; a fresh one stays.
            try await app.db.sql.raw("""
                INSERT INTO mates_app_networks (uid, network, seen_at) VALUES (\(bind: b.uid), '192.0.2.9', \(bind: Date().addingTimeInterval(-25 * 3600)))
                """).run()
            let pruned = try await SesacAppService(database: app.db, application: app).pruneAppSightings()
            XCTAssertEqual(pruned, 1)
            let kept = try await networks(b.uid)
            XCTAssertEqual(kept, 1, "B's own recent network stays")
            await phone.close()
        }
    }

    /// Issue 37, item 5: behind a proxy the server was not told of (`TRUSTED_PROXIES` unset),
    /// every phone is the proxy's address. No socket binds by network then; the cookie still works.
    func testBehindAnUntrustedProxyNoSocketBindsByNetwork() async throws {
        try await withServer(trustingTheProxy: false) { app, port, firebase in
            let (a, b) = try await matchedPair(port, firebase)
            // A stranger's socket through the same proxy naming A's uid: refused, hears nothing.
            let stranger = try await socket(app, port, from: "192.0.2.66", binding: a.uid)
            XCTAssertTrue(stranger.received.contains { $0.contains("bind_pending") }, "\(stranger.received)")
            try await send("through the proxy", from: b, to: a)
            let strangerHeard = try await chatEvents(stranger)
            XCTAssertTrue(strangerHeard.isEmpty, "\(strangerHeard)")
            // A's phone with its cookie binds.
            let cookie = try bindingCookie(try await a.call(.GET, "/v1/queue/myQueueState").headers)
            let phone = try await socket(app, port, from: a.address, binding: a.uid, headers: ["Cookie": cookie])
            try await send("to the phone", from: b, to: a)
            let phoneHeard = try await chatEvents(phone)
            XCTAssertEqual(phoneHeard.map { $0["chat"] as? String }, ["to the phone"])
            for socket in [stranger, phone] { await socket.close() }
        }
    }
}

extension MatesCompatSocketTests {
    /// Review finding S2: a call from a network used less than a minute ago was not written, even
    /// when another network had been written in between: the latest network was stale.
    func testTheLatestNetworkIsTheOneCalledFromLastWithinAMinute() async throws {
        try await withServer { app, port, firebase in
            var (a, _) = try await matchedPair(port, firebase)
            let clock = app.useTestClock()
            for network in ["203.0.113.81", "198.51.100.82", "203.0.113.81"] {
                clock.advance(by: 10)
                a.address = network
                let called = try await a.call(.GET, "/v1/queue/myQueueState")
                XCTAssertEqual(called.status, 200)
            }
            let latest = try await SesacAppService(database: app.db, application: app).appLatestNetwork(uid: a.uid)
            XCTAssertEqual(latest, "203.0.113.81", "A, then B, then A again twenty seconds after the first")
        }
    }
}

private extension Int {
    func assertOK(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(self, 200, file: file, line: line)
    }
}
