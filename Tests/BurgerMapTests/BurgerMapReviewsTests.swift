import Accounts
@testable import BurgerMap
import BurgerMapTesting
import Fluent
import LookForRealBurgerApp
import Media
import Notifications
import Platform
import WhatWeEatTesting
import XCTVapor

/// Photo reviews over HTTP: writing (and the exact JSON), bad input that writes nothing, edits,
/// likes and bookmarks, comments, reports that hide, deletion with everything it owns, and
/// cursor pages that stay in step while reviews arrive.
final class BurgerMapReviewsTests: XCTestCase {
    typealias Review = BurgerMapJSON.Review
    typealias Page = BurgerMapJSON.Page

    // MARK: Writing

    func testWritingAReviewAnswersItsFullShapeAndListsIt() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            let place = try await app.place(mina.token, "리뷰 버거")
            let first = try await app.photo(mina.token, seed: 1)
            let second = try await app.photo(mina.token, seed: 2)
            let response = try await app.postReview(mina.token, place: place, title: "  패티가 두꺼운 집 ", rating: 4,
                                                    text: "육즙이 좋아요.\n감자튀김도 바삭해요.", photos: [second, first])
            XCTAssertEqual(response.status, .created, response.text)
            let object = try response.object()
            XCTAssertEqual(Set(object.keys), ["id", "place", "author", "title", "rating", "text", "photos", "likeCount", "bookmarkCount",
                                              "commentCount", "likedByMe", "bookmarkedByMe", "hidden", "createdAt", "updatedAt"])
            let placeObject = try XCTUnwrap(object["place"] as? [String: Any])
            XCTAssertEqual(Set(placeObject.keys), ["id", "name"])
            XCTAssertEqual((placeObject["id"] as? String).flatMap(UUID.init(uuidString:)), place)
            XCTAssertEqual(placeObject["name"] as? String, "리뷰 버거")
            let author = try XCTUnwrap(object["author"] as? [String: Any])
            XCTAssertEqual(Set(author.keys), ["id", "nickname", "profileImageURL"])
            XCTAssertEqual((author["id"] as? String).flatMap(UUID.init(uuidString:)), mina.id)
            XCTAssertEqual(author["nickname"] as? String, "미나")
            XCTAssertTrue(author["profileImageURL"] is NSNull, "an explicit null without a profile image")
            let photos = try XCTUnwrap(object["photos"] as? [[String: Any]])
            XCTAssertEqual(photos.map { Set($0.keys) }, [["id", "url", "width", "height"], ["id", "url", "width", "height"]])
            XCTAssertEqual(photos.compactMap { ($0["id"] as? String).flatMap(UUID.init(uuidString:)) }, [second, first], "in the order given")
            XCTAssertEqual(object["title"] as? String, "패티가 두꺼운 집", "trimmed")
            XCTAssertEqual(object["rating"] as? Int, 4)
            XCTAssertEqual(object["text"] as? String, "육즙이 좋아요.\n감자튀김도 바삭해요.")
            for counter in ["likeCount", "bookmarkCount", "commentCount"] { XCTAssertEqual(object[counter] as? Int, 0, counter) }
            for flag in ["likedByMe", "bookmarkedByMe", "hidden"] { XCTAssertEqual(object[flag] as? Bool, false, flag) }
            XCTAssertNotNil((object["createdAt"] as? String).flatMap(ISO8601DateFormatter().date(from:)), "ISO 8601 createdAt")
            XCTAssertTrue(object["updatedAt"] is NSNull, "never edited")
            let review = try response.json(Review.self)
            XCTAssertEqual(review.photos.map { [$0.width, $0.height] }, [[3, 2], [3, 2]])

            var detail = try await app.placeDetail(place)
            XCTAssertEqual(detail.reviewCount, 1)
            XCTAssertEqual(detail.averageRating, 4)
            XCTAssertEqual(detail.photoURL, review.photos[0].url, "the newest review's first photo is the cover")

            // The same review, read back by anyone.
            let read = try await app.send(.GET, "/api/v1/burger-map/reviews/\(review.id)")
            XCTAssertEqual(read.status, .ok)
            XCTAssertEqual(NSDictionary(dictionary: try read.object()), NSDictionary(dictionary: object))

            let joonsReview = try await app.review(joon.token, place: place, rating: 5)
            detail = try await app.placeDetail(place)
            XCTAssertEqual(detail.reviewCount, 2)
            XCTAssertEqual(detail.averageRating, 4.5)
            let joonsCover = try await app.send(.GET, "/api/v1/burger-map/reviews/\(joonsReview)").json(Review.self).photos[0].url
            XCTAssertEqual(detail.photoURL, joonsCover)

            let ofPlace = try await app.send(.GET, "/api/v1/burger-map/places/\(place)/reviews").json(Page<Review>.self)
            XCTAssertEqual(ofPlace.items.map(\.id), [joonsReview, review.id], "newest first")
            XCTAssertNil(ofPlace.nextCursor)
            let byMina = try await app.send(.GET, "/api/v1/burger-map/users/\(mina.id)/reviews").json(Page<Review>.self)
            XCTAssertEqual(byMina.items.map(\.id), [review.id])
            let everyone = try await app.send(.GET, "/api/v1/burger-map/reviews?limit=3").json(Page<Review>.self)
            XCTAssertEqual(everyone.items.prefix(2).map(\.id), [joonsReview, review.id])
            XCTAssertNotNil(everyone.nextCursor, "the seeded reviews follow")

