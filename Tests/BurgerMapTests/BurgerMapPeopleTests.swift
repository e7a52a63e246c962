import Accounts
@testable import BurgerMap
import BurgerMapTesting
import Fluent
import LookForRealBurgerApp
import Notifications
import Platform
import WhatWeEatTesting
import XCTVapor

/// The personal side of the map: "eaten" and "want to go" marks, follows and profiles, the feed of
/// people one follows, and paging through a place search.
final class BurgerMapPeopleTests: XCTestCase {
    typealias Page = BurgerMapJSON.Page
    typealias Review = BurgerMapJSON.Review
    typealias Profile = BurgerMapJSON.Profile

    // MARK: Marks

    func testMarksAreIdempotentCountedAndListed() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            let first = try await app.place(mina.token, "첫 번째 버거")
            let second = try await app.place(mina.token, "두 번째 버거", lat: 37.56)
            let map = "/api/v1/burger-map"

            for _ in 0..<2 {
                let eaten = try await app.send(.PUT, "\(map)/places/\(first)/marks/eaten", token: mina.token)
                XCTAssertEqual(eaten.status, .ok, eaten.text)
                let detail = try eaten.json(BurgerMapJSON.PlaceDetail.self)
                XCTAssertEqual(detail.eatenCount, 1, "twice is once")
                XCTAssertEqual(detail.myMarks, ["eaten"])
            }
            let both = try await app.send(.PUT, "\(map)/places/\(first)/marks/want", token: mina.token).json(BurgerMapJSON.PlaceDetail.self)
            XCTAssertEqual(both.myMarks, ["eaten", "want"])
            XCTAssertEqual([both.eatenCount, both.wantCount], [1, 1])
            _ = try await app.send(.PUT, "\(map)/places/\(first)/marks/eaten", token: joon.token)
            _ = try await app.send(.PUT, "\(map)/places/\(second)/marks/eaten", token: mina.token)

            var detail = try await app.placeDetail(first, token: joon.token)
            XCTAssertEqual([detail.eatenCount, detail.wantCount], [2, 1])
            XCTAssertEqual(detail.myMarks, ["eaten"], "joon's own marks")
            detail = try await app.placeDetail(first)
            XCTAssertEqual(detail.myMarks, [], "none for anonymous readers")

            let eatenList = try await app.send(.GET, "\(map)/me/marks?kind=eaten", token: mina.token)
            XCTAssertEqual(eatenList.status, .ok, eatenList.text)
            XCTAssertEqual(try eatenList.json(Page<BurgerMapJSON.Place>.self).items.map(\.id), [second, first], "newest first")
            let wantList = try await app.send(.GET, "\(map)/me/marks?kind=want", token: mina.token).json(Page<BurgerMapJSON.Place>.self)
            XCTAssertEqual(wantList.items.map(\.id), [first])
            let profile = try await app.send(.GET, "\(map)/users/\(mina.id)").json(Profile.self)
            XCTAssertEqual(profile.eatenCount, 2)

            for _ in 0..<2 {
                let cleared = try await app.send(.DELETE, "\(map)/places/\(first)/marks/eaten", token: mina.token)
                XCTAssertEqual(cleared.status, .ok)
                let detail = try cleared.json(BurgerMapJSON.PlaceDetail.self)
                XCTAssertEqual(detail.eatenCount, 1, "joon's mark stays")
                XCTAssertEqual(detail.myMarks, ["want"])
            }
            // Anonymous readers get the place from the cache, which the marks above replaced.
            let anonymousAfterClear = try await app.placeDetail(first)
            XCTAssertEqual([anonymousAfterClear.eatenCount, anonymousAfterClear.wantCount], [1, 1], "the kept answer follows the marks")
            let afterClear = try await app.send(.GET, "\(map)/me/marks?kind=eaten", token: mina.token).json(Page<BurgerMapJSON.Place>.self)
            XCTAssertEqual(afterClear.items.map(\.id), [second])

