@testable import Mates
import MatesTesting
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Issue 40, item 1: a line the reader does not see becomes one inbox entry per conversation ("N
/// new messages"), counted in the bell and in `/mates/state`, and reading the chat clears it; a
/// line read in time (the chat was open) tells the inbox nothing. The checks run from the durable
/// work queue; here the test moves the queue's clock and runs it.
final class MatesChatNoticeTests: XCTestCase {
    private let mates = Application.mates

    /// The reader's inbox entries of the conversation.
    private func notices(_ app: Application, _ member: Member) async throws -> [[String: Any]] {
        let page = try await app.send(.GET, "/api/v1/notifications", token: member.token).object()
        return (page["items"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "mates_messages" }
    }

    private func unreadInBell(_ app: Application, _ member: Member) async throws -> Int {
        try await app.send(.GET, "/api/v1/notifications", token: member.token).object()["unreadCount"] as? Int ?? -1
    }

    /// The queue on a clock the test moves, run only when the test says; two mates matched.
    private func matchedWithTheQueueInHand(_ app: Application) async throws -> (TestClock, Member, Member, UUID) {
        // One clock for the queue and for mates, as in production: a check reads how old the newest
        // line is to know whether the reader has had their chance to see it.
        let clock = app.useTestClock()
        app.workQueue.useClock { clock.now }
        app.workQueue.runsInBackground = false
        let mina = try await app.mate("미나"), joon = try await app.mate("준호")
        return (clock, mina, joon, try await app.matchPair(mina, joon))
    }

    /// Runs the queue until nothing more is due (a notice queues its push).
    private func settle(_ app: Application) async {
        while await app.workQueue.runDue(app) > 0 {}
    }

    private func state(_ app: Application, _ member: Member) async throws -> [String: Any] {
        try await app.send(.GET, "\(mates)/state", token: member.token).object()
    }

    /// A script's flood of lines (the probe's 548 in 15 s) meets a budget a person typing never
    /// does, and however many lines arrive, one check waits per conversation (issue 56).
    func testChatLinesHaveABudgetAndOneNoticeWaitsPerConversation() async throws {
        try await withTestApp { app in
            let (_, mina, _, match) = try await matchedWithTheQueueInHand(app)
            let chat = "\(mates)/chat/\(match)/messages"
            var statuses: [HTTPStatus] = []
            for index in 0..<31 {
                statuses.append(try await app.send(.POST, chat, json: ["text": "줄 \(index)"], token: mina.token).status)
            }
            XCTAssertEqual(statuses.filter { $0 == .created }.count, 30)
            XCTAssertEqual(statuses.last, .tooManyRequests)
            let refused = try await app.send(.POST, chat, json: ["text": "한 줄 더"], token: mina.token)
            XCTAssertEqual(refused.errorCode, "too_many_chat_lines")
            XCTAssertNotNil(refused.headers.first(name: "Retry-After"))
            let stored = try await app.rowCount("mates_messages")
            XCTAssertEqual(stored, 30, "a refused line is not stored")
            let waiting = try await app.rowCount(WorkQueueStore.table) { $0.where("kind", .equal, MatesService.chatNoticeKind) }
            XCTAssertEqual(waiting, 1, "one pending check for the conversation, not one a line")
        }
    }

    func testUnseenLinesBecomeOneEntryPerConversationThatReadingClears() async throws {
        try await withTestApp { app in
            let (clock, mina, joon, match) = try await matchedWithTheQueueInHand(app)
            let chat = "\(mates)/chat/\(match)/messages"
            let bellBefore = try await unreadInBell(app, joon)

            for text in ["지금 어디예요?", "저 도착했어요", "2번 출구 앞이에요"] {
                let sent = try await app.send(.POST, chat, json: ["text": text], token: mina.token)
                XCTAssertEqual(sent.status, .created, sent.text)
                clock.advance(by: 0.001)  // lines a moment apart, as typed
            }
            let stateWhileUnread = try await state(app, joon)
            XCTAssertEqual(stateWhileUnread["unreadCount"] as? Int, 3, "the state counts the match's unread lines at once")
            let minaState = try await state(app, mina)
            XCTAssertEqual(minaState["unreadCount"] as? Int, 0, "one's own lines are not unread")

            await settle(app)
            var entries = try await notices(app, joon)
            XCTAssertTrue(entries.isEmpty, "the check waits for the chat to have had its chance")

            clock.advance(by: app.matesEnvironment.chatNoticeDelay)
            await settle(app)
            entries = try await notices(app, joon)
            XCTAssertEqual(entries.count, 1, "one entry for the conversation, not one a line")
            let entry = try XCTUnwrap(entries.first)
            XCTAssertEqual(entry["count"] as? Int, 3)
            XCTAssertEqual(entry["excerpt"] as? String, "2번 출구 앞이에요", "the newest line is quoted")
            XCTAssertEqual(entry["link"] as? String, "/mates/chat/\(match.uuidString.lowercased())")
            XCTAssertEqual(entry["message"] as? String, "미나님이 새 메시지 3개를 보냈어요.")
            XCTAssertEqual(entry["read"] as? Bool, false)
            let bellAfter = try await unreadInBell(app, joon)
            XCTAssertEqual(bellAfter, bellBefore + 1, "the bell counts the conversation once")
            let minasEntries = try await notices(app, mina)
            XCTAssertTrue(minasEntries.isEmpty, "the writer is told nothing")

            // A fourth line moves the same entry.
            _ = try await app.send(.POST, chat, json: ["text": "보이면 손 흔들게요"], token: mina.token)
            clock.advance(by: app.matesEnvironment.chatNoticeDelay)
            await settle(app)
            entries = try await notices(app, joon)
            XCTAssertEqual(entries.count, 1)
            XCTAssertEqual(entries.first?["count"] as? Int, 4)
            XCTAssertEqual(entries.first?["excerpt"] as? String, "보이면 손 흔들게요")

            // Reading the chat reads the entry.
            let read = try await app.send(.POST, "\(mates)/chat/\(match)/read", json: [String: String](), token: joon.token)
            XCTAssertEqual(read.status, .ok, read.text)
            entries = try await notices(app, joon)
            XCTAssertEqual(entries.first?["read"] as? Bool, true)
            let bellRead = try await unreadInBell(app, joon)
            XCTAssertEqual(bellRead, bellBefore)
            let stateRead = try await state(app, joon)
            XCTAssertEqual(stateRead["unreadCount"] as? Int, 0)

            // The next unseen line starts a new entry, counted from the read marker.
            _ = try await app.send(.POST, chat, json: ["text": "어디 계세요?"], token: mina.token)
            clock.advance(by: app.matesEnvironment.chatNoticeDelay)
            await settle(app)
            entries = try await notices(app, joon)
            XCTAssertEqual(entries.filter { $0["read"] as? Bool == false }.map { $0["count"] as? Int }, [1])
            XCTAssertEqual(entries.first?["message"] as? String, "미나님이 메시지를 보냈어요.")
            let queued = try await app.rowCount(WorkQueueStore.table)
            XCTAssertEqual(queued, 0, "every check is done")
        }
    }

    func testALineReadInTimeTellsTheInboxNothing() async throws {
        try await withTestApp { app in
            let (clock, mina, joon, match) = try await matchedWithTheQueueInHand(app)
            let sent = try await app.send(.POST, "\(mates)/chat/\(match)/messages", json: ["text": "보고 있어요?"], token: mina.token)
            XCTAssertEqual(sent.status, .created, sent.text)
            // The chat is open: its page marks the line read as it arrives.
            _ = try await app.send(.POST, "\(mates)/chat/\(match)/read", json: [String: String](), token: joon.token)
            clock.advance(by: app.matesEnvironment.chatNoticeDelay)
            await settle(app)
            let entries = try await notices(app, joon)
            XCTAssertTrue(entries.isEmpty, "the check found the line read")
            let queued = try await app.rowCount(WorkQueueStore.table)
            XCTAssertEqual(queued, 0, "and is done")
        }
    }
}
