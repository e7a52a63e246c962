import BurgerMap
import Fluent
import Notifications
import Platform
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// The bell's count is kept in memory (`UnreadCounts`): a page does not count rows, and every
/// change to an inbox through the service — here or announced by another instance — is seen by
/// the very next read.
final class UnreadCountsTests: XCTestCase {
    func unread(_ app: Application, _ member: Member) async throws -> Int {
        let response = try await app.send(.GET, "/api/v1/notifications?limit=1", token: member.token)
        XCTAssertEqual(response.status, .ok, response.text)
        return try XCTUnwrap(try response.object()["unreadCount"] as? Int)
    }

    func stored(_ app: Application, _ member: Member) async throws -> Int {
        try await InboxNotification.query(on: app.db).filter(\.$recipient.$id == member.id).filter(\.$readAt == nil).count()
    }

    /// A row written behind the service's back, as an operator's SQL would be.
    func sneakIn(_ app: Application, for member: Member) async throws {
        let row = InboxNotification()
        row.$recipient.id = member.id
        row.service = "burger_map"
        row.kind = "followed"
        try await row.create(on: app.db)
    }

    func testTheCountIsRememberedUntilTheInboxChanges() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            let review = try await app.review(mina.token, place: try await app.place(mina.token))
            let map = "/api/v1/burger-map"
            _ = try await app.send(.PUT, "\(map)/reviews/\(review)/like", token: joon.token)
            let afterLike = try await unread(app, mina)
            XCTAssertEqual(afterLike, 1)

            try await sneakIn(app, for: mina)
            let remembered = try await unread(app, mina)
            XCTAssertEqual(remembered, 1, "served from memory: the row written behind the service is not counted yet")

            // Each way an inbox changes through the service is counted afresh at once.
            _ = try await app.send(.POST, "\(map)/reviews/\(review)/comments", json: ["text": "맛있어 보여요"], token: joon.token)
            let afterComment = try await unread(app, mina)
            let storedAfterComment = try await stored(app, mina)
            XCTAssertEqual(afterComment, storedAfterComment)
            XCTAssertEqual(afterComment, 3)

            let marked = try await app.send(.POST, "/api/v1/notifications/read", token: mina.token)
            XCTAssertEqual(marked.status, .ok)
            let afterRead = try await unread(app, mina)
            XCTAssertEqual(afterRead, 0)

            _ = try await app.send(.DELETE, "\(map)/reviews/\(review)/like", token: joon.token)
            _ = try await app.send(.PUT, "\(map)/reviews/\(review)/like", token: joon.token)
            try await sneakIn(app, for: mina)
            let deleted = try await app.send(.DELETE, "\(map)/reviews/\(review)", token: mina.token)
            XCTAssertEqual(deleted.status, .noContent, deleted.text)
            let afterWithdrawal = try await unread(app, mina)
            let storedAfterWithdrawal = try await stored(app, mina)
            XCTAssertEqual(afterWithdrawal, storedAfterWithdrawal, "notifications withdrawn with the review are not counted")

            // The page's bell reads the same count.
            XCTAssertEqual(app.unreadCounts.count(for: mina.id, now: Date()), afterWithdrawal)
        }
    }

    /// The first page of the inbox is remembered like the count: every change through the service
    /// shows at once, and so does an actor's new name (an account's change forgets every page).
    func testTheFirstPageFollowsTheInboxAndItsActors() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            func firstPage() async throws -> [[String: Any]] {
                let response = try await app.send(.GET, "/api/v1/notifications", token: mina.token)
                XCTAssertEqual(response.status, .ok, response.text)
                return try XCTUnwrap(try response.object()["items"] as? [[String: Any]])
            }
            let review = try await app.review(mina.token, place: try await app.place(mina.token))
            let map = "/api/v1/burger-map"
            let empty = try await firstPage()
            XCTAssertEqual(empty.count, 0)
            try await sneakIn(app, for: mina)
            let remembered = try await firstPage()
            XCTAssertEqual(remembered.count, 0, "served from memory: the row written behind the service is not listed yet")
            let paged = try await app.send(.GET, "/api/v1/notifications?limit=5", token: mina.token)
            XCTAssertEqual((try paged.object()["items"] as? [Any])?.count, 1, "another page size reads the rows")

            _ = try await app.send(.PUT, "\(map)/reviews/\(review)/like", token: joon.token)
            let afterLike = try await firstPage()
            XCTAssertEqual(afterLike.count, 2, "a post shows at once")
            XCTAssertEqual((afterLike.first?["actor"] as? [String: Any])?["nickname"] as? String, "준호")

            let renamed = try await app.send(.PATCH, "/api/v1/me", json: ["nickname": "준호호"], token: joon.token)
            XCTAssertEqual(renamed.status, .ok, renamed.text)
            let afterRename = try await firstPage()
            XCTAssertEqual((afterRename.first?["actor"] as? [String: Any])?["nickname"] as? String, "준호호", "the actor's new name at once")

            _ = try await app.send(.POST, "/api/v1/notifications/read", token: mina.token)
            let afterRead = try await firstPage()
            XCTAssertEqual(afterRead.compactMap { $0["read"] as? Bool }, [true, true], "read at once")
        }
    }

    func testAnotherInstancesAnnouncementIsHonoured() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let first = try await unread(app, mina)
            XCTAssertEqual(first, 0)
            try await sneakIn(app, for: mina)
            let remembered = try await unread(app, mina)
            XCTAssertEqual(remembered, 0)
            // What another instance's inbox publishes after a change to mina's inbox.
            await app.events.publish(mina.id.uuidString, to: UnreadCounts.topic)
            try await waitUntil { try await unread(app, mina) != 0 }
            let seen = try await unread(app, mina)
            XCTAssertEqual(seen, 1)
        }
    }

    func testACountThatStartedBeforeAChangeIsNotKept() {
        let counts = UnreadCounts()
        let user = UUID()
        let generation = counts.generation
        counts.apply(forgetting: user)  // a notification lands while the count is on its way
        let now = Date()
        counts.remember(3, for: user, countedAt: generation, now: now)
        XCTAssertNil(counts.count(for: user, now: now))
        counts.remember(4, for: user, countedAt: counts.generation, now: now)
        XCTAssertEqual(counts.count(for: user, now: now), 4)
        XCTAssertNil(counts.count(for: user, now: now + 31), "entries live 30 s")
    }
}
