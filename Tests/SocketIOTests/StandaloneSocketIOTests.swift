import Foundation
import NIOConcurrencyHelpers
@testable import SocketIO
import XCTVapor

/// The Socket.IO module on its own: a bare Vapor application with `PlainSocketIOHost`, nothing of
/// WhatWeEat. (The server's own rules around it, the live socket host, are tested in SesacStudyAppTests.)
final class StandaloneSocketIOTests: XCTestCase {
    final class Echo: SocketIOHandler {
        let events = NIOLockedValueBox<[String]>([])
        func connected(_ client: SocketIOClient) async {}
        func received(event: String, arguments: [SocketIOValue], from client: SocketIOClient) async -> [SocketIOValue]? {
            events.withLockedValue { $0.append(event) }
            return event == "echo" ? arguments : nil
        }
        func disconnected(_ client: SocketIOClient) async {}
    }

    func testAPollingClientOpensConnectsAndIsAnswered() async throws {
        let app = try await Application.make(.testing)
        do {
            let echo = Echo()
            SocketIOServer(handler: echo, feature: "test").register(on: app)

            let open = try await app.sendRequest(.GET, "/socket.io/?EIO=4&transport=polling")
            XCTAssertEqual(open.status, .ok)
            XCTAssertTrue(open.body.string.hasPrefix("0{"), open.body.string)
            let handshake = try JSONSerialization.jsonObject(with: Data(open.body.string.dropFirst().utf8)) as? [String: Any]
            let sid = try XCTUnwrap(handshake?["sid"] as? String)
            XCTAssertEqual(sid.count, 20, "15 random bytes, URL-safe")
            let session = "/socket.io/?EIO=4&transport=polling&sid=\(sid)"

            let connect = try await app.sendRequest(.POST, session, body: ByteBuffer(string: "40"))
            XCTAssertEqual(connect.body.string, "ok")
            let connected = try await app.sendRequest(.GET, session)
            XCTAssertTrue(connected.body.string.hasPrefix("40{\"sid\":"), connected.body.string)

            let asked = try await app.sendRequest(.POST, session, body: ByteBuffer(string: #"421["echo","안녕"]"#))
            XCTAssertEqual(asked.body.string, "ok")
            let answer = try await app.sendRequest(.GET, session)
            XCTAssertEqual(answer.body.string, #"431["안녕"]"#)
            XCTAssertEqual(echo.events.withLockedValue { $0 }, ["echo"])

            // Engine.IO's own errors, as the reference server words them.
            let unknown = try await app.sendRequest(.GET, "/socket.io/?EIO=4&transport=polling&sid=nope")
            XCTAssertEqual(unknown.status, .badRequest)
            XCTAssertEqual(unknown.body.string, #"{"code":1,"message":"Session ID unknown"}"#)
            let oldProtocol = try await app.sendRequest(.GET, "/socket.io/?EIO=3&transport=polling")
            XCTAssertEqual(oldProtocol.status, .badRequest)

            // A page of another site cannot open a session; a page of this one can.
            let foreign = try await app.sendRequest(.GET, "/socket.io/?EIO=4&transport=polling",
                                                    headers: ["Origin": "https://evil.example", "Host": "chat.example"])
            XCTAssertEqual(foreign.status, .forbidden)
            XCTAssertEqual(foreign.body.string, #"{"code":4,"message":"Forbidden"}"#)
            let sameSite = try await app.sendRequest(.GET, "/socket.io/?EIO=4&transport=polling",
                                                     headers: ["Origin": "https://chat.example", "Host": "chat.example"])
            XCTAssertEqual(sameSite.status, .ok)
        } catch {
            try await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    func testPacketsAndValuesOnTheWire() throws {
        let event = try XCTUnwrap(SocketIOPacket(decoding: #"21["chat",{"text":"안녕","n":2.5},null,true]"#))
        XCTAssertEqual(event.kind, .event)
        XCTAssertEqual(event.id, 1)
        XCTAssertEqual(event.data, ["chat", ["text": "안녕", "n": 2.5], nil, true])
        XCTAssertEqual(SocketIOPacket(decoding: #"4/admin,{"message":"Invalid namespace"}"#)?.namespace, "/admin")
        XCTAssertEqual(SocketIOPacket(decoding: "1/admin")?.namespace, "/admin")
        XCTAssertEqual(SocketIOPacket(decoding: #"0{"token":"t"}"#)?.data, ["token": "t"])
        XCTAssertEqual(SocketIOPacket(decoding: "51-[\"x\",{\"_placeholder\":true,\"num\":0}]")?.kind, .binaryEvent)
        for garbage in ["", "9", "2[", "2not json", "x", "21234567890123456[]", "5[]", "6-[]"] {
            XCTAssertNil(SocketIOPacket(decoding: garbage), garbage)
        }
        XCTAssertEqual(SocketIOPacket(.ack, id: 7, data: [3, "a/b", ["k": "\"\n\u{1}"]]).encoded, #"37[3,"a/b",{"k":"\"\n\u0001"}]"#)
        XCTAssertEqual(SocketIOPacket(.connectError, namespace: "/x", data: ["message": "m"]).encoded, #"4/x,{"message":"m"}"#)

        struct Chat: Codable, Equatable { let text: String; let count: Int }
        let value = try SocketIOValue(encoding: Chat(text: "밥", count: 3))
        XCTAssertEqual(value, ["text": "밥", "count": 3])
        XCTAssertEqual(value.json, #"{"count":3,"text":"밥"}"#)
        XCTAssertEqual(try value.decode(Chat.self), Chat(text: "밥", count: 3))
        XCTAssertEqual(value["text"]?.string, "밥")
        XCTAssertEqual(SocketIOValue.number(0.5).json, "0.5")
        XCTAssertEqual(EnginePacket("4hello"), .message("hello"))
        XCTAssertEqual(EnginePacket.split(payload: "40\u{1e}42[\"a\"]").map(String.init), ["40", #"42["a"]"#])
    }
}