            for (path, code) in [("/api/v1/burger-map/reviews/\(UUID())", "review_not_found"), ("/api/v1/burger-map/reviews/nope", "review_not_found"),
                                 ("/api/v1/burger-map/places/\(UUID())/reviews", "place_not_found"),
                                 ("/api/v1/burger-map/users/\(UUID())/reviews", "user_not_found")] {
                let missing = try await app.send(.GET, path)
                XCTAssertEqual(missing.status, .notFound, path)
                XCTAssertEqual(missing.errorCode, code, path)
            }
        }
    }

    func testBadReviewsAreRefusedAndLeaveTheirPhotosFree() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            let place = try await app.place(mina.token)
            var mine: [UUID] = []
            for seed in 1...6 { mine.append(try await app.photo(mina.token, seed: seed)) }
            let joons = try await app.photo(joon.token, seed: 100)
            let used = try await app.photo(mina.token, seed: 200)
            _ = try await app.review(mina.token, place: place, photos: [used])
            let before = try await app.reviewCount()

            func body(place: String = place.uuidString, title: String = "\"좋아요\"", rating: String = "4", text: String = "\"맛있어요\"",
                      photos: [UUID]) -> String {
                let ids = photos.map { "\"\($0)\"" }.joined(separator: ",")
                return #"{"placeId": "\#(place)", "title": \#(title), "rating": \#(rating), "text": \#(text), "photoIds": [\#(ids)]}"#
            }
            let long = String(repeating: "가", count: 2_001)
            let cases: [(String, String, HTTPStatus, String)] = [
                ("rating 0", body(rating: "0", photos: [mine[0]]), .unprocessableEntity, "invalid_rating"),
                ("rating 6", body(rating: "6", photos: [mine[0]]), .unprocessableEntity, "invalid_rating"),
                ("six photos", body(photos: mine), .unprocessableEntity, "invalid_photo_count"),
                ("no photos", body(photos: []), .unprocessableEntity, "invalid_photo_count"),
                ("the same photo twice", body(photos: [mine[0], mine[0]]), .unprocessableEntity, "duplicate_photo"),
                ("another user's photo", body(photos: [mine[0], joons]), .unprocessableEntity, "invalid_photo"),
                ("a photo already on a review", body(photos: [mine[0], mine[1], used]), .unprocessableEntity, "invalid_photo"),
                ("an unknown photo", body(photos: [mine[0], UUID()]), .unprocessableEntity, "invalid_photo"),
                ("an unknown place", body(place: UUID().uuidString, photos: [mine[0]]), .unprocessableEntity, "unknown_place"),
                ("an empty title", body(title: "\"   \"", photos: [mine[0]]), .unprocessableEntity, "invalid_review_title"),
                ("a title of 61", body(title: "\"\(String(repeating: "a", count: 61))\"", photos: [mine[0]]), .unprocessableEntity, "invalid_review_title"),
                ("text of 2,001", body(text: "\"\(long)\"", photos: [mine[0]]), .unprocessableEntity, "invalid_review_text"),
                ("no photoIds", #"{"placeId": "\#(place)", "title": "a", "rating": 4, "text": "b"}"#, .badRequest, "missing_field"),
                ("no title", #"{"placeId": "\#(place)", "rating": 4, "text": "b", "photoIds": ["\#(mine[0])"]}"#, .badRequest, "missing_field"),
                ("rating as text", body(rating: "\"five\"", photos: [mine[0]]), .badRequest, "invalid_type"),
                ("photoIds as a string", #"{"placeId": "\#(place)", "title": "a", "rating": 4, "text": "b", "photoIds": "\#(mine[0])"}"#,
                 .badRequest, "invalid_type"),
                ("malformed JSON", #"{"placeId": "\#(place)", "title": "#, .badRequest, "malformed_json"),
            ]
            for (label, raw, status, code) in cases {
                let response = try await app.send(.POST, "/api/v1/burger-map/reviews", raw: raw, token: mina.token)
                XCTAssertEqual(response.status, status, "\(label): \(response.text)")
                XCTAssertEqual(response.errorCode, code, label)
                XCTAssertNotNil(response.errorMessage, label)
                let count = try await app.reviewCount()
                XCTAssertEqual(count, before, "\(label) wrote a review")
                let taken = try await BurgerPhoto.query(on: app.db).filter(\.$id ~~ (mine + [joons])).filter(\.$reviewID != nil).count()
                XCTAssertEqual(taken, 0, "\(label) left a photo attached")
            }
            let detail = try await app.placeDetail(place)
            XCTAssertEqual(detail.reviewCount, 1, "the place's count did not move")
            let english = try await app.send(.POST, "/api/v1/burger-map/reviews", raw: body(rating: "0", photos: [mine[0]]), token: mina.token,
                                             headers: ["Accept-Language": "en"])
            XCTAssertEqual(english.errorMessage, app.translator.text("error.invalid_rating", .en))
            XCTAssertNotEqual(english.errorMessage, app.translator.text("error.invalid_rating", .ko))

            // Every photo is still free for the reviews that follow.
            let good = try await app.postReview(mina.token, place: place, title: String(repeating: "b", count: 60), rating: 5,
                                                text: String(repeating: "가", count: 2_000), photos: Array(mine.prefix(5)))
            XCTAssertEqual(good.status, .created, good.text)
            XCTAssertEqual(try good.json(Review.self).photos.map(\.id), Array(mine.prefix(5)))
            _ = try await app.review(mina.token, place: place, photos: [mine[5]])
            _ = try await app.review(joon.token, place: place, photos: [joons])
        }
    }

    func testTheAuthorEditsAReviewAndThePlaceFollows() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let place = try await app.place(mina.token)
            let kept = try await app.photo(mina.token, seed: 1)
            let dropped = try await app.photo(mina.token, seed: 2)
            let created = try await app.postReview(mina.token, place: place, rating: 2, photos: [kept, dropped]).json(Review.self)
            let droppedURL = created.photos[1].url
            let added = try await app.photo(mina.token, seed: 3)

            let bad = try await app.send(.PATCH, "/api/v1/burger-map/reviews/\(created.id)", raw: #"{"rating": 6}"#, token: mina.token)
            XCTAssertEqual(bad.status, .unprocessableEntity)
            XCTAssertEqual(bad.errorCode, "invalid_rating")
            let badPhotos = try await app.send(.PATCH, "/api/v1/burger-map/reviews/\(created.id)", raw: #"{"photoIds": []}"#, token: mina.token)
            XCTAssertEqual(badPhotos.errorCode, "invalid_photo_count")
            // A photo that is not hers fails the edit after her own were detached: all of it rolls back.
            let joon = try await app.member("준호")
            let joons = try await app.photo(joon.token, seed: 9)
            let notMine = try await app.send(.PATCH, "/api/v1/burger-map/reviews/\(created.id)",
                                             raw: #"{"rating": 3, "photoIds": ["\#(kept)", "\#(joons)"]}"#, token: mina.token)
            XCTAssertEqual(notMine.status, .unprocessableEntity)
            XCTAssertEqual(notMine.errorCode, "invalid_photo")
            let joonsRow = try await BurgerPhoto.find(joons, on: app.db)
            XCTAssertNil(joonsRow?.reviewID, "joon's photo stays free")
            let unchanged = try await app.send(.GET, "/api/v1/burger-map/reviews/\(created.id)").json(Review.self)
            XCTAssertEqual(unchanged.rating, 2)
            XCTAssertEqual(unchanged.photos.map(\.id), [kept, dropped])
            XCTAssertNil(unchanged.updatedAt)

            let edited = try await app.send(.PATCH, "/api/v1/burger-map/reviews/\(created.id)",
                                            raw: #"{"title": "다시 가 보니 좋아요", "rating": 5, "photoIds": ["\#(added)", "\#(kept)"]}"#, token: mina.token)
            XCTAssertEqual(edited.status, .ok, edited.text)
            let review = try edited.json(Review.self)
            XCTAssertEqual(review.title, "다시 가 보니 좋아요")
            XCTAssertEqual(review.rating, 5)
            XCTAssertEqual(review.text, created.text, "fields left out stay")
            XCTAssertEqual(review.photos.map(\.id), [added, kept])
            XCTAssertEqual(review.createdAt, created.createdAt)
            let updatedAt = try XCTUnwrap(review.updatedAt, "an edit sets updatedAt")
            XCTAssertGreaterThanOrEqual(updatedAt, created.createdAt)
            let droppedRow = try await BurgerPhoto.find(dropped, on: app.db)
            XCTAssertNil(droppedRow, "a photo left out of the edit is deleted")
            let droppedFile = try await app.send(.GET, droppedURL)
            XCTAssertEqual(droppedFile.status, .notFound)
            let detail = try await app.placeDetail(place)
            XCTAssertEqual(detail.reviewCount, 1)
            XCTAssertEqual(detail.averageRating, 5)
            XCTAssertEqual(detail.photoURL, review.photos[0].url)
        }
    }

    // MARK: Likes and bookmarks

    func testLikesAndBookmarksAreIdempotentAndPerReader() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            let seo = try await app.member("서연")
            let place = try await app.place(mina.token)
            let older = try await app.review(mina.token, place: place, title: "첫 리뷰")
            let newer = try await app.review(mina.token, place: place, title: "둘째 리뷰")
            let path = "/api/v1/burger-map/reviews/\(older)"

            for kind in ["like", "bookmark"] {
                let counter = kind == "like" ? \Review.likeCount : \Review.bookmarkCount
                let mine = kind == "like" ? \Review.likedByMe : \Review.bookmarkedByMe
                for _ in 0..<2 {
                    let set = try await app.send(.PUT, "\(path)/\(kind)", token: joon.token)
                    XCTAssertEqual(set.status, .ok, set.text)
                    XCTAssertEqual(try set.json(Review.self)[keyPath: counter], 1, "\(kind) twice counts once")
                    XCTAssertTrue(try set.json(Review.self)[keyPath: mine])
                }
                let seos = try await app.send(.PUT, "\(path)/\(kind)", token: seo.token).json(Review.self)
                XCTAssertEqual(seos[keyPath: counter], 2)
                let asMina = try await app.send(.GET, path, token: mina.token).json(Review.self)
                XCTAssertEqual(asMina[keyPath: counter], 2)
                XCTAssertFalse(asMina[keyPath: mine], "mina did not \(kind) it")
                let asJoon = try await app.send(.GET, path, token: joon.token).json(Review.self)
                XCTAssertTrue(asJoon[keyPath: mine])
                let anonymous = try await app.send(.GET, path).json(Review.self)
                XCTAssertFalse(anonymous[keyPath: mine])
                XCTAssertEqual(anonymous[keyPath: counter], 2, "an anonymous reader's kept answer")
                for _ in 0..<2 {
                    let cleared = try await app.send(.DELETE, "\(path)/\(kind)", token: seo.token)
                    XCTAssertEqual(cleared.status, .ok)
                    XCTAssertEqual(try cleared.json(Review.self)[keyPath: counter], 1, "\(kind) cleared twice counts once")
                    XCTAssertFalse(try cleared.json(Review.self)[keyPath: mine])
                }
                _ = try await app.send(.DELETE, "\(path)/\(kind)", token: joon.token)
                let none = try await app.send(.GET, path).json(Review.self)
                XCTAssertEqual(none[keyPath: counter], 0)
                let stored = try await BurgerReaction.query(on: app.db).filter(\.$kind == kind).count()
                XCTAssertEqual(stored, 0)
            }
            // The other counter never moved with this one.
            let missing = try await app.send(.PUT, "/api/v1/burger-map/reviews/\(UUID())/like", token: joon.token)
            XCTAssertEqual(missing.status, .notFound)
            XCTAssertEqual(missing.errorCode, "review_not_found")

            // My lists: newest first, by when I liked, not when the review was written.
            for kind in ["like", "bookmark"] {
                _ = try await app.send(.PUT, "/api/v1/burger-map/reviews/\(newer)/\(kind)", token: joon.token)
                _ = try await app.send(.PUT, "/api/v1/burger-map/reviews/\(older)/\(kind)", token: joon.token)
            }
            let likes = try await app.send(.GET, "/api/v1/burger-map/me/likes", token: joon.token)
            XCTAssertEqual(likes.status, .ok)
            let liked = try likes.json(Page<Review>.self)
            XCTAssertEqual(liked.items.map(\.id), [older, newer])
            XCTAssertTrue(liked.items.allSatisfy(\.likedByMe))
            XCTAssertNil(liked.nextCursor)
            let bookmarks = try await app.send(.GET, "/api/v1/burger-map/me/bookmarks?limit=1", token: joon.token).json(Page<Review>.self)
            XCTAssertEqual(bookmarks.items.map(\.id), [older])
            let rest = try await app.send(.GET, "/api/v1/burger-map/me/bookmarks?limit=1&cursor=\(try XCTUnwrap(bookmarks.nextCursor))",
                                          token: joon.token).json(Page<Review>.self)
            XCTAssertEqual(rest.items.map(\.id), [newer])
            let seosLikes = try await app.send(.GET, "/api/v1/burger-map/me/likes", token: seo.token).json(Page<Review>.self)
            XCTAssertEqual(seosLikes.items.count, 0)
        }
    }

    func testALikeTellsTheAuthorOnceInTheirLanguage() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            let place = try await app.place(mina.token)
            let review = try await app.review(mina.token, place: place, title: "치즈 듬뿍")
            _ = try await app.send(.PUT, "/api/v1/burger-map/reviews/\(review)/like", token: joon.token)
            _ = try await app.send(.PUT, "/api/v1/burger-map/reviews/\(review)/like", token: joon.token)
            // Taken back and given again: still one piece of news.
            _ = try await app.send(.DELETE, "/api/v1/burger-map/reviews/\(review)/like", token: joon.token)
            _ = try await app.send(.PUT, "/api/v1/burger-map/reviews/\(review)/like", token: joon.token)
            _ = try await app.send(.PUT, "/api/v1/burger-map/reviews/\(review)/like", token: mina.token)  // one's own: nobody to tell
            _ = try await app.send(.PUT, "/api/v1/burger-map/reviews/\(review)/bookmark", token: joon.token)  // bookmarks are private

            let inbox = try await app.send(.GET, "/api/v1/notifications", token: mina.token)
            XCTAssertEqual(inbox.status, .ok, inbox.text)
            let page = try inbox.object()
            let items = try XCTUnwrap(page["items"] as? [[String: Any]])
            XCTAssertEqual(items.count, 1, "\(items)")
            XCTAssertEqual(page["unreadCount"] as? Int, 1)
            let notification = try XCTUnwrap(items.first)
            XCTAssertEqual(notification["service"] as? String, "burger-map")
            XCTAssertEqual(notification["kind"] as? String, "review_liked")
            XCTAssertEqual(notification["message"] as? String, "준호님이 내 리뷰를 좋아해요.")
            XCTAssertEqual((notification["subjectId"] as? String).flatMap(UUID.init(uuidString:)), review)
            XCTAssertEqual(notification["link"] as? String, "/map/reviews/\(review.uuidString.lowercased())")
            XCTAssertEqual(notification["excerpt"] as? String, "치즈 듬뿍")
            XCTAssertEqual(notification["read"] as? Bool, false)
            XCTAssertEqual(((notification["actor"] as? [String: Any])?["nickname"]) as? String, "준호")

            let english = try await app.send(.GET, "/api/v1/notifications", token: mina.token, headers: ["Accept-Language": "en-US,en;q=0.9"])
            let englishItems = try XCTUnwrap(try english.object()["items"] as? [[String: Any]])
            XCTAssertEqual(englishItems.first?["message"] as? String, "준호 liked your review.")

            let joonsInbox = try await app.send(.GET, "/api/v1/notifications", token: joon.token).object()
            XCTAssertEqual((joonsInbox["items"] as? [Any])?.count, 0, "liking tells nobody but the author")

            // Deleting the review takes back what was said about it.
            let deleted = try await app.send(.DELETE, "/api/v1/burger-map/reviews/\(review)", token: mina.token)
            XCTAssertEqual(deleted.status, .noContent)
            let emptied = try await app.send(.GET, "/api/v1/notifications", token: mina.token).object()
            XCTAssertEqual((emptied["items"] as? [[String: Any]])?.count, 0)
            XCTAssertEqual(emptied["unreadCount"] as? Int, 0)
        }
    }

    // MARK: Comments

    func testCommentsAreCountedPagedAndTellTheAuthor() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            let place = try await app.place(mina.token)
            let review = try await app.review(mina.token, place: place)
            let path = "/api/v1/burger-map/reviews/\(review)/comments"

            let first = try await app.send(.POST, path, json: ["text": "  저도 가 볼게요!  "], token: joon.token)
            XCTAssertEqual(first.status, .created, first.text)
            let object = try first.object()
            XCTAssertEqual(Set(object.keys), ["id", "reviewId", "author", "text", "createdAt", "updatedAt"])
            XCTAssertTrue(object["updatedAt"] is NSNull)
            let comment = try first.json(BurgerMapJSON.Comment.self)
            XCTAssertEqual(comment.text, "저도 가 볼게요!")
            XCTAssertEqual(comment.reviewId, review)
            XCTAssertEqual(comment.author.id, joon.id)

            let longest = try await app.send(.POST, path, json: ["text": String(repeating: "맛", count: 500)], token: joon.token)
            XCTAssertEqual(longest.status, .created)
            for (text, label) in [(String(repeating: "맛", count: 501), "501 characters"), ("   ", "blank"), ("a\u{0}b", "a control character")] {
                let refused = try await app.send(.POST, path, json: ["text": text], token: joon.token)
                XCTAssertEqual(refused.status, .unprocessableEntity, label)
                XCTAssertEqual(refused.errorCode, "invalid_comment", label)
            }
            let missing = try await app.send(.POST, path, raw: "{}", token: joon.token)
            XCTAssertEqual(missing.errorCode, "missing_field")
            var count = try await app.send(.GET, "/api/v1/burger-map/reviews/\(review)").json(Review.self).commentCount
            XCTAssertEqual(count, 2, "only the accepted comments count")

            // The author hears of comments by someone else, not of their own: one unread entry per
            // person and review, with the newest text (two comments in a row are one notice).
            _ = try await app.send(.POST, path, json: ["text": "고마워요"], token: mina.token)
            let inbox = try await app.send(.GET, "/api/v1/notifications", token: mina.token).object()
            let kinds = (inbox["items"] as? [[String: Any]])?.compactMap { $0["kind"] as? String }
            XCTAssertEqual(kinds, ["review_commented"])
            XCTAssertEqual(inbox["unreadCount"] as? Int, 1)
            let newest = try XCTUnwrap((inbox["items"] as? [[String: Any]])?.first)
            XCTAssertEqual(newest["message"] as? String, "준호님이 내 리뷰에 댓글 2개를 남겼어요.", "the entry counts both")
            XCTAssertEqual(newest["count"] as? Int, 2)
            XCTAssertEqual((newest["excerpt"] as? String)?.count, NotificationStore.maxExcerptCharacters, "the newest comment's text")

            // Ten comments a minute per account; the eleventh is refused with when to try again.
            for index in 0..<8 {
                let posted = try await app.send(.POST, path, json: ["text": "댓글 \(index)"], token: joon.token)
                XCTAssertEqual(posted.status, .created, posted.text)
            }
            let eleventh = try await app.send(.POST, path, json: ["text": "하나 더"], token: joon.token)
            XCTAssertEqual(eleventh.status, .tooManyRequests)
            XCTAssertEqual(eleventh.errorCode, "too_many_comments")
            XCTAssertNotNil(eleventh.headers.first(name: "Retry-After"))
            count = try await app.send(.GET, "/api/v1/burger-map/reviews/\(review)").json(Review.self).commentCount
            XCTAssertEqual(count, 11)
            let all = try await app.allPages(path, BurgerMapJSON.Comment.self, limit: 5, id: \.id)
            XCTAssertEqual(all.count, 11)
            XCTAssertEqual(all.first?.text, "댓글 7", "newest first")
            XCTAssertEqual(all.last?.id, comment.id, "oldest last")
            let stored = try await BurgerComment.query(on: app.db).filter(\.$review.$id == review).count()
            XCTAssertEqual(stored, 11)
            let unread = try await app.send(.GET, "/api/v1/notifications", token: mina.token).object()
            XCTAssertEqual(unread["unreadCount"] as? Int, 1, "ten comments from one person: one unread entry")
            XCTAssertEqual(((unread["items"] as? [[String: Any]])?.first)?["excerpt"] as? String, "댓글 7")

            let edited = try await app.send(.PATCH, "/api/v1/burger-map/comments/\(comment.id)", json: ["text": "다녀왔어요"], token: joon.token)
            XCTAssertEqual(edited.status, .ok, edited.text)
            XCTAssertEqual(try edited.json(BurgerMapJSON.Comment.self).text, "다녀왔어요")
            XCTAssertNotNil(try edited.json(BurgerMapJSON.Comment.self).updatedAt, "an edit sets updatedAt")
            let tooLong = try await app.send(.PATCH, "/api/v1/burger-map/comments/\(comment.id)", json: ["text": String(repeating: "a", count: 501)],
                                             token: joon.token)
            XCTAssertEqual(tooLong.errorCode, "invalid_comment")
            let deleted = try await app.send(.DELETE, "/api/v1/burger-map/comments/\(comment.id)", token: joon.token)
            XCTAssertEqual(deleted.status, .noContent)
            let again = try await app.send(.DELETE, "/api/v1/burger-map/comments/\(comment.id)", token: joon.token)
            XCTAssertEqual(again.status, .notFound)
            XCTAssertEqual(again.errorCode, "comment_not_found")
            count = try await app.send(.GET, "/api/v1/burger-map/reviews/\(review)").json(Review.self).commentCount
            XCTAssertEqual(count, 10)
            let onNothing = try await app.send(.POST, "/api/v1/burger-map/reviews/\(UUID())/comments", json: ["text": "hi"], token: joon.token)
            XCTAssertEqual(onNothing.status, .notFound)
        }
    }

    // MARK: Reports

    func testThreeAccountsReportingHideAReviewUntilAnAdminRestoresIt() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let reporters = [try await app.seasonedMember("준호"), try await app.seasonedMember("서연"), try await app.seasonedMember("도윤")]
            let admin = try await app.member("관리자", admin: true)
            let place = try await app.place(mina.token)
            let review = try await app.review(mina.token, place: place, rating: 5)
            _ = try await app.send(.PUT, "/api/v1/burger-map/users/\(mina.id)/follow", token: reporters[0].token)
            let path = "/api/v1/burger-map/reviews/\(review)"

            let noReason = try await app.send(.POST, "\(path)/report", raw: "{}", token: reporters[0].token)
            XCTAssertEqual(noReason.status, .badRequest)
            XCTAssertEqual(noReason.errorCode, "missing_field")
            let blank = try await app.send(.POST, "\(path)/report", json: ["reason": "  "], token: reporters[0].token)
            XCTAssertEqual(blank.status, .unprocessableEntity)
            XCTAssertEqual(blank.errorCode, "invalid_report_reason")
            let own = try await app.send(.POST, "\(path)/report", json: ["reason": "spam"], token: mina.token)
            XCTAssertEqual(own.status, .unprocessableEntity)
            XCTAssertEqual(own.errorCode, "cannot_report_own_review")

            for _ in 0..<2 {
                let report = try await app.send(.POST, "\(path)/report", json: ["reason": "광고예요"], token: reporters[0].token)
                XCTAssertEqual(report.status, .ok, report.text)
                XCTAssertEqual(try report.object()["hidden"] as? Bool, false)
            }
            let second = try await app.send(.POST, "\(path)/report", json: ["reason": "광고예요"], token: reporters[1].token)
            XCTAssertEqual(try second.object()["hidden"] as? Bool, false, "one account twice and another: two reporters")
            var stored = try await BurgerReport.query(on: app.db).filter(\.$review.$id == review).count()
            XCTAssertEqual(stored, 2)
            var detail = try await app.placeDetail(place)
            XCTAssertEqual(detail.reviewCount, 1)

            let third = try await app.send(.POST, "\(path)/report", json: ["reason": "욕설"], token: reporters[2].token)
            XCTAssertEqual(third.status, .ok)
            XCTAssertEqual(try third.object()["hidden"] as? Bool, true)

            // Gone from every list and from everyone but its author and the admins.
            try await assertListed(app, review, false, reader: reporters[0], place: place)
            for reader in [nil, reporters[0].token] {
                let read = try await app.send(.GET, path, token: reader)
                XCTAssertEqual(read.status, .notFound)
                XCTAssertEqual(read.errorCode, "review_not_found")
            }
            for reader in [mina.token, admin.token] {
                let read = try await app.send(.GET, path, token: reader)
                XCTAssertEqual(read.status, .ok)
                XCTAssertEqual(try read.json(Review.self).hidden, true)
            }
            detail = try await app.placeDetail(place)
            XCTAssertEqual(detail.reviewCount, 0)
            XCTAssertNil(detail.averageRating)
            XCTAssertNil(detail.photoURL, "a hidden review's photo is no cover")
            let profile = try await app.send(.GET, "/api/v1/burger-map/users/\(mina.id)").json(BurgerMapJSON.Profile.self)
            XCTAssertEqual(profile.reviewCount, 0)
            for (verb, suffix) in [(HTTPMethod.PUT, "/like"), (.POST, "/comments"), (.GET, "/comments"), (.POST, "/report")] {
                let blocked = try await app.send(verb, path + suffix, json: ["text": "hi", "reason": "x"], token: reporters[1].token)
                XCTAssertEqual(blocked.status, .notFound, "\(verb) \(suffix) on a hidden review")
            }

            let hidden = try await app.send(.GET, "/api/v1/burger-map/reviews?hidden=true", token: admin.token)
            XCTAssertEqual(hidden.status, .ok)
            XCTAssertEqual(try hidden.json(Page<Review>.self).items.map(\.id), [review])
            let asUser = try await app.send(.GET, "/api/v1/burger-map/reviews?hidden=true", token: reporters[0].token)
            XCTAssertEqual(asUser.status, .forbidden)
            let anonymous = try await app.send(.GET, "/api/v1/burger-map/reviews?hidden=true")
            XCTAssertEqual(anonymous.status, .unauthorized)

            let notAdmin = try await app.send(.POST, "\(path)/restore", token: mina.token)
            XCTAssertEqual(notAdmin.status, .forbidden)
            let restored = try await app.send(.POST, "\(path)/restore", token: admin.token)
            XCTAssertEqual(restored.status, .ok, restored.text)
            XCTAssertEqual(try restored.json(Review.self).hidden, false)
            try await assertListed(app, review, true, reader: reporters[0], place: place)
            detail = try await app.placeDetail(place)
            XCTAssertEqual(detail.reviewCount, 1)
            XCTAssertEqual(detail.averageRating, 5)
            XCTAssertNotNil(detail.photoURL)
            let none = try await app.send(.GET, "/api/v1/burger-map/reviews?hidden=true", token: admin.token).json(Page<Review>.self)
            XCTAssertEqual(none.items.count, 0)
            stored = try await BurgerReport.query(on: app.db).filter(\.$review.$id == review).filter(\.$dismissedAt != nil).count()
            XCTAssertEqual(stored, 3, "restoring keeps the reports, dismissed")
            // The same accounts cannot hide it again: their reports were judged.
            for reporter in reporters {
                let again = try await app.send(.POST, "\(path)/report", json: ["reason": "또 신고"], token: reporter.token)
                XCTAssertEqual(again.status, .ok, again.text)
                XCTAssertEqual(try again.object()["hidden"] as? Bool, false)
            }
            try await assertListed(app, review, true, reader: reporters[0], place: place)
            let again = try await app.send(.POST, "\(path)/restore", token: admin.token)
            XCTAssertEqual(again.status, .ok, "restoring a visible review changes nothing")
            detail = try await app.placeDetail(place)
            XCTAssertEqual(detail.reviewCount, 1, "and counts it once")
        }
    }

    /// Whether `review` shows in everyone's list, its place's list and a follower's feed.
    private func assertListed(_ app: Application, _ review: UUID, _ listed: Bool, reader: Member, place: UUID,
                              file: StaticString = #filePath, line: UInt = #line) async throws {
        let everyone = try await app.allPages("/api/v1/burger-map/reviews", Review.self, id: \.id)
        XCTAssertEqual(everyone.contains { $0.id == review }, listed, "GET /reviews", file: file, line: line)
        let ofPlace = try await app.send(.GET, "/api/v1/burger-map/places/\(place)/reviews").json(Page<Review>.self)
        XCTAssertEqual(ofPlace.items.contains { $0.id == review }, listed, "GET /places/{id}/reviews", file: file, line: line)
        let feed = try await app.send(.GET, "/api/v1/burger-map/feed", token: reader.token).json(Page<Review>.self)
        XCTAssertEqual(feed.items.contains { $0.id == review }, listed, "GET /feed", file: file, line: line)
    }

    // MARK: Deleting

    func testDeletingAReviewTakesItsPhotosCommentsAndLikesWithIt() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            let admin = try await app.member("관리자", admin: true)
            let place = try await app.place(mina.token)
            // Joon's older review shows the same picture as one of Mina's: one file, two photos.
            let joonsPhoto = try await app.photo(joon.token, seed: 2)
            let joonsReview = try await app.review(joon.token, place: place, rating: 3, photos: [joonsPhoto])
            let only = try await app.photo(mina.token, seed: 1)
            let shared = try await app.photo(mina.token, seed: 2)
            let review = try await app.postReview(mina.token, place: place, rating: 5, photos: [only, shared]).json(Review.self)
            let (onlyURL, sharedURL) = (review.photos[0].url, review.photos[1].url)
            let joonsURL = try await app.send(.GET, "/api/v1/burger-map/reviews/\(joonsReview)").json(Review.self).photos[0].url
            XCTAssertEqual(sharedURL, joonsURL, "the same bytes are stored once")
            var detail = try await app.placeDetail(place)
            XCTAssertEqual([Double(detail.reviewCount), detail.averageRating], [2, 4])
            XCTAssertEqual(detail.photoURL, onlyURL)

            let path = "/api/v1/burger-map/reviews/\(review.id)"
            _ = try await app.send(.POST, "\(path)/comments", json: ["text": "좋아요"], token: joon.token)
            _ = try await app.send(.PUT, "\(path)/like", token: joon.token)
            _ = try await app.send(.PUT, "\(path)/bookmark", token: joon.token)
            _ = try await app.send(.POST, "\(path)/report", json: ["reason": "x"], token: joon.token)

            let deleted = try await app.send(.DELETE, path, token: mina.token)
            XCTAssertEqual(deleted.status, .noContent, deleted.text)
            let (gone, goneComments) = (try await app.status(path), try await app.status("\(path)/comments"))
            XCTAssertEqual([gone, goneComments], [.notFound, .notFound])
            let photos = try await BurgerPhoto.query(on: app.db).filter(\.$id ~~ [only, shared]).count()
            XCTAssertEqual(photos, 0)
            let comments = try await BurgerComment.query(on: app.db).filter(\.$review.$id == review.id).count()
            let reactions = try await BurgerReaction.query(on: app.db).filter(\.$review.$id == review.id).count()
            let reports = try await BurgerReport.query(on: app.db).filter(\.$review.$id == review.id).count()
            XCTAssertEqual([comments, reactions, reports], [0, 0, 0])
            let (onlyFile, sharedFile) = (try await app.status(onlyURL), try await app.status(sharedURL))
            XCTAssertEqual(onlyFile, .notFound, "a file no one else shows is deleted")
            XCTAssertEqual(sharedFile, .ok, "a file another review shows stays")
            let likes = try await app.send(.GET, "/api/v1/burger-map/me/likes", token: joon.token).json(Page<Review>.self)
            XCTAssertEqual(likes.items.count, 0)
            detail = try await app.placeDetail(place)
            XCTAssertEqual([Double(detail.reviewCount), detail.averageRating], [1, 3])
            XCTAssertEqual(detail.photoURL, joonsURL, "the cover moves to the review that is left")
            let again = try await app.send(.DELETE, path, token: mina.token)
            XCTAssertEqual(again.status, .notFound)

            // An admin deletes anyone's review; the place is empty again, and the file goes too.
            let byAdmin = try await app.send(.DELETE, "/api/v1/burger-map/reviews/\(joonsReview)", token: admin.token)
            XCTAssertEqual(byAdmin.status, .noContent)
            detail = try await app.placeDetail(place)
            XCTAssertEqual(detail.reviewCount, 0)
            XCTAssertNil(detail.averageRating)
            XCTAssertNil(detail.photoURL)
            let lastFile = try await app.status(sharedURL)
            XCTAssertEqual(lastFile, .notFound, "the last photo showing the file is gone")
        }
    }

    // MARK: Lists stay current

    /// Public lists may be served from a cache; every write shows in them at once.
    func testEveryWriteShowsAtOnceInPublicListsAndFeeds() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let joon = try await app.member("준호")
            let reporters = [try await app.seasonedMember("서연"), try await app.seasonedMember("도윤"), try await app.seasonedMember("하준")]
            let place = try await app.place(mina.token, "캐시 버거", lat: 36.1, lon: 128.1)
            let box = "/api/v1/burger-map/places?bbox=128.0,36.0,128.2,36.2"
            func newest() async throws -> Review {
                let page = try await app.send(.GET, "/api/v1/burger-map/reviews?limit=1").json(Page<Review>.self)
                return try XCTUnwrap(page.items.first)
            }
            func pinCount() async throws -> Int? {
                let places = try await app.send(.GET, box).object()["items"] as? [[String: Any]]
                return places?.first?["reviewCount"] as? Int
            }
            func ofPlace() async throws -> [UUID] { try await app.send(.GET, "/api/v1/burger-map/places/\(place)/reviews").json(Page<Review>.self).items.map(\.id) }
            func feed() async throws -> [UUID] { try await app.send(.GET, "/api/v1/burger-map/feed", token: joon.token).json(Page<Review>.self).items.map(\.id) }
            _ = try await app.send(.PUT, "/api/v1/burger-map/users/\(mina.id)/follow", token: joon.token)

            let first = try await app.review(mina.token, place: place, title: "처음")
            var (top, pins, listed, followed) = (try await newest(), try await pinCount(), try await ofPlace(), try await feed())
            XCTAssertEqual([top.id], [first])
            XCTAssertEqual(pins, 1)
            XCTAssertEqual(listed, [first])
            XCTAssertEqual(followed, [first])

            _ = try await app.send(.PUT, "/api/v1/burger-map/reviews/\(first)/like", token: joon.token)
            top = try await newest()
            XCTAssertEqual(top.likeCount, 1, "a like")
            _ = try await app.send(.POST, "/api/v1/burger-map/reviews/\(first)/comments", json: ["text": "좋아요"], token: joon.token)
            top = try await newest()
            XCTAssertEqual(top.commentCount, 1, "a comment")
            _ = try await app.send(.PATCH, "/api/v1/burger-map/reviews/\(first)", json: ["title": "고친 제목"], token: mina.token)
            top = try await newest()
            XCTAssertEqual(top.title, "고친 제목", "an edit")
            let feedTitle = try await app.send(.GET, "/api/v1/burger-map/feed", token: joon.token).json(Page<Review>.self).items.first?.title
            XCTAssertEqual(feedTitle, "고친 제목")

            let second = try await app.review(mina.token, place: place, title: "두 번째")
            (top, pins, listed, followed) = (try await newest(), try await pinCount(), try await ofPlace(), try await feed())
            XCTAssertEqual(top.id, second)
            XCTAssertEqual(pins, 2)
            XCTAssertEqual(listed, [second, first])
            XCTAssertEqual(followed, [second, first])

            for reporter in reporters {
                _ = try await app.send(.POST, "/api/v1/burger-map/reviews/\(second)/report", json: ["reason": "x"], token: reporter.token)
            }
            (top, pins, listed, followed) = (try await newest(), try await pinCount(), try await ofPlace(), try await feed())
            XCTAssertEqual(top.id, first, "hidden")
            XCTAssertEqual(pins, 1)
            XCTAssertEqual(listed, [first])
            XCTAssertEqual(followed, [first])

            _ = try await app.send(.PUT, "/api/v1/burger-map/users/\(mina.id)/follow", token: reporters[0].token)
            _ = try await app.send(.DELETE, "/api/v1/burger-map/users/\(mina.id)/follow", token: joon.token)
            followed = try await feed()
            XCTAssertEqual(followed, [], "an unfollow")
            _ = try await app.send(.DELETE, "/api/v1/burger-map/reviews/\(first)", token: mina.token)
            (pins, listed) = (try await pinCount(), try await ofPlace())
            XCTAssertEqual(pins, 0)
            XCTAssertEqual(listed, [])
            top = try await newest()
            XCTAssertNotEqual(top.id, first, "a delete")
        }
    }

    // MARK: Photos no review took

    func testPhotosNoReviewTookGoAfterADayAndAreCapped() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let place = try await app.place(mina.token)
            let used = try await app.photo(mina.token, seed: 1)
            _ = try await app.review(mina.token, place: place, photos: [used])
            var pending: [UUID] = []
            for seed in 2..<(2 + BurgerMapService.maxPendingPhotos) { pending.append(try await app.photo(mina.token, seed: seed)) }
            let overCap = try await app.uploadPhoto([UploadPart(data: TestImages.png(seed: 999))], token: mina.token)
            XCTAssertEqual(overCap.status, .tooManyRequests, "a pending photo past the cap is refused")
            XCTAssertEqual(overCap.errorCode, "too_many_pending_photos")
            let joon = try await app.member("준호")
            _ = try await app.photo(joon.token, seed: 999)   // another account has its own cap

            func sweep(after seconds: TimeInterval) async throws -> Int {
                try await app.withClock(\.burgerMapEnvironment, ahead: seconds) { try await BurgerMapService(database: app.db, application: app).deleteAbandonedPhotos() }
            }
            let early = try await sweep(after: 23 * 3_600)
            XCTAssertEqual(early, 0, "within a day they wait")
            let pendingURL = BurgerMapService.photoURL(fileKey: try await BurgerPhoto.find(pending[0], on: app.db)?.fileKey, id: pending[0], files: app.files)
            let swept = try await sweep(after: 25 * 3_600)
            XCTAssertEqual(swept, BurgerMapService.maxPendingPhotos + 1, "mina's and joon's pending photos")
            let left = try await BurgerPhoto.query(on: app.db).filter(\.$owner.$id == mina.id).all().compactMap(\.id)
            XCTAssertEqual(left, [used], "a photo on a review stays")
            let file = try await app.status(pendingURL)
            XCTAssertEqual(file, .notFound, "and the files go with them")
            let again = try await app.uploadPhoto([UploadPart(data: TestImages.png(seed: 999))], token: mina.token)
            XCTAssertEqual(again.status, .created, "the cap counts only photos still waiting")
        }
    }

    // MARK: Paging

    func testPagesNeverRepeatOrSkipWhileReviewsArrive() async throws {
        try await withTestApp { app in
            let mina = try await app.member("미나")
            let place = try await app.place(mina.token)
            let existing = Set(try await BurgerReview.query(on: app.db).filter(\.$hiddenAt == nil).all().map { try $0.requireID() })
            XCTAssertGreaterThan(existing.count, 200, "the seeded catalog")
            // Several writers: one account has 20 reviews an hour.
            let writers = [mina, try await app.member("서연"), try await app.member("도윤")]
            var seen: [UUID] = []
            var cursor: String?
            var pages = 0
            repeat {
                let response = try await app.send(.GET, "/api/v1/burger-map/reviews?limit=7" + (cursor.map { "&cursor=\($0)" } ?? ""))
                XCTAssertEqual(response.status, .ok, response.text)
                let page = try response.json(Page<Review>.self)
                XCTAssertLessThanOrEqual(page.items.count, 7)
                let dates = page.items.map(\.createdAt)
                XCTAssertEqual(dates, dates.sorted(by: >), "newest first")
                seen += page.items.map(\.id)
                cursor = page.nextCursor
                pages += 1
                // A new review arrives between every two pages.
                _ = try await app.review(writers[pages % writers.count].token, place: place, title: "새 리뷰 \(pages)")
            } while cursor != nil && pages < 100
            XCTAssertEqual(seen.count, Set(seen).count, "no review is shown twice")
            XCTAssertEqual(Set(seen), existing, "every review there was at the start, and only those")
            XCTAssertEqual(pages, (existing.count + 6) / 7)
        }
    }

    func testBadCursorsAndLimitsAreClientErrors() async throws {
        try await withTestApp { app in
            let ordered = OrderedPageCursor(position: 3, id: UUID()).encoded
            for query in ["cursor=nonsense", "cursor=\(Data("1e300|\(UUID().uuidString)".utf8).base64URLEncodedString())", "cursor=\(ordered)"] {
                let response = try await app.send(.GET, "/api/v1/burger-map/reviews?\(query)")
                XCTAssertEqual(response.status, .badRequest, query)
                XCTAssertEqual(response.errorCode, "invalid_cursor", query)
            }
            for limit in ["0", "101", "-1", "x", ""] {
                let response = try await app.send(.GET, "/api/v1/burger-map/reviews?limit=\(limit)")
                XCTAssertEqual(response.status, .badRequest, limit)
                XCTAssertEqual(response.errorCode, "invalid_limit", limit)
            }
            let largest = try await app.send(.GET, "/api/v1/burger-map/reviews?limit=100").json(Page<Review>.self)
            XCTAssertEqual(largest.items.count, 100)
        }
    }

    // MARK: Withdrawal

    /// A withdrawn account's reviews leave the place's numbers, and its likes, bookmarks and
    /// comments leave the counts of the reviews it reacted to, in the same transaction.
    func testWithdrawingSettlesTheCountsOthersKeep() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()
            let mina = try await app.member("미나")
            let leaver = try await app.member("떠나는사람")
            let place = try await app.place(mina.token, "남는 버거")
            let kept = try await app.review(mina.token, place: place, rating: 4)
            _ = try await app.review(leaver.token, place: place, rating: 1)
            for reaction in ["like", "bookmark"] {
                let response = try await app.send(.PUT, "/api/v1/burger-map/reviews/\(kept)/\(reaction)", token: leaver.token)
                XCTAssertEqual(response.status, .ok, response.text)
            }
            let comment = try await app.send(.POST, "/api/v1/burger-map/reviews/\(kept)/comments", json: ["text": "잘 봤어요"], token: leaver.token)
            XCTAssertEqual(comment.status, .created, comment.text)
            let before = try await app.placeDetail(place)
            XCTAssertEqual(before.reviewCount, 2)
            // The box (from the place index) shows the same numbers.
            let box = try await app.send(.GET, "/api/v1/burger-map/places?bbox=126.9,37.5,127.1,37.6").object()
            XCTAssertEqual(((box["items"] as? [[String: Any]])?.first { $0["name"] as? String == "남는 버거" })?["reviewCount"] as? Int, 2)

            let withdrawal = try await app.send(.DELETE, "/api/v1/me", json: ["password": "password1"], token: leaver.token)
            XCTAssertEqual(withdrawal.status, .noContent, withdrawal.text)

            let after = try await app.placeDetail(place)
            XCTAssertEqual(after.reviewCount, 1)
            XCTAssertEqual(after.averageRating, 4)
            let review = try await app.send(.GET, "/api/v1/burger-map/reviews/\(kept)").object()
            XCTAssertEqual(review["likeCount"] as? Int, 0)
            XCTAssertEqual(review["bookmarkCount"] as? Int, 0)
            XCTAssertEqual(review["commentCount"] as? Int, 0)
            let stored = try await BurgerReview.find(kept, on: app.db)
            XCTAssertEqual(stored?.commentCount, 0)
            let boxAfter = try await app.send(.GET, "/api/v1/burger-map/places?bbox=126.9,37.5,127.1,37.6").object()
            XCTAssertEqual(((boxAfter["items"] as? [[String: Any]])?.first { $0["name"] as? String == "남는 버거" })?["reviewCount"] as? Int, 1,
                           "the place index and the cache follow")
        }
    }
}