            let cases: [(HTTPMethod, String, HTTPStatus, String)] = [
                (.PUT, "\(map)/places/\(first)/marks/loved", .notFound, "mark_not_found"),
                (.DELETE, "\(map)/places/\(first)/marks/loved", .notFound, "mark_not_found"),
                (.PUT, "\(map)/places/\(UUID())/marks/eaten", .notFound, "place_not_found"),
                (.GET, "\(map)/me/marks", .badRequest, "missing_mark_kind"),
                (.GET, "\(map)/me/marks?kind=loved", .badRequest, "invalid_mark_kind"),
            ]
            for (method, path, status, code) in cases {
                let response = try await app.send(method, path, token: mina.token)
                XCTAssertEqual(response.status, status, "\(method) \(path)")
                XCTAssertEqual(response.errorCode, code, "\(method) \(path)")
            }
            let stored = try await BurgerMark.query(on: app.db).count()
            XCTAssertEqual(stored, 3, "want at the first, eaten at the second (mina), eaten at the first (joon)")
        }
    }

    // MARK: Follows

    func testFollowingIsIdempotentCountedAndNotifies() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            let seo = try await app.member("서연")
            let map = "/api/v1/burger-map"
            let place = try await app.place(mina.token)
            _ = try await app.review(mina.token, place: place)
            _ = try await app.send(.PUT, "\(map)/places/\(place)/marks/eaten", token: mina.token)

            for _ in 0..<2 {
                let followed = try await app.send(.PUT, "\(map)/users/\(mina.id)/follow", token: joon.token)
                XCTAssertEqual(followed.status, .ok, followed.text)
                let profile = try followed.json(Profile.self)
                XCTAssertEqual(profile.followerCount, 1, "twice is once")
                XCTAssertTrue(profile.followedByMe)
            }
            _ = try await app.send(.PUT, "\(map)/users/\(mina.id)/follow", token: seo.token)
            _ = try await app.send(.PUT, "\(map)/users/\(seo.id)/follow", token: mina.token)

            let profile = try await app.send(.GET, "\(map)/users/\(mina.id)", token: joon.token)
            XCTAssertEqual(profile.status, .ok)
            XCTAssertEqual(Set(try profile.object().keys),
                           ["id", "nickname", "profileImageURL", "reviewCount", "followerCount", "followingCount", "eatenCount", "followedByMe"])
            let minas = try profile.json(Profile.self)
            XCTAssertEqual(minas.nickname, "미나")
            XCTAssertEqual([minas.reviewCount, minas.followerCount, minas.followingCount, minas.eatenCount], [1, 2, 1, 1])
            XCTAssertTrue(minas.followedByMe)
            let anonymous = try await app.send(.GET, "\(map)/users/\(mina.id)").json(Profile.self)
            XCTAssertFalse(anonymous.followedByMe)

            let followers = try await app.send(.GET, "\(map)/users/\(mina.id)/followers").json(Page<BurgerMapJSON.Person>.self)
            XCTAssertEqual(followers.items.map(\.id), [seo.id, joon.id], "newest first")
            let firstFollower = try await app.send(.GET, "\(map)/users/\(mina.id)/followers?limit=1").json(Page<BurgerMapJSON.Person>.self)
            XCTAssertEqual(firstFollower.items.map(\.id), [seo.id])
            XCTAssertNotNil(firstFollower.nextCursor)
            let following = try await app.send(.GET, "\(map)/users/\(mina.id)/following").json(Page<BurgerMapJSON.Person>.self)
            XCTAssertEqual(following.items.map(\.id), [seo.id])

            let inbox = try await app.send(.GET, "/api/v1/notifications", token: mina.token).object()
            let items = try XCTUnwrap(inbox["items"] as? [[String: Any]])
            XCTAssertEqual(items.compactMap { $0["kind"] as? String }, ["followed", "followed"], "one per follower, not per request")
            XCTAssertEqual(items.first?["message"] as? String, "서연님이 나를 팔로우해요.")
            XCTAssertEqual(items.last?["link"] as? String, "/map/users/\(joon.id.uuidString.lowercased())")

            let unfollowed = try await app.send(.DELETE, "\(map)/users/\(mina.id)/follow", token: joon.token)
            XCTAssertEqual(unfollowed.status, .ok)
            XCTAssertEqual(try unfollowed.json(Profile.self).followerCount, 1)
            XCTAssertFalse(try unfollowed.json(Profile.self).followedByMe)
            let again = try await app.send(.DELETE, "\(map)/users/\(mina.id)/follow", token: joon.token)
            XCTAssertEqual(try again.json(Profile.self).followerCount, 1)

            let cases: [(HTTPMethod, String, HTTPStatus, String)] = [
                (.PUT, "\(map)/users/\(joon.id)/follow", .unprocessableEntity, "cannot_follow_self"),
                (.PUT, "\(map)/users/\(UUID())/follow", .notFound, "user_not_found"),
                (.PUT, "\(map)/users/someone/follow", .notFound, "user_not_found"),
                (.GET, "\(map)/users/\(UUID())", .notFound, "user_not_found"),
                (.GET, "\(map)/users/\(UUID())/followers", .notFound, "user_not_found"),
                (.GET, "\(map)/users/\(UUID())/following", .notFound, "user_not_found"),
            ]
            for (method, path, status, code) in cases {
                let response = try await app.send(method, path, token: joon.token)
                XCTAssertEqual(response.status, status, "\(method) \(path)")
                XCTAssertEqual(response.errorCode, code, "\(method) \(path)")
            }
            let follows = try await BurgerFollow.query(on: app.db).count()
            XCTAssertEqual(follows, 2)
        }
    }

    // MARK: Feed

    func testTheFeedHoldsOnlyReviewsByPeopleIFollowNewestFirst() async throws {
        try await withTestApp { app in
            let reader = try await app.member("독자")
            let followed = try await app.member("미나")
            let stranger = try await app.member("준호")
            let place = try await app.place(followed.token)
            let map = "/api/v1/burger-map"

            let empty = try await app.send(.GET, "\(map)/feed", token: reader.token).json(Page<Review>.self)
            XCTAssertEqual(empty.items.count, 0, "following nobody, the feed is empty")

            _ = try await app.send(.PUT, "\(map)/users/\(followed.id)/follow", token: reader.token)
            // A seed reviewer too: their catalog reviews join the feed, dated as the catalog says.
            let seedReviewer = try await User.query(on: app.db).filter(\.$email == BurgerPlacesCatalog.reviewerEmail(0)).first()
            let seedID = try XCTUnwrap(seedReviewer?.id)
            _ = try await app.send(.PUT, "\(map)/users/\(seedID)/follow", token: reader.token)

            var expected: [UUID] = []
            for index in 0..<3 {
                expected.insert(try await app.review(followed.token, place: place, title: "팔로우 \(index)"), at: 0)
                _ = try await app.review(stranger.token, place: place, title: "모르는 사람 \(index)")
            }
            _ = try await app.review(reader.token, place: place, title: "내 리뷰")
            let seeded = try await BurgerReview.query(on: app.db).filter(\.$author.$id == seedID).count()
            XCTAssertGreaterThan(seeded, 0)

            let feed = try await app.allPages("\(map)/feed", Review.self, limit: 4, token: reader.token, id: \.id)
            XCTAssertEqual(feed.count, 3 + seeded)
            XCTAssertEqual(Array(feed.prefix(3).map(\.id)), expected, "newest first")
            XCTAssertTrue(feed.allSatisfy { [followed.id, seedID].contains($0.author.id) }, "only people I follow")
            let dates = feed.map(\.createdAt)
            XCTAssertEqual(dates, dates.sorted(by: >))

            _ = try await app.send(.DELETE, "\(map)/users/\(seedID)/follow", token: reader.token)
            let after = try await app.send(.GET, "\(map)/feed", token: reader.token).json(Page<Review>.self)
            XCTAssertEqual(after.items.map(\.id), expected, "unfollowing takes their reviews out")
        }
    }

    // MARK: Search

    func testPlaceSearchPagesThroughEveryCheesePlaceOnce() async throws {
        try await withTestApp { app in
            let all = try await BurgerPlace.query(on: app.db).all()
            let cheese = Set(all.filter { $0.name.contains("치즈") || $0.address.contains("치즈") }.compactMap(\.id))
            XCTAssertGreaterThanOrEqual(cheese.count, 5)
            let q = "q=%EC%B9%98%EC%A6%88"  // 치즈
            let pages = try await app.allPages("/api/v1/burger-map/places/search?\(q)", BurgerMapJSON.Place.self, limit: 2, id: \.id)
            XCTAssertEqual(Set(pages.map(\.id)), cheese, "every cheese place, no other")
            XCTAssertEqual(pages.count, cheese.count, "none twice")

            // Ranked by the Bayesian average, best first.
            let scores = pages.map { place in
                let row = all.first { $0.id == place.id }!
                return PlaceRanking.score(ratingSum: row.ratingSum, reviewCount: row.reviewCount)
            }
            XCTAssertEqual(scores, scores.sorted(by: >))

            let cases: [(String, HTTPStatus, String)] = [
                ("", .badRequest, "missing_search"),
                ("?q=%20%20", .badRequest, "missing_search"),
                ("?\(q)&limit=0", .badRequest, "invalid_limit"),
                ("?\(q)&limit=101", .badRequest, "invalid_limit"),
                ("?\(q)&cursor=garbage", .badRequest, "invalid_cursor"),
                ("?\(q)&cursor=\(PageCursor(createdAt: Date(), id: UUID()).encoded)", .badRequest, "invalid_cursor"),
                ("?q=" + String(repeating: "a", count: 41), .unprocessableEntity, "invalid_search"),
            ]
            for (query, status, code) in cases {
                let response = try await app.send(.GET, "/api/v1/burger-map/places/search" + query)
                XCTAssertEqual(response.status, status, query)
                XCTAssertEqual(response.errorCode, code, query)
            }
        }
    }

    /// A search holding a NUL (the fuzzer's `%00`) finds nothing: FTS5 read the NUL as the end
    /// of its query (a 500) and a LIKE pattern cut short there matched every place.
    func testASearchHoldingANulFindsNothing() async throws {
        try await withTestApp { app in
            for path in ["/api/v1/burger-map/places/search?q=%EC%B9%98%EC%A6%88%00", "/api/v1/burger-map/places/search?q=%00",
                         "/api/v1/burger-map/places?bbox=126.7,37.4,127.3,37.7&q=%00a"] {
                let response = try await app.send(.GET, path)
                XCTAssertEqual(response.status, .ok, "\(path) \(response.text)")
                let object = try response.object()
                XCTAssertEqual((object["items"] as? [Any])?.count, 0, path)
                XCTAssertEqual((object["clusters"] as? [Any])?.count ?? 0, 0, path)
            }
            let plain = try await app.send(.GET, "/api/v1/burger-map/places/search?q=%EC%B9%98%EC%A6%88").object()
            XCTAssertGreaterThan((plain["items"] as? [Any])?.count ?? 0, 0, "the same words without the NUL find the catalog's places")
        }
    }
}
