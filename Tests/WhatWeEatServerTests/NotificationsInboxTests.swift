import Banchan
import BanchanApp
import BurgerMap
import Fluent
import LookForRealBurgerApp
import Mates
import MenuGame
import MenuGameApp
import NIOConcurrencyHelpers
import Notifications
import Platform
import SesacStudyApp
import SocketIO
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// `/api/v1/notifications`: one inbox for every service, its unread count, marking read, and the
/// live socket that tells a signed-in person as things arrive.
final class NotificationsInboxTests: XCTestCase {
    struct Item: Decodable { let id: UUID; let kind: String; let read: Bool; let message: String }
    struct Inbox: Decodable { let items: [Item]; let nextCursor: String?; let unreadCount: Int }

    func inbox(_ app: Application, _ member: Member, query: String = "") async throws -> Inbox {
        let response = try await app.send(.GET, "/api/v1/notifications\(query)", token: member.token)
        XCTAssertEqual(response.status, .ok, response.text)
        return try response.json(Inbox.self)
    }

    func testTheInboxListsCountsAndMarksRead() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            let seo = try await app.member("서연")
            let place = try await app.place(mina.token)
            let review = try await app.review(mina.token, place: place)
            let map = "/api/v1/burger-map"
            _ = try await app.send(.PUT, "\(map)/reviews/\(review)/like", token: joon.token)
            _ = try await app.send(.POST, "\(map)/reviews/\(review)/comments", json: ["text": "맛있어 보여요"], token: joon.token)
            _ = try await app.send(.PUT, "\(map)/users/\(mina.id)/follow", token: joon.token)
            _ = try await app.send(.PUT, "\(map)/users/\(mina.id)/follow", token: seo.token)

            let raw = try await app.send(.GET, "/api/v1/notifications", token: mina.token)
            XCTAssertEqual(Set(try raw.object().keys), ["items", "nextCursor", "unreadCount"])
            XCTAssertTrue(try raw.object()["nextCursor"] is NSNull)
            let items = try XCTUnwrap(try raw.object()["items"] as? [[String: Any]])
            XCTAssertEqual(Set(items[0].keys), ["id", "service", "kind", "actor", "subjectId", "link", "excerpt", "message", "read", "createdAt", "count"])
            let newestActor = try XCTUnwrap(items[0]["actor"] as? [String: Any], "the actor joined to the row")
            XCTAssertEqual((newestActor["id"] as? String).flatMap(UUID.init(uuidString:)), seo.id)
            XCTAssertEqual(newestActor["nickname"] as? String, "서연")
            XCTAssertTrue(newestActor["profileImageURL"] is NSNull)
            XCTAssertTrue((items[0]["message"] as? String)?.contains("서연") == true)
            XCTAssertEqual(items[2]["excerpt"] as? String, "맛있어 보여요")
            let all = try await inbox(app, mina)
            XCTAssertEqual(all.items.map(\.kind), ["followed", "followed", "review_commented", "review_liked"], "newest first")
            XCTAssertEqual(all.unreadCount, 4)
            XCTAssertTrue(all.items.allSatisfy { !$0.read })

            let first = try await inbox(app, mina, query: "?limit=3")
            XCTAssertEqual(first.items.count, 3)
            let cursor = try XCTUnwrap(first.nextCursor)
            let second = try await inbox(app, mina, query: "?limit=3&cursor=\(cursor)")
            XCTAssertEqual(second.items.map(\.id), [all.items[3].id])
            XCTAssertNil(second.nextCursor)
            XCTAssertEqual(second.unreadCount, 4, "the count is of the whole inbox, not the page")

            // Someone else's ids change nothing, in their inbox or in mine.
            let joonsRead = try await app.send(.POST, "/api/v1/notifications/read", json: ["ids": all.items.map(\.id)], token: joon.token)
            XCTAssertEqual(joonsRead.status, .ok)
            XCTAssertEqual(try joonsRead.object()["unreadCount"] as? Int, 0)
            let untouched = try await inbox(app, mina)
            XCTAssertEqual(untouched.unreadCount, 4)

