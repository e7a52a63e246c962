import Foundation
import WhatWeEatKit
import XCTest

/// Two people from verification to a chat line on the live socket: codes (read from the server's
/// log, where a server without a mail server writes them), profiles, searching side by side, asking
/// each other (the second ask is the match), and a line sent on one socket arriving on the other.
final class MatesTests: XCTestCase {
    struct Mate {
        let app: WhatWeEat
        let id: String
    }

    func verifiedMate(_ name: String, birthYear: Int) async throws -> Mate {
        let app = try ServerUnderTest.client(language: "en")
        let email = ServerUnderTest.email()
        let account = try await app.signUp(email: email, password: "kit-password-1", nickname: "\(name)\(email.prefix(8).suffix(4))")
        _ = try await app.api.sendMatesCode(body: .json(.init(channel: .email, destination: email))).accepted
        let code = try await ServerUnderTest.oneTimeCode(sentTo: email)
        _ = try await app.api.confirmMatesCode(body: .json(.init(destination: email, code: code))).ok
        _ = try await app.api.updateMatesProfile(body: .json(.init(gender: .unspecified, birthYear: birthYear, topics: ["Swift"], ageMin: 14, ageMax: 100))).ok
        _ = try await app.api.startMatesSearch(body: .json(.init(lat: 37.5665, lon: 126.9780, topics: ["Swift"]))).ok
        return Mate(app: app, id: account.id)
    }

    func testFromVerificationToAChatLineOnTheLiveSocket() async throws {
        let mina = try await verifiedMate("미나", birthYear: 1995)
        let junho = try await verifiedMate("준호", birthYear: 1996)

        let nearby = try await mina.app.api.matesNearby(query: .init(lat: 37.5665, lon: 126.9780)).ok.body.json
        XCTAssertTrue(nearby.people.contains { $0.id == junho.id }, "searching side by side, each sees the other")

        let asked = try await mina.app.api.requestMate(body: .json(.init(to: junho.id)))
        guard case .created(let pending) = asked else { return XCTFail("the first ask waits: \(asked)") }
        XCTAssertEqual(try pending.body.json.matched, false)
        let answered = try await junho.app.api.requestMate(body: .json(.init(to: mina.id))).ok.body.json
        XCTAssertTrue(answered.matched, "asking back is the match")

        let state = try await mina.app.api.matesState().ok.body.json
        let match = try XCTUnwrap(state.matchId)
        var minasEvents = try await mina.app.chat(match: match).events.makeAsyncIterator()
        let junhosChat = try await junho.app.chat(match: match)
        var junhosEvents = junhosChat.events.makeAsyncIterator()
        guard case .hello(_, let open)? = try await minasEvents.next() else { return XCTFail("hello first") }
        XCTAssertTrue(open)
        guard case .hello? = try await junhosEvents.next() else { return XCTFail("hello first") }

        let clientId = try await junhosChat.send("안녕하세요, 스터디 같이 해요!")
        // The sender hears its ack, and its own line as every socket of the match does (in either order).
        var stored: Components.Schemas.MatesChatMessage?
        var echoed = false
        while stored == nil || !echoed, let event = try await junhosEvents.next() {
            switch event {
            case .ack(let ackedId, let message):
                XCTAssertEqual(ackedId, clientId)
                stored = message
            case .message(_, let echoedId):
                XCTAssertEqual(echoedId, clientId)
                echoed = true
            default:
                XCTFail("unexpected \(event)")
            }
        }
        let ack = try XCTUnwrap(stored)
        guard case .message(let line, _)? = try await minasEvents.next() else { return XCTFail("the line arrives") }
        XCTAssertEqual(line.text, "안녕하세요, 스터디 같이 해요!")
        XCTAssertEqual(line.id, ack.id)
        XCTAssertEqual(line.senderId, junho.id)
    }
}
