import Fluent
@testable import Mates
import MatesTesting
import NIOConcurrencyHelpers
import Platform
import SesacStudyApp
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// The live chat over real WebSockets: a line sent on one socket is acknowledged once stored and
/// reaches the partner's socket; lines sent over HTTP arrive too; read markers and the end of the
/// match are told; only the pair may open the socket.
final class MatesChatLiveTests: XCTestCase {
    func testLinesReachThePartnerAndAreAcknowledgedAfterStoring() async throws {
        try await withTestApp { app in
            let port = try freePort()
            try await app.server.start(address: .hostname("127.0.0.1", port: port))
            do {
                try await scenario(app, port: port)
            } catch {
                await app.server.shutdown()
                throw error
            }
            await app.server.shutdown()
        }
    }

    /// The 2026-11-26 probe, item 9: the socket said hello before it listened, so 17 of 20 lines
    /// a client wrote at once were lost without a word. Lines written from the upgrade callback
    /// itself, before the hello and right after it, are each acknowledged now.
    func testLinesSentTheMomentTheSocketOpensAreNotLost() async throws {
        try await withTestApp { app in
            let port = try freePort()
            try await app.server.start(address: .hostname("127.0.0.1", port: port))
            do {
                let mina = try await app.mate("미나")
                let joon = try await app.mate("준호")
                let match = try await app.matchPair(mina, joon)
                let acks = NIOLockedValueBox<Set<String>>([])
                for round in 0..<5 {
                    let promise = app.eventLoopGroup.any().makePromise(of: WebSocket.self)
                    WebSocket.connect(to: "ws://127.0.0.1:\(port)\(Application.mates)/chat/\(match)/live",
                                      headers: ["Authorization": "Bearer \(mina.token)"], on: app.eventLoopGroup) { socket in
                        socket.onText { socket, text in
                            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return }
                            if object["type"] as? String == "ack", let id = object["clientId"] as? String {
                                acks.withLockedValue { _ = $0.insert(id) }
                            }
                            if object["type"] as? String == "hello" {
                                // At once after the hello, as chat.js does.
                                socket.send(#"{"type":"send","text":"인사 뒤 바로 \#(round)","clientId":"after-\#(round)"}"#)
                            }
                        }
                        // Before anything came back: the first frame after the 101.
                        for line in 0..<3 {
                            socket.send(#"{"type":"send","text":"열자마자 \#(round)-\#(line)","clientId":"first-\#(round)-\#(line)"}"#)
                        }
                        promise.succeed(socket)
                    }.cascadeFailure(to: promise)
                    let socket = try await promise.futureResult.get()
                    try await waitUntil { acks.withLockedValue { $0.count } == (round + 1) * 4 }
                    try await socket.close()
                }
                let stored = try await app.rowCount(MatesStore.Table.messages)
                XCTAssertEqual(stored, 20, "every line stored once")
            } catch {
                await app.server.shutdown()
                throw error
            }
            await app.server.shutdown()
        }
    }

    private func scenario(_ app: Application, port: Int) async throws {
        let mina = try await app.mate("미나")
        let joon = try await app.mate("준호")
        let other = try await app.mate("다른사람")
        let match = try await app.matchPair(mina, joon)
        let path = "\(Application.mates)/chat/\(match)/live"

        let received = NIOLockedValueBox<[UUID: [[String: Any]]]>([:])
        func open(_ member: Member) async throws -> WebSocket {
            let promise = app.eventLoopGroup.any().makePromise(of: WebSocket.self)
            WebSocket.connect(to: "ws://127.0.0.1:\(port)\(path)", headers: ["Authorization": "Bearer \(member.token)"], on: app.eventLoopGroup) { socket in
                socket.onText { _, text in
                    guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return }
                    received.withLockedValue { $0[member.id, default: []].append(object) }
                }
                promise.succeed(socket)
            }.cascadeFailure(to: promise)
            return try await promise.futureResult.get()
        }
        func events(_ member: Member, _ type: String) -> [[String: Any]] {
            received.withLockedValue { $0[member.id] ?? [] }.filter { $0["type"] as? String == type }
        }

        _ = try await app.send(.POST, "\(Application.mates)/chat/\(match)/messages", json: ["text": "먼저 보낸 말"], token: joon.token)
        let minasSocket = try await open(mina)
        let joonsSocket = try await open(joon)
        try await waitUntil { !events(mina, "hello").isEmpty && !events(joon, "hello").isEmpty }
        XCTAssertEqual(events(mina, "hello").first?["unreadCount"] as? Int, 1, "what waited, counted at once")
        XCTAssertEqual(events(mina, "hello").first?["open"] as? Bool, true)
        try await waitUntil { app.events.subscriberCount(of: MatesService.chatTopic(match)) == 2 }

        // Sent on the socket: acknowledged with the stored line, delivered to both sides.
        try await minasSocket.send(#"{"type":"send","text":"소켓으로 안녕 👋","clientId":"c-1"}"#)
        try await waitUntil { !events(mina, "ack").isEmpty && !events(joon, "message").isEmpty }
        let ack = try XCTUnwrap(events(mina, "ack").first)
        XCTAssertEqual(ack["clientId"] as? String, "c-1")
        let acknowledged = try XCTUnwrap(ack["message"] as? [String: Any])
        let stored = try await app.db.sql.select().column(SQLIdentifier(MatesStore.MessageColumn.id)).from(MatesStore.Table.messages)
            .where(SQLIdentifier(MatesStore.MessageColumn.text), .equal, SQLBind("소켓으로 안녕 👋")).first(decodingColumn: MatesStore.MessageColumn.id, as: UUID.self)
        XCTAssertEqual(stored?.uuidString.lowercased(), (acknowledged["id"] as? String)?.lowercased(), "the ack names the stored line")
        let delivered = try XCTUnwrap(events(joon, "message").first)
        XCTAssertEqual((delivered["message"] as? [String: Any])?["text"] as? String, "소켓으로 안녕 👋")
        XCTAssertEqual((delivered["message"] as? [String: Any])?["senderId"] as? String, mina.id.uuidString)
        XCTAssertEqual(delivered["clientId"] as? String, "c-1")

        // Over HTTP, the same delivery.
        _ = try await app.send(.POST, "\(Application.mates)/chat/\(match)/messages", json: ["text": "HTTP로 보낸 말"], token: joon.token)
        try await waitUntil { events(mina, "message").count == 2 }
        XCTAssertEqual(((events(mina, "message").last?["message"]) as? [String: Any])?["text"] as? String, "HTTP로 보낸 말")

        // Bad lines get an error naming the client's id and store nothing.
        let before = try await app.rowCount(MatesStore.Table.messages)
        try await minasSocket.send(#"{"type":"send","text":"   ","clientId":"c-2"}"#)
        try await minasSocket.send("not json")
        try await minasSocket.send(#"{"type":"dance"}"#)
        try await waitUntil { events(mina, "error").count == 3 }
        let errors = events(mina, "error")
        XCTAssertEqual(errors[0]["clientId"] as? String, "c-2")
        XCTAssertEqual((errors[0]["error"] as? [String: Any])?["code"] as? String, "invalid_message")
        XCTAssertEqual((errors[1]["error"] as? [String: Any])?["code"] as? String, "malformed_body")
        XCTAssertEqual((errors[2]["error"] as? [String: Any])?["code"] as? String, "unknown_socket_message")
        let after = try await app.rowCount(MatesStore.Table.messages)
        XCTAssertEqual(after, before)

        // Reading moves the marker, and the partner hears of it.
        try await joonsSocket.send(#"{"type":"read"}"#)
        try await waitUntil { !events(mina, "read").isEmpty }
        XCTAssertEqual(events(mina, "read").first?["userId"] as? String, joon.id.uuidString)

        // The end of the match reaches both sockets; a line after it is refused.
        _ = try await app.send(.POST, "\(Application.mates)/match/finish", token: joon.token)
        try await waitUntil { !events(mina, "ended").isEmpty }
        XCTAssertEqual(events(mina, "ended").first?["reason"] as? String, "finished")
        try await minasSocket.send(#"{"type":"send","text":"늦었나요","clientId":"c-3"}"#)
        try await waitUntil { events(mina, "error").count == 4 }
        XCTAssertEqual((events(mina, "error").last?["error"] as? [String: Any])?["code"] as? String, "match_ended")

        try await minasSocket.close()
        try await joonsSocket.close()
        try await waitUntil { app.events.subscriberCount(of: MatesService.chatTopic(match)) == 0 }

        // Someone else's match: the upgrade is refused like the HTTP routes.
        let upgrade: HTTPHeaders = ["Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                                    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="]
        var headers = upgrade
        headers.bearerAuthorization = .init(token: other.token)
        let refused = try await app.send(.GET, path, headers: headers)
        XCTAssertEqual(refused.status, .notFound)
        XCTAssertEqual(refused.errorCode, "match_not_found")
        let awaited1 = try await app.send(.GET, path, headers: upgrade).status
        XCTAssertEqual(awaited1, .unauthorized)
    }
}
