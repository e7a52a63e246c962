import Fluent
@testable import Mates
import MatesTesting
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// The comments a person received are remembered (`receivedCommentsMemory`): every mates page and
/// profile answer shows them. A review, another instance's announcement and a reviewer's deleted
/// account must each show at once.
final class MatesReceivedCommentsTests: XCTestCase {
    private let mates = "/api/v1/mates"

    func testCommentsFollowReviewsAnnouncementsAndDeletedAccounts() async throws {
        try await withTestApp { app in
            let mina = try await app.mate("댓글미나")
            let joon = try await app.mate("댓글준호")
            let match = try await app.matchPair(mina, joon)
            let finished = try await app.send(.POST, "\(mates)/match/finish", token: joon.token)
            XCTAssertEqual(finished.status, .ok, finished.text)
            func comments(_ member: Member) async throws -> [String] {
                try await app.send(.GET, "\(mates)/profile", token: member.token).json(MatesJSON.Profile.self).comments
            }
            let none = try await comments(joon)
            XCTAssertEqual(none, [], "read and remembered before any review")

            let review = try await app.send(.POST, "\(mates)/reviews",
                                            json: MatesAPITests.ReviewBody(matchId: match, reputation: [1, 0, 0, 0, 0, 0], comment: "친절해요"),
                                            token: mina.token)
            XCTAssertEqual(review.status, .created, review.text)
            let reviewed = try await comments(joon)
            XCTAssertEqual(reviewed, ["친절해요"], "a review is seen at once")
            let others = try await comments(mina)
            XCTAssertEqual(others, [], "only the reviewee's comments change")

            // Another instance's change: written behind this one's memory, seen once announced.
            try await app.db.sql.raw("UPDATE mates_reviews SET comment = '늘 친절해요' WHERE reviewee_id = \(bind: joon.id)").run()
            let remembered = try await comments(joon)
            XCTAssertEqual(remembered, ["친절해요"], "remembered until announced")
            await app.events.publish(joon.id.uuidString, to: app.receivedCommentsMemory.topic)
            try await waitUntil { try await comments(joon) == ["늘 친절해요"] }

            // The reviewer deletes the account: the review goes by cascade, and so does the comment.
            let withdrawal = try await app.send(.DELETE, "/api/v1/me", json: ["password": "password1"], token: mina.token)
            XCTAssertEqual(withdrawal.status, .noContent, withdrawal.text)
            let afterDeletion = try await comments(joon)
            XCTAssertEqual(afterDeletion, [])
        }
    }

    /// Everyone forgotten by one announcement reaches every instance's memory.
    func testForgettingEveryoneIsAnnounced() async throws {
        try await withTestApp { app in
            let memory = app.receivedCommentsMemory
            let people = [UUID(), UUID()]
            for person in people { memory.remember(["a"], for: person, readAt: memory.generation) }
            XCTAssertEqual(memory.count, 2)
            await app.events.publish("*", to: memory.topic)
            try await waitUntil { memory.count == 0 }
            let stale = memory.generation
            memory.applyForgettingEveryone()
            memory.remember(["old"], for: people[0], readAt: stale)
            XCTAssertNil(memory.value(for: people[0]), "a read that started before forgetting is not kept")
        }
    }
}
