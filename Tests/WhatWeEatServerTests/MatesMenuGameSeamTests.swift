import Mates
import Platform
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// A seam between two features (`Seams.connect`): a matched pair starts a menu game from their
/// chat, and the room it opens is the menu game's own.
final class MatesMenuGameSeamTests: XCTestCase {
    let mates = Application.mates

    func testAMatchedPairStartsAMenuGameFromTheChat() async throws {
        try await withTestApp { app in
            let mina = try await app.mate("미나")
            let joon = try await app.mate("준호")
            let awaited26 = try await app.send(.POST, "\(mates)/match/menu-game", token: mina.token).errorCode
            XCTAssertEqual(awaited26, "not_matched")
            let match = try await app.matchPair(mina, joon)
            let started = try await app.send(.POST, "\(mates)/match/menu-game", token: mina.token)
            XCTAssertEqual(started.status, .created, started.text)
            let body = try started.object()
            let pin = try XCTUnwrap(body["pin"] as? String)
            XCTAssertNotNil(body["hostToken"] as? String)
            let group = try await app.send(.GET, "/api/v1/menu-game/groups/\(pin)")
            XCTAssertEqual(group.status, .ok, group.text)
            let joonsChat = try await app.send(.GET, "\(mates)/chat/\(match)/messages", token: joon.token).json(MatesJSON.Chat.self)
            XCTAssertEqual(joonsChat.items.first?.kind, "menu_game")
            XCTAssertEqual(joonsChat.items.first?.pin, pin)
        }
    }
}
