import Fluent
@testable import MenuGame
import Platform
import WhatWeEatTesting
import XCTVapor

/// A group's room: who joined (the host, whoever opened the lobby or the game, whoever answered),
/// by nickname or guest name, and who has answered — in the API, the pages and the inbox.
final class MenuGroupRoomTests: XCTestCase {
    static let host = "host-device-token-0001"

    func device(_ token: String) -> HTTPHeaders { [DeviceToken.header: token] }

    func room(_ app: Application, _ pin: String, as token: String) async throws -> (members: [[String: Any]], you: String?) {
        let status = try await app.send(.GET, "/api/v1/menu-game/groups/\(pin)", headers: device(token)).object()
        return (status["members"] as? [[String: Any]] ?? [], status["you"] as? String)
    }

    func testTheRoomListsWhoJoinedInOrderAndWhoAnswered() async throws {
        try await withTestApp { app in
            let host = try await app.member("호스트"), mina = try await app.member("미나")
            let created = try await app.send(.POST, "/api/v1/menu-game/groups", token: host.token, headers: device(Self.host))
            let pin = try XCTUnwrap(try created.object()["pin"] as? String)

            let guest = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/member", headers: device("guest-device-token-0001"))
            XCTAssertEqual(guest.status, .ok, guest.text)
            let named = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/member", json: ["guestName": "  민지   킴 "],
                                           headers: device("guest-device-token-0002"))
            XCTAssertEqual(named.status, .ok, named.text)
            // Mina never opened the lobby: answering puts her in the room.
            let answered = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/submission", raw: MenuGameAPITests.answer,
                                              token: mina.token, headers: device("mina-device-token-0001"))
            XCTAssertEqual(answered.status, .ok, answered.text)

            let seen = try await room(app, pin, as: "guest-device-token-0001")
            XCTAssertEqual(seen.members.map { $0["name"] as? String }, ["호스트", nil, "민지 킴", "미나"])
            XCTAssertEqual(seen.members.map { $0["isGuest"] as? Bool }, [false, true, true, false])
            XCTAssertEqual(seen.members.map { $0["guestNumber"] as? Int }, [nil, 1, 2, nil])
            XCTAssertEqual(seen.members.map { $0["isHost"] as? Bool }, [true, false, false, false])
            XCTAssertEqual(seen.members.map { $0["answered"] as? Bool }, [false, false, false, true])
            XCTAssertEqual(seen.you, seen.members[1]["id"] as? String, "each device is told which entry is its own")
            XCTAssertTrue(seen.members.allSatisfy { $0.keys.contains("profileImageURL") && !$0.keys.contains("playerTokenHash") })
            let stranger = try await room(app, pin, as: "stranger-device-token-01")
            XCTAssertNil(stranger.you, "a device that never joined is nobody in the room")

