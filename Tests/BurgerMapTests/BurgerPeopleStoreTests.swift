import Accounts
@testable import BurgerMap
import BurgerMapTesting
import Fluent
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Every statement of `BurgerPeopleStore` (SQLite here, PostgreSQL in CI's second pass): follows,
/// marks and reactions written once however often they are asked for, counted, paged newest
/// first, and listed per subject in the order people acted.
final class BurgerPeopleStoreTests: XCTestCase {
    func testFollows() async throws {
        try await withTestApp { app in
            let store = BurgerPeopleStore(database: app.db, now: app.burgerMapEnvironment.now)
            let mina = try await app.member("미나"), joon = try await app.member("준호"), sora = try await app.member("소라")
            let first = try await store.addFollow(of: mina.id, by: joon.id)
            let again = try await store.addFollow(of: mina.id, by: joon.id)
            XCTAssertEqual([first, again], [true, false], "twice is once")
            _ = try await store.addFollow(of: mina.id, by: sora.id)
            _ = try await store.addFollow(of: sora.id, by: mina.id)
            let counts = try await store.followCounts(of: mina.id)
            XCTAssertEqual([counts.followers, counts.following], [2, 1])

            let followers = try await store.followPeople(of: mina.id, following: false)
            XCTAssertEqual(followers.items.map(\.nickname), ["소라", "준호"], "newest first, with their names")
            let page1 = try await store.followPeople(of: mina.id, following: false, CursorPageRequest(limit: 1))
            XCTAssertEqual(page1.items.map(\.id), [sora.id])
            let page2 = try await store.followPeople(of: mina.id, following: false, CursorPageRequest(cursor: PageCursor(encoded: try XCTUnwrap(page1.nextCursor)), limit: 1))
            XCTAssertEqual(page2.items.map(\.id), [joon.id])
            let following = try await store.followPeople(of: mina.id, following: true)
            XCTAssertEqual(following.items.map(\.id), [sora.id])

            // The correlated count a person's page reads, and the feed's subquery.
            let followed = try await AccountStore.selectPerson("person", id: mina.id,
                                                               adding: "\(BurgerPeopleStore.follows(by: joon.id, personRole: "person")) AS followed",
                                                               on: app.db.sql).first()
            XCTAssertEqual(try followed?.decode(column: "followed", as: Int.self), 1)
            let notFollowed = try await AccountStore.selectPerson("person", id: joon.id,
                                                                  adding: "\(BurgerPeopleStore.follows(by: mina.id, personRole: "person")) AS followed",
                                                                  on: app.db.sql).first()
            XCTAssertEqual(try notFollowed?.decode(column: "followed", as: Int.self), 0)
            let followees = try await app.db.sql.select().column("id").from("users").where("id", .in, store.followees(of: mina.id)).all()
            XCTAssertEqual(try followees.map { try $0.decode(column: "id", as: UUID.self) }, [sora.id])

            try await store.removeFollow(of: mina.id, by: joon.id)
            try await store.removeFollow(of: mina.id, by: joon.id)
            let after = try await store.followCounts(of: mina.id)
            XCTAssertEqual(after.followers, 1)
        }
    }

    func testMarksAndReactions() async throws {
        try await withTestApp { app in
            let store = BurgerPeopleStore(database: app.db, now: app.burgerMapEnvironment.now)
            let mina = try await app.member("미나"), joon = try await app.member("준호")
            let place = try await app.place(mina.token)
            let otherPlace = try await app.place(mina.token, "다른 버거", lat: 37.5700, lon: 126.9800)
            try await store.setMark(.eaten, on: place, by: mina.id, to: true)
            try await store.setMark(.eaten, on: place, by: mina.id, to: true)
            try await store.setMark(.want, on: place, by: mina.id, to: true)
            try await store.setMark(.eaten, on: place, by: joon.id, to: true)
            try await store.setMark(.want, on: otherPlace, by: mina.id, to: true)
            let mine = try await store.marks(on: place, by: mina.id)
            XCTAssertEqual(mine, [.eaten, .want])
            let counts = try await store.markCounts(on: place)
            XCTAssertEqual(counts, [.eaten: 2, .want: 1], "twice is once")
            let eaten = try await store.markCount(.eaten, by: mina.id)
            XCTAssertEqual(eaten, 1)
            let wanted = try await store.markedPlaces(.want, by: mina.id, CursorPageRequest(limit: 10))
            XCTAssertEqual(wanted.items, [otherPlace, place], "the latest first")
            let markers = try await store.markers(ofPlaces: [place, otherPlace, UUID()])
            XCTAssertEqual(markers[place]?[.eaten], [mina.id, joon.id], "in the order they marked")
            XCTAssertEqual(markers[otherPlace]?[.want], [mina.id])
            try await store.setMark(.eaten, on: place, by: mina.id, to: false)
            let cleared = try await store.marks(on: place, by: mina.id)
            XCTAssertEqual(cleared, [.want])

            let review = try await app.review(mina.token, place: place)
            let liked = try await store.addReaction(.like, on: review, by: joon.id)
            let likedAgain = try await store.addReaction(.like, on: review, by: joon.id)
            XCTAssertEqual([liked, likedAgain], [true, false])
            _ = try await store.addReaction(.bookmark, on: review, by: joon.id)
            _ = try await store.addReaction(.like, on: review, by: mina.id)
            let has = try await store.hasReaction(.bookmark, on: review, by: joon.id)
            XCTAssertTrue(has)
            let joons = try await store.reactions(of: joon.id, amongReviews: [review, UUID()])
            XCTAssertEqual(joons, ["like|\(review)", "bookmark|\(review)"])
            let reactors = try await store.reactors(ofReviews: [review])
            XCTAssertEqual(reactors[review]?[.like], [joon.id, mina.id])
            let bookmarked = try await store.reactedReviews(.bookmark, by: joon.id, CursorPageRequest())
            XCTAssertEqual(bookmarked.items, [review])
            let subquery = try await app.db.sql.select().column("id").from("burger_reviews")
                .where(SQLIdentifier("id"), .in, BurgerPeopleStore.reviews(reactedBy: joon.id, .like)).all()
            XCTAssertEqual(subquery.count, 1)
            let removed = try await store.removeReaction(.like, on: review, by: joon.id)
            let removedAgain = try await store.removeReaction(.like, on: review, by: joon.id)
            XCTAssertEqual([removed, removedAgain], [1, 0])
            try await store.removeReactions(on: review)
            let none = try await store.reactors(ofReviews: [review])
            XCTAssertTrue(none.isEmpty)
        }
    }
}
