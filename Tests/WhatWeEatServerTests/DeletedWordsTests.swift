import Accounts
import BurgerMap
import Fluent
import Notifications
import Platform
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// Probe 2026-11-27, finding 12: a deleted comment's text, and the comments of a deleted account,
/// stayed in the review author's inbox as the notification's quote.
final class DeletedWordsTests: XCTestCase {
    private func excerpts(_ app: Application, _ member: Member) async throws -> [String?] {
        let response = try await app.send(.GET, "/api/v1/notifications", token: member.token)
        XCTAssertEqual(response.status, .ok, response.text)
        return try XCTUnwrap(try response.object()["items"] as? [[String: Any]]).map { $0["excerpt"] as? String }
    }

    private func comment(_ app: Application, _ member: Member, on review: UUID, _ text: String) async throws -> String {
        let response = try await app.send(.POST, "/api/v1/burger-map/reviews/\(review)/comments", json: ["text": text], token: member.token)
        XCTAssertEqual(response.status, .created, response.text)
        return try XCTUnwrap(try response.object()["id"] as? String)
    }

    func testDeletedAndEditedCommentsAndDeletedAccountsLeaveNoWordsInTheInbox() async throws {
        try await withTestApp { app in
            let author = try await app.member("리뷰어")
            let place = try await app.place(author.token)
            let review = try await app.review(author.token, place: place)

            let deleter = try await app.member("지우는사람")
            let deleted = try await comment(app, deleter, on: review, "my phone is 010-4444-5555")
            let leaver = try await app.member("떠나는사람")
            _ = try await comment(app, leaver, on: review, "my phone is 010-2222-3333")
            let editor = try await app.member("고치는사람")
            let edited = try await comment(app, editor, on: review, "my address is 가짜로 1")
            let stays = try await app.member("남는사람")
            _ = try await comment(app, stays, on: review, "맛있어요")
            var quotes = try await excerpts(app, author)
            XCTAssertEqual(Set(quotes.compactMap { $0 }),
                           ["my phone is 010-4444-5555", "my phone is 010-2222-3333", "my address is 가짜로 1", "맛있어요"])

            let removed = try await app.send(.DELETE, "/api/v1/burger-map/comments/\(deleted)", token: deleter.token)
            XCTAssertEqual(removed.status, .noContent, removed.text)
            let changed = try await app.send(.PATCH, "/api/v1/burger-map/comments/\(edited)", json: ["text": "좋아요"], token: editor.token)
            XCTAssertEqual(changed.status, .ok, changed.text)
            let withdrawn = try await app.send(.DELETE, "/api/v1/me", json: ["password": "password1"], token: leaver.token)
            XCTAssertEqual(withdrawn.status, .noContent, withdrawn.text)

            quotes = try await excerpts(app, author)
            XCTAssertEqual(quotes.count, 4, "the lines stay: someone commented")
            XCTAssertEqual(quotes.compactMap { $0 }, ["맛있어요"], "only words that still exist are quoted")
            let stored = try await InboxNotification.query(on: app.db).all().compactMap(\.excerpt)
            XCTAssertFalse(stored.contains { $0.contains("010-") || $0.contains("가짜로") }, "\(stored)")
        }
    }
}
