import Fluent
@testable import Mates
import MatesTesting
import Platform
import WhatWeEatTesting
import XCTVapor

/// The statements of `MatesStore+Matches.swift` (SQLite here, PostgreSQL in CI's second pass): the
/// match rows say what the model says, a match ends once, read markers only move forward, and the
/// chat's lines page, count and cross matches as the service relies on.
final class MatesMatchStoreTests: XCTestCase {
    func testMatchRowsSayWhatTheModelSaysAndEndOnce() async throws {
        try await withTestApp { app in
            let store = MatesStore(database: app.db, application: app)
            let asker = try await app.mate("행하나"), accepter = try await app.mate("행둘")
            let matchID = try await app.matchPair(asker, accepter)

            func check(_ note: String) async throws -> MatchRow {
                let read = try await store.match(matchID)
                let row = try XCTUnwrap(read, note)
                let stored = try await app.storedRow(MatchRow.self, in: MatesStore.Table.matches, id: matchID)
                XCTAssertEqual(row, try XCTUnwrap(stored, note), note)
                return row
            }
            let live = try await check("live")
            XCTAssertEqual([live.userA, live.userB], [asker.id, accepter.id], "the asker is a, the one who accepted b")
            XCTAssertEqual(live.partner(of: asker.id), accepter.id)
            XCTAssertTrue(live.includes(accepter.id))
            XCTAssertFalse(live.includes(UUID()))
            let liveRead = try await store.liveMatch(matchID)
            XCTAssertEqual(liveRead, live)
            let newest = try await store.newestMatch(of: accepter.id, with: asker.id)
            XCTAssertEqual(newest?.id, matchID, "found from either side")
            let strangers = try await store.newestMatch(of: asker.id, with: UUID())
            XCTAssertNil(strangers)
            let unknown = try await store.match(UUID())
            XCTAssertNil(unknown)

            // Read markers: forward only.
            let later = Date(timeIntervalSince1970: 1_800_000_000.25), earlier = later.addingTimeInterval(-60)
            let movedForward = try await store.moveReadMarker(in: live, of: accepter.id, to: later)
            XCTAssertTrue(movedForward)
            let movedBack = try await store.moveReadMarker(in: live, of: accepter.id, to: earlier)
            XCTAssertFalse(movedBack, "a marker never moves back")
            let marked = try await check("a read marker")
            XCTAssertEqual(marked.readAt(of: accepter.id), later)
            XCTAssertNil(marked.readAt(of: asker.id), "only the reader's side")
            XCTAssertEqual(live.reading(accepter.id, upTo: later), marked, "the row the service hands on after a read")

            // Ending: once.
            let end = Date(timeIntervalSince1970: 1_800_000_100.5)
            let first = try await store.endMatch(matchID, by: asker.id, reason: "finished", at: end)
            XCTAssertTrue(first)
            let second = try await store.endMatch(matchID, by: accepter.id, reason: "dodged", at: end.addingTimeInterval(1))
            XCTAssertFalse(second, "an ended match stays as it ended")
            let ended = try await check("ended")
            XCTAssertEqual(ended.endedAt, end)
            XCTAssertEqual(ended.endedBy, asker.id)
            XCTAssertEqual(ended.endReason, "finished")
            let liveAfter = try await store.liveMatch(matchID)
            XCTAssertNil(liveAfter, "no longer live")
            let last = try await store.readLastEndedMatch(accepter.id)
            XCTAssertEqual(last, MatesOwnRecord.EndedMatch(id: matchID, endedAt: end))

            // A new match of one of them is their newest.
            let third = try await app.mate("행셋")
            let next = try await store.createMatch(id: UUID(), asker: third.id, accepter: asker.id)
            let newestOfAsker = try await store.newestMatch(of: asker.id)
            XCTAssertEqual(newestOfAsker?.id, next.id)
            let newestWithAccepter = try await store.newestMatch(of: asker.id, with: accepter.id)
            XCTAssertEqual(newestWithAccepter?.id, matchID, "the newest with that person")
        }
    }