            let noIDs = try await app.send(.POST, "/api/v1/notifications/read", raw: #"{"ids": []}"#, token: mina.token)
            XCTAssertEqual(noIDs.status, .ok, noIDs.text)
            XCTAssertEqual(try noIDs.object()["unreadCount"] as? Int, 4, "an empty list marks none, not all")
            let marked = try await app.send(.POST, "/api/v1/notifications/read", json: ["ids": [all.items[0].id, all.items[2].id]], token: mina.token)
            XCTAssertEqual(marked.status, .ok, marked.text)
            XCTAssertEqual(try marked.object()["unreadCount"] as? Int, 2)
            let afterSome = try await inbox(app, mina)
            XCTAssertEqual(afterSome.items.map(\.read), [true, false, true, false])
            XCTAssertEqual(afterSome.unreadCount, 2)

            let bad: [(String, String)] = [
                (#"{"ids": ["not-a-uuid"]}"#, "invalid_value"),
                (#"{"ids": "all"}"#, "invalid_type"),
                ("{", "malformed_json"),
                (#"{"ids": [\#((0...CursorPageRequest.maxLimit).map { _ in "\"\(UUID())\"" }.joined(separator: ","))]}"#, "too_many_ids"),
            ]
            for (body, code) in bad {
                let response = try await app.send(.POST, "/api/v1/notifications/read", raw: body, token: mina.token)
                XCTAssertEqual(response.status, .badRequest, String(body.prefix(40)))
                XCTAssertEqual(response.errorCode, code, String(body.prefix(40)))
            }
            let afterRefusals = try await inbox(app, mina)
            XCTAssertEqual(afterRefusals.unreadCount, 2, "refused requests mark nothing")

            let everything = try await app.send(.POST, "/api/v1/notifications/read", token: mina.token)
            XCTAssertEqual(everything.status, .ok, everything.text)
            XCTAssertEqual(try everything.object()["unreadCount"] as? Int, 0)
            let read = try await inbox(app, mina)
            XCTAssertTrue(read.items.allSatisfy(\.read))
            XCTAssertEqual(read.unreadCount, 0)
            let nullIDs = try await app.send(.POST, "/api/v1/notifications/read", raw: #"{"ids": null}"#, token: mina.token)
            XCTAssertEqual(nullIDs.status, .ok)

            let anonymous = try await app.send(.GET, "/api/v1/notifications")
            XCTAssertEqual(anonymous.status, .unauthorized)
            let stored = try await InboxNotification.query(on: app.db).filter(\.$recipient.$id == mina.id).count()
            XCTAssertEqual(stored, 4, "reading deletes nothing")

            // An actor who deleted their account is no one in particular; the line stays.
            let withdrawal = try await app.send(.DELETE, "/api/v1/me", json: ["password": "password1"], token: seo.token)
            XCTAssertEqual(withdrawal.status, .noContent, withdrawal.text)
            let afterWithdrawal = try await app.send(.GET, "/api/v1/notifications", token: mina.token)
            let lines = try XCTUnwrap(try afterWithdrawal.object()["items"] as? [[String: Any]])
            XCTAssertEqual(lines.count, 4)
            XCTAssertTrue(lines[0]["actor"] is NSNull)
            XCTAssertFalse((lines[0]["message"] as? String ?? "서연").contains("서연"))
            XCTAssertEqual((lines[1]["actor"] as? [String: Any])?["nickname"] as? String, "준호")
        }
    }

    /// A real socket on a real port: the count at once, a like as it happens, and a read.
    func testTheLiveSocketTellsOfALikeAsItHappens() async throws {
        try await withTestApp { app in
            let port = try freePort()
            try await app.server.start(address: .hostname("127.0.0.1", port: port))
            do {
                try await liveScenario(app, port: port)
            } catch {
                await app.server.shutdown()  // a failed step must not leave the server running
                throw error
            }
            await app.server.shutdown()
        }
    }

    private func liveScenario(_ app: Application, port: Int) async throws {
        let mina = try await app.member("미나")
        let joon = try await app.member("준호")
        let place = try await app.place(mina.token)
        let minasReview = try await app.review(mina.token, place: place, title: "라이브 버거")
        let joonsReview = try await app.review(joon.token, place: place)
        // One notification already waits for mina.
        _ = try await app.send(.PUT, "/api/v1/burger-map/users/\(mina.id)/follow", token: joon.token)

        let received = NIOLockedValueBox<[UUID: [String]]>([:])
        func open(_ member: Member) async throws -> WebSocket {
            let promise = app.eventLoopGroup.any().makePromise(of: WebSocket.self)
            WebSocket.connect(to: "ws://127.0.0.1:\(port)/api/v1/notifications/live", headers: ["Authorization": "Bearer \(member.token)"],
                              on: app.eventLoopGroup) { socket in
                socket.onText { _, text in received.withLockedValue { $0[member.id, default: []].append(text) } }
                promise.succeed(socket)
            }.cascadeFailure(to: promise)
            return try await promise.futureResult.get()
        }
        func messages(_ member: Member) -> [[String: Any]] {
            received.withLockedValue { $0[member.id] ?? [] }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        let minasSocket = try await open(mina)
        let joonsSocket = try await open(joon)
        try await waitUntil { !messages(mina).isEmpty && !messages(joon).isEmpty }
        XCTAssertEqual(messages(mina).first?["unreadCount"] as? Int, 1, "the count at once")
        XCTAssertEqual(messages(joon).first?["unreadCount"] as? Int, 0)
        try await waitUntil { app.events.subscriberCount(of: NotificationStore.topic(for: mina.id)) == 1 }

        let like = try await app.send(.PUT, "/api/v1/burger-map/reviews/\(minasReview)/like", token: joon.token)
        XCTAssertEqual(like.status, .ok)
        try await waitUntil { messages(mina).count == 2 }
        let live = messages(mina)[1]
        XCTAssertEqual(live["unreadCount"] as? Int, 2)
        let notification = try XCTUnwrap(live["notification"] as? [String: Any], "\(live)")
        XCTAssertEqual(notification["kind"] as? String, "review_liked")
        XCTAssertEqual(notification["message"] as? String, "준호님이 내 리뷰를 좋아해요.")
        XCTAssertEqual((notification["subjectId"] as? String).flatMap(UUID.init(uuidString:)), minasReview)
        XCTAssertEqual(notification["excerpt"] as? String, "라이브 버거")

        // Reading tells the socket the new count.
        _ = try await app.send(.POST, "/api/v1/notifications/read", token: mina.token)
        try await waitUntil { messages(mina).count == 3 }
        XCTAssertEqual(messages(mina)[2]["unreadCount"] as? Int, 0)
        XCTAssertNil(messages(mina)[2]["notification"] as? [String: Any])

        // Each socket hears only of its own person: joon's first news is mina's like of his review.
        _ = try await app.send(.PUT, "/api/v1/burger-map/reviews/\(joonsReview)/like", token: mina.token)
        try await waitUntil { messages(joon).count == 2 }
        XCTAssertEqual((messages(joon)[1]["notification"] as? [String: Any])?["kind"] as? String, "review_liked")
        XCTAssertEqual(((messages(joon)[1]["notification"] as? [String: Any])?["subjectId"] as? String).flatMap(UUID.init(uuidString:)), joonsReview)
        XCTAssertEqual(messages(mina).count, 3, "mina heard nothing of joon's news")

        try await minasSocket.close()
        try await joonsSocket.close()
        try await waitUntil { app.events.subscriberCount(of: NotificationStore.topic(for: mina.id)) == 0 }

        // Without an account the upgrade is refused with the usual JSON error.
        let refused = try await app.send(.GET, "/api/v1/notifications/live", headers: [
            "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        ])
        XCTAssertEqual(refused.status, .unauthorized)
        XCTAssertEqual(refused.errorCode, "unauthorized")
    }
}
