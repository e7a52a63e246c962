import Accounts
import MenuGame
import Platform
import SesacStudyApp
import SocketIO
import WhatWeEatServer
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// The event bus behind live rooms: in one process (SQLite), and between processes that share
/// a PostgreSQL database (LISTEN/NOTIFY).
final class EventBusTests: XCTestCase {
    /// The next message of a stream, or nil when none arrives in time.
    private func nextMessage(_ stream: AsyncStream<String>, within seconds: Double = 5) async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    func testSubscribersHearWhatIsPublishedToTheirTopicOnly() async throws {
        try await withTestApp { app in
            let room = app.events.subscribe(to: "menu-group:111111")
            let other = app.events.subscribe(to: "menu-group:222222")
            await app.events.publish(#"{"type":"closed"}"#, to: "menu-group:111111")
            let heard = await nextMessage(room)
            XCTAssertEqual(heard, #"{"type":"closed"}"#)
            let overheard = await nextMessage(other, within: 0.5)
            XCTAssertNil(overheard)
        }
    }

    func testTheBusMatchesTheDatabase() async throws {
        try await withTestApp { app in
            if TestDatabase.postgresURL == nil {
                XCTAssertTrue(app.events is InProcessEventBus)
            } else {
                XCTAssertTrue(app.events is PostgresEventBus)
            }
        }
    }

    /// Two server processes on one database: a player's submission through the first reaches a
    /// waiting room held open by the second.
    func testProcessesSharingPostgreSQLHearEachOthersEvents() async throws {
        try XCTSkipUnless(TestDatabase.postgresURL != nil, "needs PostgreSQL; the CI's PostgreSQL pass runs it")
        try await withTestApp { first in
            let second = try await Application.make(.testing)
            do {
                try await configure(second, settings: first.settings)
                let created = try await first.send(.POST, "/api/v1/menu-game/groups", headers: ["X-Device-Token": "host-device-token-0001"])
                let pin = try XCTUnwrap(try created.object()["pin"] as? String)
                let room = second.events.subscribe(to: MenuGameService.topic(pin))

                let submitted = try await first.send(.PUT, "/api/v1/menu-game/groups/\(pin)/submission",
                                                     json: ["gameAnswer": ["rice": true]], headers: ["X-Device-Token": "player-device-token-01"])
                XCTAssertEqual(submitted.status, .ok)
                // The change carries the room too (MenuGroupRoomTests); here, that it crossed processes.
                let heard = await nextMessage(room)
                let count = try XCTUnwrap(heard)
                let change = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(count.utf8)) as? [String: Any])
                XCTAssertEqual(change["type"] as? String, "submissionCount")
                XCTAssertEqual(change["submissionCount"] as? Int, 1)
                XCTAssertEqual((change["members"] as? [[String: Any]])?.count, 2, "the host and the player")

                let closed = try await first.send(.POST, "/api/v1/menu-game/groups/\(pin)/close", headers: ["X-Device-Token": "host-device-token-0001"])
                XCTAssertEqual(closed.status, .ok)
                let end = await nextMessage(room)
                XCTAssertEqual(end, #"{"type":"closed"}"#)
            } catch {
                try? await second.asyncShutdown()
                throw error
            }
            try await second.asyncShutdown()
        }
    }
}