            // Joining again changes nothing; a new name is kept; signing in later shows the nickname.
            _ = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/member", headers: device("guest-device-token-0002"))
            let jun = try await app.member("준")
            _ = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/member", token: jun.token, headers: device("guest-device-token-0001"))
            let later = try await room(app, pin, as: Self.host)
            XCTAssertEqual(later.members.map { $0["name"] as? String }, ["호스트", "준", "민지 킴", "미나"])
            XCTAssertEqual(later.members.map { $0["guestNumber"] as? Int }, [nil, nil, 1, nil], "guests are numbered among guests")
            let rows = try await MenuGroupMember.query(on: app.db).count()
            XCTAssertEqual(rows, 4)
        }
    }

    func testBadNamesAndClosedGroupsChangeNothing() async throws {
        try await withTestApp { app in
            let created = try await app.send(.POST, "/api/v1/menu-game/groups", headers: device(Self.host))
            let pin = try XCTUnwrap(try created.object()["pin"] as? String)
            let guest = device("guest-device-token-0001")
            let cases: [(String?, HTTPHeaders, HTTPStatus, String)] = [
                (#"{"guestName": ""}"#, guest, .unprocessableEntity, "invalid_guest_name"),
                (#"{"guestName": "   "}"#, guest, .unprocessableEntity, "invalid_guest_name"),
                (#"{"guestName": "\#(String(repeating: "가", count: 21))"}"#, guest, .unprocessableEntity, "invalid_guest_name"),
                (#"{"guestName": "a\u0007b"}"#, guest, .unprocessableEntity, "invalid_guest_name"),
                (#"{"guestName": "a\u202Eb"}"#, guest, .unprocessableEntity, "invalid_guest_name"),
                (#"{"guestName": 7}"#, guest, .badRequest, "invalid_type"),
                ("{oops", guest, .badRequest, "malformed_json"),
                (#"{"guestName": "민지"}"#, [:], .unprocessableEntity, "invalid_device_token"),
            ]
            for (body, headers, status, code) in cases {
                let response = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/member", raw: body, headers: headers)
                XCTAssertEqual(response.status, status, body ?? "")
                XCTAssertEqual(response.errorCode, code, body ?? "")
            }
            let korean = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/member", raw: #"{"guestName": ""}"#, headers: guest)
            XCTAssertEqual(korean.errorMessage, "이름은 1~20자로 적어 주세요.")
            let unknown = try await app.send(.PUT, "/api/v1/menu-game/groups/999999/member", headers: guest)
            XCTAssertEqual(unknown.status, .notFound)
            var rows = try await MenuGroupMember.query(on: app.db).count()
            XCTAssertEqual(rows, 1, "only the host is in the room")

            _ = try await app.send(.POST, "/api/v1/menu-game/groups/\(pin)/close", headers: device(Self.host))
            let late = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/member", headers: guest)
            XCTAssertEqual(late.status, .conflict)
            XCTAssertEqual(late.errorCode, "game_closed")
            rows = try await MenuGroupMember.query(on: app.db).count()
            XCTAssertEqual(rows, 1, "a closed group takes nobody in")
        }
    }

    /// A signed-in member who opened the lobby but never answered, and left, still hears the result.
    func testMembersWhoLeftWithoutAnsweringAreToldOfTheResult() async throws {
        try await withTestApp { app in
            let jun = try await app.member("준")
            let created = try await app.send(.POST, "/api/v1/menu-game/groups", headers: device(Self.host))
            let pin = try XCTUnwrap(try created.object()["pin"] as? String)
            var browser = try await CookieBrowser.signedIn(app, as: jun.email)
            _ = try await browser.get("/play/welcome")
            _ = try await browser.post("/play/preferences", fields: [("next", "/play")])
            let lobby = try await browser.get("/play/groups/\(pin)")
            XCTAssertEqual(lobby.status, .ok, lobby.text)
            XCTAssertTrue(lobby.text.contains(">준</span>"), "the lobby lists the one who opened it")
            XCTAssertFalse(lobby.text.contains(#"id="guest-name-form""#), "a signed-in member is shown by nickname, not asked for a name")

            let closed = try await app.send(.POST, "/api/v1/menu-game/groups/\(pin)/close", headers: device(Self.host))
            XCTAssertEqual(closed.status, .ok)
            let entries = try await app.send(.GET, "/api/v1/notifications", token: jun.token).object()["items"] as? [[String: Any]] ?? []
            XCTAssertEqual(entries.map { $0["link"] as? String }, ["/play/groups/\(pin)/result"])
        }
    }

    /// The pages draw the room as the script does; what a guest typed stays text.
    func testTheWaitingRoomShowsTheRoomAndEscapesNames() async throws {
        try await withTestApp { app in
            let created = try await app.send(.POST, "/api/v1/menu-game/groups", headers: device(Self.host))
            let pin = try XCTUnwrap(try created.object()["pin"] as? String)
            _ = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/member", json: ["guestName": "<b>민지</b>"], headers: device("guest-device-token-0002"))
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/play/welcome")
            _ = try await browser.post("/play/preferences", fields: [("next", "/play")])
            let page = try await browser.get("/play/groups/\(pin)/wait")
            XCTAssertEqual(page.status, .ok, page.text)
            XCTAssertTrue(page.text.contains("&lt;b&gt;민지&lt;/b&gt;"))
            XCTAssertFalse(page.text.contains("<b>민지"))
            XCTAssertTrue(page.text.contains(#"id="room-size">3<"#), "the host, the named guest and this browser")
            XCTAssertTrue(page.text.contains("손님 1") && page.text.contains("손님 3"), "guests who chose no name are numbered among guests")
            XCTAssertTrue(page.text.contains(#"id="guest-name-form""#), "a guest may name themself")
            XCTAssertTrue(page.text.contains(#"<span class="tag you">나</span>"#))
        }
    }

    /// A page seen again reads the room from memory and writes nothing; signing in on the same
    /// browser is a change, and the room shows the nickname from the next page on.
    func testSeeingThePageAgainWritesNothingButSigningInRenamesYou() async throws {
        try await withTestApp { app in
            let created = try await app.send(.POST, "/api/v1/menu-game/groups", headers: device(Self.host))
            let pin = try XCTUnwrap(try created.object()["pin"] as? String)
            let mina = try await app.member("미나")
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/play/welcome")
            _ = try await browser.post("/play/preferences", fields: [("next", "/play")])
            _ = try await browser.get("/play/groups/\(pin)")
            let joinedAt = try await MenuGroupMember.query(on: app.db).sort(\.$joinedAt, .descending).first()?.joinedAt
            let activity = try await MenuGroupStore(database: app.db).group(pin: pin)?.lastActivityAt
            for path in ["/play/groups/\(pin)", "/play/groups/\(pin)/game", "/play/groups/\(pin)/wait"] {
                let page = try await browser.get(path)
                XCTAssertEqual(page.status, .ok, path)
                XCTAssertTrue(page.text.contains(#"<span class="tag you">나</span>"#) || path.hasSuffix("/game"), path)
            }
            let rows = try await MenuGroupMember.query(on: app.db).count()
            XCTAssertEqual(rows, 2, "the host and this browser")
            let activityAfter = try await MenuGroupStore(database: app.db).group(pin: pin)?.lastActivityAt
            XCTAssertEqual(activityAfter, activity, "nothing was written for pages seen again")
            XCTAssertNotNil(joinedAt)

            _ = try await browser.get("/login")
            let signedIn = try await browser.post("/login", form: ["email": try XCTUnwrap(mina.email), "password": "password1"])
            XCTAssertEqual(signedIn.status, .seeOther, signedIn.text)
            let lobby = try await browser.get("/play/groups/\(pin)")
            XCTAssertTrue(lobby.text.contains(">미나</span>"), "the room shows the account's nickname now")
            XCTAssertFalse(lobby.text.contains("손님 2"))
        }
    }

    /// A room lists at most `roomCapacity` people; a newcomer past it is told so and still answers,
    /// and the count and the result take them in.
    func testAFullRoomListsNoMoreButStillTakesAnswers() async throws {
        try await withTestApp { app in
            let created = try await app.send(.POST, "/api/v1/menu-game/groups", headers: device(Self.host))
            let pin = try XCTUnwrap(try created.object()["pin"] as? String)
            let store = MenuGroupStore(database: app.db)
            let found = try await store.group(pin: pin)
            let group = try XCTUnwrap(found)
            for index in 1..<MenuGroupStore.roomCapacity {
                let entered = try await store.join(group.id, playerTokenHash: "filler-\(index)", userID: nil, guestName: nil, now: Date())
                XCTAssertEqual(entered, .changed)
            }
            let late = device("late-device-token-00001")
            let refused = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/member", json: ["guestName": "늦은 사람"], headers: late)
            XCTAssertEqual(refused.status, .conflict, refused.text)
            XCTAssertEqual(refused.errorCode, "room_full")
            XCTAssertEqual(refused.errorMessage, "방에는 200명까지 보여요. 목록에 없어도 답은 낼 수 있어요.")

            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/play/welcome")
            _ = try await browser.post("/play/preferences", fields: [("next", "/play")])
            let lobby = try await browser.get("/play/groups/\(pin)")
            XCTAssertEqual(lobby.status, .ok, "the page still opens")
            XCTAssertFalse(lobby.text.contains("class=\"tag you\""), "without this browser in the room")
            let answered = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/submission", raw: MenuGameAPITests.answer, headers: late)
            XCTAssertEqual(answered.status, .ok, answered.text)
            let status = try answered.object()
            XCTAssertEqual(status["submissionCount"] as? Int, 1, "the answer counts")
            XCTAssertEqual((status["members"] as? [[String: Any]])?.count, MenuGroupStore.roomCapacity)
            XCTAssertTrue(status["you"] is NSNull, "but the newcomer is not listed")

            // Those already in still rename.
            let host = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/member", json: ["guestName": "방장"], headers: device(Self.host))
            XCTAssertEqual(host.status, .ok, host.text)
            let rows = try await MenuGroupMember.query(on: app.db).count()
            XCTAssertEqual(rows, MenuGroupStore.roomCapacity)
        }
    }

    /// Every entry or rename is announced to the whole room: one network gets 200 in ten minutes,
    /// and a refused one changes nothing.
    func testRenamesAreLimitedPerNetwork() async throws {
        try await withTestApp { app in
            let created = try await app.send(.POST, "/api/v1/menu-game/groups", headers: device(Self.host))
            let pin = try XCTUnwrap(try created.object()["pin"] as? String)
            let guest = device("guest-device-token-0001")
            let bad = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/member", json: ["guestName": ""], headers: guest)
            XCTAssertEqual(bad.status, .unprocessableEntity, "a refused name does not use up the budget")
            for index in 0..<app.roomEntries.limit {
                let renamed = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/member", json: ["guestName": "이름 \(index)"], headers: guest)
                XCTAssertEqual(renamed.status, .ok, renamed.text)
            }
            let limited = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/member", json: ["guestName": "한 번 더"], headers: guest)
            XCTAssertEqual(limited.status, .tooManyRequests)
            XCTAssertEqual(limited.errorCode, "too_many_requests")
            XCTAssertNotNil(limited.headers.first(name: "Retry-After"))
            let seen = try await room(app, pin, as: Self.host)
            XCTAssertEqual(seen.members.last?["name"] as? String, "이름 \(app.roomEntries.limit - 1)")
        }
    }

    /// A big room's change still fits PostgreSQL's NOTIFY (so every instance's sockets hear it):
    /// beyond the limit it is sent without the members, and the pages read them.
    func testABigRoomsChangeIsSentWithoutItsMembers() throws {
        func room(_ size: Int) -> [GroupMember] {
            (1...size).map { GroupMember(id: UUID(), playerTokenHash: "", userID: nil, name: String(repeating: "가", count: 20), isGuest: true,
                                         guestNumber: $0, profileImageURL: nil, isHost: $0 == 1, answered: $0.isMultiple(of: 2)) }
        }
        let small = try JSONSerialization.jsonObject(with: Data(try RoomChange.message(submissionCount: 2, members: room(4)).utf8)) as? [String: Any]
        XCTAssertEqual((small?["members"] as? [[String: Any]])?.count, 4)
        XCTAssertEqual(small?["submissionCount"] as? Int, 2)
        let big = try RoomChange.message(submissionCount: 40, members: room(80))
        XCTAssertLessThanOrEqual(big.utf8.count, RoomChange.wholeRoomLimit)
        let decoded = try JSONSerialization.jsonObject(with: Data(big.utf8)) as? [String: Any]
        XCTAssertNil(decoded?["members"])
        XCTAssertEqual(decoded?["membersChanged"] as? Bool, true)
        XCTAssertEqual(decoded?["submissionCount"] as? Int, 40)
        XCTAssertEqual(decoded?["type"] as? String, "submissionCount")
    }
}
