import Foundation
import WhatWeEatKit
import XCTest

/// The live rooms as typed events: a menu-game group from lobby to results, and a review's like
/// arriving in its author's inbox (after a photo upload and the review).
final class LiveTests: XCTestCase {
    func testAGroupGameFromTheLobbyToItsResults() async throws {
        let host = try ServerUnderTest.client()
        let pin = try await host.api.createGroup(headers: .init(xDeviceToken: host.deviceToken)).created.body.json.pin
        var room = try await host.groupRoom(pin: pin).makeAsyncIterator()
        let first = try await room.next()
        XCTAssertEqual(first, .state(submissionCount: 0, isHost: true, isClosed: false))

        for answer in [true, false] {
            let player = try ServerUnderTest.client()
            _ = try await player.api.submitAnswers(path: .init(pin: pin), headers: .init(xDeviceToken: player.deviceToken),
                                                   body: .json(.init(gameAnswer: .init(rice: answer)))).ok
        }
        let afterFirst = try await room.next()
        let afterSecond = try await room.next()
        XCTAssertEqual([afterFirst, afterSecond], [.submissionCount(1), .submissionCount(2)])

        _ = try await host.api.closeGroup(path: .init(pin: pin), headers: .init(xDeviceToken: host.deviceToken)).ok
        let closing = try await room.next()
        XCTAssertEqual(closing, .closed)
        let results = try await host.api.groupResults(path: .init(pin: pin)).ok.body.json
        XCTAssertEqual(results.playerCount, 2)
        XCTAssertFalse(results.menus.isEmpty)
    }

    /// The room as whole updates: who came in, by name, who answered, which entry is mine (also
    /// when I came in after connecting), a big room read in full, and the close.
    func testAGroupRoomsUpdatesCarryTheWholeRoom() async throws {
        let host = try ServerUnderTest.client()
        let pin = try await host.api.createGroup(headers: .init(xDeviceToken: host.deviceToken)).created.body.json.pin
        var room = try await host.groupRoomUpdates(pin: pin).makeAsyncIterator()
        let first = try await Self.next(&room)
        XCTAssertEqual(first.members.count, 1)
        XCTAssertEqual(first.me?.isHost, true)
        XCTAssertTrue(first.isHost)

        let guest = try ServerUnderTest.client()
        var guestRoom = try await guest.groupRoomUpdates(pin: pin).makeAsyncIterator()
        let outside = try await Self.next(&guestRoom)
        XCTAssertNil(outside.you, "not in the room before answering")
        _ = try await guest.api.joinGroup(path: .init(pin: pin), headers: .init(xDeviceToken: guest.deviceToken),
                                          body: .json(.init(guestName: "민지"))).ok
        let joined = try await Self.next(&room)
        XCTAssertEqual(joined.members.map(\.name), [first.members[0].name, "민지"])
        XCTAssertEqual(joined.members.last?.isGuest, true)
        XCTAssertEqual(joined.you, first.you, "the host's entry stays the host's")
        let seenByGuest = try await Self.next(&guestRoom)
        XCTAssertEqual(seenByGuest.me?.name, "민지", "a newcomer learns which entry is theirs")

        _ = try await guest.api.submitAnswers(path: .init(pin: pin), headers: .init(xDeviceToken: guest.deviceToken),
                                              body: .json(.init(gameAnswer: .init(rice: true)))).ok
        let answered = try await Self.next(&room)
        XCTAssertEqual(answered.submissionCount, 1)
        XCTAssertEqual(answered.members.map(\.answered), [false, true])

        // Enough players that the room's change no longer fits one message.
        let players = 44
        for _ in 0..<players {
            let player = try ServerUnderTest.client()
            _ = try await player.api.submitAnswers(path: .init(pin: pin), headers: .init(xDeviceToken: player.deviceToken),
                                                   body: .json(.init(gameAnswer: .init(rice: false)))).ok
        }
        var latest = answered
        while latest.submissionCount < players + 1 { latest = try await Self.next(&room) }
        XCTAssertEqual(latest.members.count, players + 2, "the whole room, read when the message left it out")
        XCTAssertEqual(latest.members.filter(\.answered).count, players + 1)
        XCTAssertEqual(latest.me?.isHost, true)

        _ = try await host.api.closeGroup(path: .init(pin: pin), headers: .init(xDeviceToken: host.deviceToken)).ok
        let closed = try await Self.next(&room)
        XCTAssertTrue(closed.isClosed)
        XCTAssertEqual(closed.members.count, players + 2)
    }

    static func next(_ room: inout AsyncThrowingStream<GroupRoomUpdate, any Error>.AsyncIterator) async throws -> GroupRoomUpdate {
        let update = try await room.next()
        return try XCTUnwrap(update, "the room ended")
    }

    func testALikeOnMyReviewArrivesInMyInbox() async throws {
        let author = try ServerUnderTest.client(language: "en")
        let email = ServerUnderTest.email()
        try await author.signUp(email: email, password: "kit-password-1", nickname: "작가\(email.prefix(8).suffix(4))")
        var inbox = try await author.inbox().makeAsyncIterator()
        let opening = try await inbox.next()
        XCTAssertEqual(opening?.unreadCount, 0)

        // A photo from the catalog's drawn ones, then the review with it.
        let jpeg = try Data(contentsOf: ServerUnderTest.repository.appendingPathComponent("Resources/catalogs/burger-photos/1f331_FEF9C3_0.jpg"))
        let photo = try await author.uploadBurgerPhoto(jpeg)
        XCTAssertGreaterThan(photo.width, 0)
        let nearest = try await author.api.burgerPlaces(query: .init(near: "37.5665,126.9780", limit: 1)).ok.body.json
        let place = try XCTUnwrap(nearest.items.first)
        let review = try await author.api.addBurgerReview(body: .json(.init(placeId: place.id, title: "Kit review", rating: 5,
                                                                           text: "Written through WhatWeEatKit", photoIds: [photo.id])))
            .created.body.json
        XCTAssertEqual(review.photos.map(\.id), [photo.id])

        let reader = try ServerUnderTest.client()
        let readerEmail = ServerUnderTest.email()
        try await reader.signUp(email: readerEmail, password: "kit-password-1", nickname: "독자\(readerEmail.prefix(8).suffix(4))")
        _ = try await reader.api.likeBurgerReview(path: .init(review: review.id)).ok

        let arrived = try await inbox.next()
        XCTAssertEqual(arrived?.unreadCount, 1)
        XCTAssertEqual(arrived?.notification?.kind, "review_liked")
        let readerName = try await reader.me().nickname
        XCTAssertEqual(arrived?.notification?.message, "\(readerName) liked your review.", "worded in the author's language")
    }
}
