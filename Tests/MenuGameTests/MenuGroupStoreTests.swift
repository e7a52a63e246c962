import Fluent
@testable import MenuGame
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Every statement of `MenuGroupStore` and `MenuPlayerStore` (SQLite here, PostgreSQL in CI's
/// second pass): group rows against the model, submissions only while open, a close that happens
/// once and a result frozen once; preferences, notes and shown menus as the game reads them.
final class MenuGroupStoreTests: XCTestCase {
    func testGroupsSubmissionsAndClosing() async throws {
        try await withTestApp { app in
            let store = MenuGroupStore(database: app.db)
            let start = Date(timeIntervalSince1970: 1_800_000_000.5)
            let created = try await store.createGroup(pin: "123456", hostTokenHash: "host", hostUserID: nil, recommender: .v1, now: start)
            let group = try XCTUnwrap(created)
            let taken = try await store.createGroup(pin: "123456", hostTokenHash: "other", hostUserID: nil, recommender: .v1, now: start)
            XCTAssertNil(taken, "a PIN in use is refused: the service draws another")
            // The migration's model reads back what the whole-row insert wrote.
            let found = try await MenuGroup.find(group.id, on: app.db)
            let model = try XCTUnwrap(found)
            XCTAssertEqual([model.pin, model.hostTokenHash, model.recommender.rawValue], ["123456", "host", "v1"])
            XCTAssertEqual(model.lastActivityAt, start)
            XCTAssertNil(model.closedAt)
            XCTAssertEqual(model.createdAt, group.createdAt, "the row's time is the clock it was given, as stored")
            XCTAssertEqual(group.createdAt, start.wholeMicroseconds)
            let byPIN = try await store.group(pin: "123456")
            XCTAssertEqual(byPIN, group)
            XCTAssertFalse(group.isClosed)

            let mina = try await app.member("미나").id
            let first = try await store.submit(answer: "a1", to: group.id, playerTokenHash: "p1", userID: nil, now: start.addingTimeInterval(1))
            let second = try await store.submit(answer: "b1", to: group.id, playerTokenHash: "p2", userID: mina, now: start.addingTimeInterval(2))
            let again = try await store.submit(answer: "a2", to: group.id, playerTokenHash: "p1", userID: mina, now: start.addingTimeInterval(3))
            XCTAssertEqual([first, second, again], [true, true, true])
            let accounts = try await store.answeringAccounts(of: group.id)
            XCTAssertEqual(accounts, [mina], "an account once, however many devices it answered from; anonymous players are not listed")
            var count = try await store.submissionCount(of: group.id)
            XCTAssertEqual(count, 2, "a resubmission replaces the player's answers")
            let byGroup = try await store.hasSubmitted(playerTokenHash: "p1", to: group.id)
            let byPIN1 = try await store.hasSubmitted(playerTokenHash: "p2", toGroupWithPIN: "123456")
            let stranger = try await store.hasSubmitted(playerTokenHash: "p3", toGroupWithPIN: "123456")
            XCTAssertEqual([byGroup, byPIN1, stranger], [true, true, false])
            let withdrawn = try await store.withdraw(from: group.id, playerTokenHash: "p2", now: start.addingTimeInterval(4))
            XCTAssertTrue(withdrawn)
            count = try await store.submissionCount(of: group.id)
            XCTAssertEqual(count, 1)
            let touched = try await store.group(id: group.id)
            XCTAssertEqual(touched?.lastActivityAt, start.addingTimeInterval(4), "every write is activity")

            let closed = try await store.close(group.id, now: start.addingTimeInterval(5))
            XCTAssertTrue(closed.closedHere)
            XCTAssertTrue(closed.group.isClosed)
            XCTAssertNil(closed.group.result)
            let closedAgain = try await store.close(group.id, now: start.addingTimeInterval(6))
            XCTAssertFalse(closedAgain.closedHere, "closed once")
            let late = try await store.submit(answer: "c1", to: group.id, playerTokenHash: "p3", userID: nil, now: start.addingTimeInterval(7))
            XCTAssertFalse(late, "no answer after the close")
            let lateWithdrawal = try await store.withdraw(from: group.id, playerTokenHash: "p1", now: start.addingTimeInterval(7))
            XCTAssertFalse(lateWithdrawal)
            let answers = try await store.answers(of: group.id)
            XCTAssertEqual(answers, ["a2"])
            let frozen = try await store.freezeResult("{\"first\":true}", of: group.id)
            XCTAssertEqual(frozen.result, "{\"first\":true}")
            let refrozen = try await store.freezeResult("{\"second\":true}", of: group.id)
            XCTAssertEqual(refrozen.result, "{\"first\":true}", "a frozen result stays: two closes racing agree")

            let opened = try await store.createGroup(pin: "654321", hostTokenHash: "h", hostUserID: nil, recommender: .v1, now: start)
            let open = try XCTUnwrap(opened)
            let notFrozen = try await store.freezeResult("{}", of: open.id)
            XCTAssertNil(notFrozen.result, "an open group has no result")
            try await store.deleteGroups(idleSince: start.addingTimeInterval(1), lobbiesIdleSince: start.addingTimeInterval(-100))
            let deletedOpen = try await store.group(id: open.id)
            XCTAssertNil(deletedOpen, "idle since before the cutoff")
            let kept = try await store.group(id: group.id)
            XCTAssertNotNil(kept, "active after the cutoff")
        }
    }

    /// Rooms give their PIN back (issue 56): a lobby nobody finished after `lobbyLifetime` idle, a
    /// result after `groupLifetime`; and the PIN space's use is counted.
    func testALobbyNobodyFinishedGoesBeforeAResult() async throws {
        try await withTestApp { app in
            let store = MenuGroupStore(database: app.db)
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let made = try await store.createGroup(pin: "222333", hostTokenHash: "h1", hostUserID: nil, recommender: .v1, now: start)
            let lobby = try XCTUnwrap(made)
            let madeToo = try await store.createGroup(pin: "333444", hostTokenHash: "h2", hostUserID: nil, recommender: .v1, now: start)
            let finished = try XCTUnwrap(madeToo)
            _ = try await store.close(finished.id, now: start)
            let before = try await store.roomCount()
            let later = start.addingTimeInterval(MenuGameService.lobbyLifetime + 60)
            let gone = try await MenuGameService.pruneRooms(store, now: later)
            XCTAssertEqual(gone, 1)
            let lobbyNow = try await store.group(id: lobby.id), resultNow = try await store.group(id: finished.id)
            XCTAssertNil(lobbyNow, "the unfinished lobby gave its PIN back")
            XCTAssertNotNil(resultNow, "the result is kept for a day")
            let after = try await store.roomCount()
            XCTAssertEqual(after, before - 1)
            let dayLater = try await MenuGameService.pruneRooms(store, now: start.addingTimeInterval(MenuGameService.groupLifetime + 60))
            XCTAssertEqual(dayLater, 1)
        }
    }

    /// A closed game's frozen result is kept by PIN (`FrozenGroups`): read once, and never again
    /// until a day on, when the prune deletes it and its PIN, drawn again, names the new group.
    func testAFrozenGroupIsKeptUntilItsPINCanBeDrawnAgain() async throws {
        try await withTestApp { app in
            let store = MenuGroupStore(database: app.db)
            func service() -> MenuGameService { MenuGameService(request: Request(application: app, on: app.eventLoopGroup.next())) }
            let now = app.menuGameEnvironment.now()
            let made = try await store.createGroup(pin: "445566", hostTokenHash: "h", hostUserID: nil, recommender: .v1, now: now)
            let group = try XCTUnwrap(made)
            let open = try await service().group(pin: "445566")
            XCTAssertNil(open?.result, "open: read, not kept")
            _ = try await store.close(group.id, now: now)
            _ = try await store.freezeResult(#"{"kept":true}"#, of: group.id)
            let first = try await service().group(pin: "445566")
            XCTAssertEqual(first?.result, #"{"kept":true}"#, "an open group was not kept: the close shows")
            try await app.db.sql.update(MenuGroup.schema).set("result", to: SQLBind("{}")).where("id", .equal, SQLBind(group.id)).run()
            let kept = try await service().group(pin: "445566")
            XCTAssertEqual(kept?.result, #"{"kept":true}"#, "kept: nothing reads it again")

            let later = now.addingTimeInterval(MenuGameService.groupLifetime + 60)
            let gone = try await MenuGameService.pruneRooms(store, now: later)
            XCTAssertEqual(gone, 1)
            let redrawn = try await store.createGroup(pin: "445566", hostTokenHash: "h2", hostUserID: nil, recommender: .v1, now: later)
            let again = try await app.withClock(\.menuGameEnvironment, ahead: MenuGameService.groupLifetime + 60) { try await service().group(pin: "445566") }
            XCTAssertEqual(again?.id, try XCTUnwrap(redrawn).id, "the PIN drawn again is the new group's")
            XCTAssertNil(again?.closedAt)
        }
    }

    func testPreferencesFeedbackAndShownMenus() async throws {
        try await withTestApp { app in
            let store = MenuPlayerStore(database: app.db)
            let mina = try await app.member("미나")
            let none = try await store.dislikedFoods(of: mina.id)
            XCTAssertNil(none, "never saved")
            try await store.saveDislikedFoods(["MEAT", "SPICY"], of: mina.id, at: Date())
            try await store.saveDislikedFoods(["SEAFOOD"], of: mina.id, at: Date())
            let saved = try await store.dislikedFoods(of: mina.id)
            XCTAssertEqual(saved, ["SEAFOOD"], "the last save wins")

            var written: [FeedbackRow] = []
            for index in 0..<3 { written.append(try await store.addFeedback("메모 \(index)", by: index == 0 ? nil : mina.id, language: .ko, at: Date())) }
            let model = try await MenuGameFeedback.find(written[1].id, on: app.db)
            XCTAssertEqual(written[1], try FeedbackRow(try XCTUnwrap(model)))
            XCTAssertNil(written[0].userID)
            let page1 = try await store.feedbackPage(CursorPageRequest(limit: 2))
            XCTAssertEqual(page1.items.map(\.message), ["메모 2", "메모 1"])
            let page2 = try await store.feedbackPage(CursorPageRequest(cursor: PageCursor(encoded: try XCTUnwrap(page1.nextCursor)), limit: 2))
            XCTAssertEqual(page2.items.map(\.message), ["메모 0"])
            XCTAssertNil(page2.nextCursor)

            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let shows = (0..<5).map { (deviceHash: "device-a", slug: "menu-\($0)", at: start.addingTimeInterval(Double($0))) }
                + [(deviceHash: "device-b", slug: "menu-b", at: start)]
            try await store.recordShows(shows, keep: 3)
            let recentA = try await store.recentShows(of: "device-a", limit: 10)
            XCTAssertEqual(recentA, ["menu-4", "menu-3", "menu-2"], "newest first, only the newest kept")
            let recentB = try await store.recentShows(of: "device-b", limit: 10)
            XCTAssertEqual(recentB, ["menu-b"], "each device keeps its own")
            let limited = try await store.recentShows(of: "device-a", limit: 1)
            XCTAssertEqual(limited, ["menu-4"])
        }
    }
}