    func testChatLinesPageCountAndCrossMatches() async throws {
        try await withTestApp { app in
            let store = MatesStore(database: app.db, application: app)
            let one = try await app.mate("줄하나"), two = try await app.mate("줄둘")
            let first = try await app.matchPair(one, two)
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            var written: [MessageRow] = []
            for index in 0..<5 {
                let sender: UUID? = index == 2 ? nil : (index.isMultiple(of: 2) ? one.id : two.id)
                written.append(try await store.appendMessage(to: first, by: sender, kind: sender == nil ? "menu_game" : "text",
                                                             text: "줄 \(index)", pin: sender == nil ? "123456" : nil,
                                                             at: start.addingTimeInterval(Double(index) + 0.000_000_4)))
            }
            // Rows as the table holds them, the time kept to the microsecond.
            for row in written {
                let stored = try await app.storedRow(MessageRow.self, in: MatesStore.Table.messages, id: row.id)
                XCTAssertEqual(row, try XCTUnwrap(stored))
                let read = try await store.message(row.id)
                XCTAssertEqual(read, row)
            }
            XCTAssertEqual(written[0].createdAt, start, "rounded to the microsecond both databases keep")
            let newestTime = try await store.newestMessageTime(in: first)
            XCTAssertEqual(newestTime, written[4].createdAt)
            let none = try await store.newestMessageTime(in: UUID())
            XCTAssertNil(none)

            // Pages: newest first, then from a position onwards.
            let page1 = try await store.messagesPage(in: first, before: nil, after: nil, limit: 2)
            XCTAssertEqual(page1.items.map(\.text), ["줄 4", "줄 3"])
            let page2 = try await store.messagesPage(in: first, before: PageCursor(encoded: try XCTUnwrap(page1.nextCursor)), after: nil, limit: 2)
            XCTAssertEqual(page2.items.map(\.text), ["줄 2", "줄 1"])
            let onwards = try await store.messagesPage(in: first, before: nil, after: PageCursor(createdAt: written[1].createdAt, id: written[1].id), limit: 10)
            XCTAssertEqual(onwards.items.map(\.text), ["줄 2", "줄 3", "줄 4"], "oldest first after the position")
            XCTAssertNil(onwards.nextCursor)

            // Counting what a reader has not read: the partner's and the server's lines.
            let forTwo = try await store.countMessages(in: first, notBy: two.id, after: nil)
            XCTAssertEqual(forTwo, 3, "one's two lines and the server's")
            let forTwoLater = try await store.countMessages(in: first, notBy: two.id, after: written[2].createdAt)
            XCTAssertEqual(forTwoLater, 1)

            // Between two people, over their matches, from a time on.
            _ = try await app.send(.POST, "/api/v1/mates/match/finish", token: one.token)
            try await app.search(one)
            try await app.search(two)
            let second = try await app.matchPair(two, one)
            let later = try await store.appendMessage(to: second, by: two.id, kind: "text", text: "다시", pin: nil, at: start.addingTimeInterval(100))
            let between = try await store.messagesBetween(one.id, two.id, after: start.addingTimeInterval(1), limit: 100)
            XCTAssertEqual(between.map(\.text), ["줄 1", "줄 2", "줄 3", "줄 4", "다시"], "both matches, oldest first, from the time on")
            let limited = try await store.messagesBetween(two.id, one.id, after: start, limit: 2)
            XCTAssertEqual(limited.map(\.id), [written[0].id, written[1].id])
            let stranger = try await app.mate("줄셋")
            let nothing = try await store.messagesBetween(one.id, stranger.id, after: start, limit: 100)
            XCTAssertTrue(nothing.isEmpty)
            XCTAssertEqual(later.chatMessage.matchId, second)
        }
    }
}
