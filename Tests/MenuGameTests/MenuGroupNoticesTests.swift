import Fluent
@testable import MenuGame
import Platform
import WhatWeEatTesting
import XCTVapor

/// A group game's members who answered signed in learn of its result from their inbox (and so a
/// push) when the host closes: not the host who closed it, not anonymous players; seeing the
/// result page reads the entry.
final class MenuGroupNoticesTests: XCTestCase {
    func device(_ token: String) -> HTTPHeaders { [DeviceToken.header: token] }

    func inbox(_ app: Application, _ member: Member) async throws -> [[String: Any]] {
        try await app.send(.GET, "/api/v1/notifications", token: member.token).object()["items"] as? [[String: Any]] ?? []
    }

    func unread(_ app: Application, _ member: Member) async throws -> Int {
        try await app.send(.GET, "/api/v1/notifications", token: member.token).object()["unreadCount"] as? Int ?? -1
    }

    func testClosingTellsTheSignedInMembersButNotTheHostWhoClosed() async throws {
        try await withTestApp { app in
            let host = try await app.member("호스트"), mina = try await app.member("미나"), jun = try await app.member("준")
            let created = try await app.send(.POST, "/api/v1/menu-game/groups", token: host.token, headers: device("host-device-token-0001"))
            XCTAssertEqual(created.status, .created, created.text)
            let pin = try XCTUnwrap(try created.object()["pin"] as? String)
            for (member, token) in [(mina, "mina-device-token-0001"), (jun, "jun-device-token-00001"), (mina, "mina-tablet-token-0001")] {
                let answered = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/submission", raw: MenuGameAPITests.answer,
                                                  token: member.token, headers: device(token))
                XCTAssertEqual(answered.status, .ok, answered.text)
            }
            let anonymous = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/submission", raw: MenuGameAPITests.answer,
                                               headers: device("guest-device-token-0001"))
            XCTAssertEqual(anonymous.status, .ok)
            let before = try await inbox(app, mina)
            XCTAssertTrue(before.isEmpty, "nothing until the host closes")

            let closed = try await app.send(.POST, "/api/v1/menu-game/groups/\(pin)/close", token: host.token, headers: device("host-device-token-0001"))
            XCTAssertEqual(closed.status, .ok, closed.text)
            for member in [mina, jun] {
                let entries = try await inbox(app, member)
                XCTAssertEqual(entries.count, 1, "one entry per account however many devices answered: \(entries)")
                XCTAssertEqual(entries.first?["kind"] as? String, "group_closed")
                XCTAssertEqual(entries.first?["link"] as? String, "/play/groups/\(pin)/result")
                XCTAssertEqual(entries.first?["message"] as? String, "함께 고른 메뉴 결과가 나왔어요. 무엇을 먹을지 확인해 보세요.")
            }
            let hostEntries = try await inbox(app, host)
            XCTAssertTrue(hostEntries.isEmpty, "the host closed it and saw the result")

            let again = try await app.send(.POST, "/api/v1/menu-game/groups/\(pin)/close", token: host.token, headers: device("host-device-token-0001"))
            XCTAssertEqual(again.status, .ok)
            let afterSecondClose = try await inbox(app, jun)
            XCTAssertEqual(afterSecondClose.count, 1, "closing again tells nobody twice")

            // Mina opens the result page from her inbox: the entry is read; Jun's stays unread.
            var browser = try await CookieBrowser.signedIn(app, as: mina.email)
            let page = try await browser.get("/play/groups/\(pin)/result")
            XCTAssertEqual(page.status, .ok, page.text)
            let minaUnread = try await unread(app, mina), junUnread = try await unread(app, jun)
            XCTAssertEqual(minaUnread, 0)
            XCTAssertEqual(junUnread, 1)
        }
    }

    /// The UX review: a signed-in host who closed the game from the waiting room still got an
    /// inbox entry for its result (the page called the API with the device only). The host's
    /// waiting room now carries the session's access token, so the close names the account; a
    /// member's waiting room carries none.
    func testASignedInHostClosingFromTheWaitingRoomIsNotToldOfIt() async throws {
        try await withTestApp { app in
            let host = try await app.member("호스트")
            var browser = try await CookieBrowser.signedIn(app, as: host.email)
            _ = try await browser.get("/play/welcome")
            _ = try await browser.post("/play/preferences", fields: [("next", "/play")])
            _ = try await browser.get("/play/together")
            let created = try await browser.post("/play/together/create", form: [:])
            XCTAssertEqual(created.status, .seeOther, created.text)
            let pin = try XCTUnwrap(created.headers.first(name: .location)?.firstMatch(of: /\/play\/groups\/(\d{6})/)?.1)
            let wait = try await browser.get("/play/groups/\(pin)/wait")
            let config = try XCTUnwrap(wait.text.firstMatch(of: /<script type="application\/json" id="page-config">([^<]*)<\/script>/)?.1)
            let values = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(config.utf8)) as? [String: Any])
            let token = try XCTUnwrap(values["accessToken"] as? String, "the host's waiting room can close as the account")
            let hostDevice = try XCTUnwrap(values["device"] as? String)

            let member = try await app.member("멤버")
            _ = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/submission", raw: MenuGameAPITests.answer, token: member.token,
                                   headers: device("member-device-token-01"))
            var memberBrowser = try await CookieBrowser.signedIn(app, as: member.email)
            _ = try await memberBrowser.get("/play/welcome")
            _ = try await memberBrowser.post("/play/preferences", fields: [("next", "/play")])
            let memberWait = try await memberBrowser.get("/play/groups/\(pin)/wait")
            XCTAssertFalse(memberWait.text.contains(#""accessToken":"ey"#), "only the host's page carries one")

            // What wait.js sends: the device and the page's token.
            let closed = try await app.send(.POST, "/api/v1/menu-game/groups/\(pin)/close", token: token, headers: device(hostDevice))
            XCTAssertEqual(closed.status, .ok, closed.text)
            let hostEntries = try await inbox(app, host)
            XCTAssertEqual(hostEntries.count, 0, "the host saw the result")
            let memberEntries = try await inbox(app, member)
            XCTAssertEqual(memberEntries.map { $0["kind"] as? String }, ["group_closed"])
        }
    }

    /// Only the host's device closes; when it closes signed out, the host's account is told like
    /// any member's (the result may have been closed from a shared tablet).
    func testAHostWhoClosedSignedOutIsToldLikeAMember() async throws {
        try await withTestApp { app in
            let host = try await app.member("호스트")
            let created = try await app.send(.POST, "/api/v1/menu-game/groups", token: host.token, headers: device("host-device-token-0001"))
            let pin = try XCTUnwrap(try created.object()["pin"] as? String)
            _ = try await app.send(.PUT, "/api/v1/menu-game/groups/\(pin)/submission", raw: MenuGameAPITests.answer, headers: device("guest-device-token-0001"))
            let closed = try await app.send(.POST, "/api/v1/menu-game/groups/\(pin)/close", headers: device("host-device-token-0001"))
            XCTAssertEqual(closed.status, .ok, closed.text)
            let entries = try await inbox(app, host)
            XCTAssertEqual(entries.map { $0["kind"] as? String }, ["group_closed"], "closed from a signed-out page: the host's account hears of it")
        }
    }
}
