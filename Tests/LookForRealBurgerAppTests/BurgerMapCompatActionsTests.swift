import Accounts
import BurgerMap
import BurgerMapTesting
import Fluent
@testable import LookForRealBurgerApp
import Payments
import Platform
import WhatWeEatTesting
import XCTVapor

/// What the LookForRealBurger app does to posts, with its permissions and bad input: editing and
/// deleting, likes on shops, comments and review links, photos and images, the donation.
final class BurgerMapCompatActionsTests: XCTestCase {
    static let reviews = BurgerMapCompatPostsTests.reviews

    func testOnlyAuthorsChangeTheirReviewsAndComments() async throws {
        try await withLSLPApp { app in
            let author = try await LSLPClient.member(app, nick: "작성자")
            let stranger = try await LSLPClient.member(app, nick: "지나가는사람")
            let shopID = try await author.addShop("권한 버거", kakaoID: "7001").postID()
            let otherShop = try await author.addShop("다른 버거", kakaoID: "7002", lon: 127.05, lat: 37.51).postID()
            let reviewID = try await author.addReview(shop: shopID, title: "원래 제목").postID()

            let edit: [String: Any] = ["title": "고친 제목", "price": 3, "content": "다시 먹어보니 보통", "content1": shopID, "product_id": Self.reviews]
            let refused = try await stranger.call(.PUT, "/v1/posts/\(reviewID)", json: edit)
            XCTAssertEqual(refused.status, .forbidden)
            let edited = try await author.call(.PUT, "/v1/posts/\(reviewID)", json: edit)
            XCTAssertEqual(edited.status, .ok, edited.text)
            XCTAssertEqual(try edited.object()["title"] as? String, "고친 제목")
            XCTAssertEqual(try edited.object()["price"] as? Int, 3)
            var moved = edit
            moved["content1"] = otherShop
            let move = try await author.call(.PUT, "/v1/posts/\(reviewID)", json: moved)
            XCTAssertEqual(move.status, .badRequest, "a review stays on its shop")
            for post in [shopID, ObjectID.of(BurgerDonations.postID)] {
                let shopEdit = try await author.call(.PUT, "/v1/posts/\(post)", json: ["title": "새 이름"])
                XCTAssertEqual(shopEdit.status, .forbidden)
                let shopDelete = try await author.call(.DELETE, "/v1/posts/\(post)")
                XCTAssertEqual(shopDelete.status, .forbidden)
            }

            // Comments: a shop takes only its own reviews' ids.
            let noSuchReview = String(reviewID.dropLast()) + (reviewID.hasSuffix("0") ? "1" : "0")
            for text in ["맛있어요", noSuchReview, "   "] {
                let notALink = try await stranger.call(.POST, "/v1/posts/\(shopID)/comments", json: ["content": text])
                XCTAssertEqual(notALink.status, .badRequest, text)
            }
            let wrongShop = try await stranger.call(.POST, "/v1/posts/\(otherShop)/comments", json: ["content": reviewID])
            XCTAssertEqual(wrongShop.status, .badRequest, "another shop's review")
            let comment = try await stranger.call(.POST, "/v1/posts/\(reviewID)/comments", json: ["content": "저도 가볼게요"])
            XCTAssertEqual(comment.status, .ok, comment.text)
            let commentID = try XCTUnwrap(try comment.object()["comment_id"] as? String)
            let notMine = try await author.call(.PUT, "/v1/posts/\(reviewID)/comments/\(commentID)", json: ["content": "바꿈"])
            XCTAssertEqual(notMine.status, .forbidden)
            let elsewhere = try await stranger.call(.PUT, "/v1/posts/\(otherShop)/comments/\(commentID)", json: ["content": "바꿈"])
            XCTAssertEqual(elsewhere.status, .badRequest)
            let changed = try await stranger.call(.PUT, "/v1/posts/\(reviewID)/comments/\(commentID)", json: ["content": "꼭 가볼게요"])
            XCTAssertEqual(try changed.object()["content"] as? String, "꼭 가볼게요")
            let tooLong = try await stranger.call(.POST, "/v1/posts/\(reviewID)/comments", json: ["content": String(repeating: "가", count: 501)])
            XCTAssertEqual(tooLong.status, .badRequest)
            let deletedByAuthor = try await author.call(.DELETE, "/v1/posts/\(reviewID)/comments/\(commentID)")
            XCTAssertEqual(deletedByAuthor.status, .ok, "the review's author may remove comments on it")
            let gone = try await stranger.call(.DELETE, "/v1/posts/\(reviewID)/comments/\(commentID)")
            XCTAssertEqual(gone.status.code, 410)

            let notDeleted = try await stranger.call(.DELETE, "/v1/posts/\(reviewID)")
            XCTAssertEqual(notDeleted.status, .forbidden)
            let deleted = try await author.call(.DELETE, "/v1/posts/\(reviewID)")
            XCTAssertEqual(deleted.status, .ok)
            for method in [HTTPMethod.GET, .DELETE] {
                let missing = try await author.call(method, "/v1/posts/\(reviewID)")
                XCTAssertEqual(missing.status.code, 410, "\(method)")
                XCTAssertEqual(missing.lslpMessage, "게시글이 존재하지 않습니다.")
            }
            let shopNow = try await author.call(.GET, "/v1/posts/\(shopID)").object()
            XCTAssertEqual((shopNow["comments"] as? [Any])?.count, 0, "the link went with the review")
        }
    }

    func testLikesSetTheStateAskedForAndMarkShops() async throws {
        try await withLSLPApp { app in
            let client = try await LSLPClient.member(app, nick: "좋아요")
            let writer = try await LSLPClient.member(app, nick: "글쓴이")
            let shopID = try await writer.addShop("좋아요 버거", kakaoID: "8001").postID()
            let reviewID = try await writer.addReview(shop: shopID).postID()
            let review = try await app.uuid(of: BurgerReview.self, reviewID)
            for (state, count) in [(true, 1), (true, 1), (false, 0), (false, 0)] {
                let response = try await client.call(.POST, "/v1/posts/\(reviewID)/like", json: ["like_status": state])
                XCTAssertEqual(try response.object()["like_status"] as? Bool, state)
                let likes = try await BurgerReview.find(review, on: app.db)?.likeCount
                XCTAssertEqual(likes, count, "like_status \(state) is a state, not a toggle")
            }
            for body in [[String: Any](), ["like_status": "yes"]] {
                let refused = try await client.call(.POST, "/v1/posts/\(reviewID)/like", json: body)
                XCTAssertEqual(refused.status, .badRequest)
            }
            let unknown = try await client.call(.POST, "/v1/posts/\(String(repeating: "a", count: 24))/like", json: ["like_status": true])
            XCTAssertEqual(unknown.status.code, 410)

            // On a shop, like is "eaten here" and like-2 "want to go", the web's marks.
            _ = try await client.call(.POST, "/v1/posts/\(shopID)/like", json: ["like_status": true])
            _ = try await client.call(.POST, "/v1/posts/\(shopID)/like-2", json: ["like_status": true])
            let placeID = try await app.uuid(of: BurgerPlace.self, shopID)
            let detail = try await app.placeDetail(placeID)
            XCTAssertEqual([detail.eatenCount, detail.wantCount], [1, 1])
            let eaten = try await client.call(.GET, "/v1/posts/likes/me?limit=21&product_id=\(BurgerMapCompatPostsTests.shops)").object()
            XCTAssertEqual((eaten["data"] as? [[String: Any]])?.compactMap { $0["post_id"] as? String }, [shopID])
            let shop = try await client.call(.GET, "/v1/posts/\(shopID)").object()
            XCTAssertEqual(shop["likes2"] as? [String], [client.userID].compactMap { $0 })
            let reviewsLiked = try await client.call(.GET, "/v1/posts/likes/me?limit=21").object()
            XCTAssertEqual((reviewsLiked["data"] as? [Any])?.count, 0, "without product_id: reviews, as the app means")
        }
    }

    /// Three reports hide a review (the web's rule): gone for everyone but its author, here too.
    func testAHiddenReviewIsGoneForOthers() async throws {
        try await withLSLPApp { app in
            let author = try await LSLPClient.member(app, nick: "숨김작성자")
            let reader = try await LSLPClient.member(app, nick: "숨김독자")
            let shopID = try await author.addShop("숨김 버거", kakaoID: "8101").postID()
            let reviewID = try await author.addReview(shop: shopID).postID()
            let review = try await app.uuid(of: BurgerReview.self, reviewID)
            let shown = try await reader.call(.GET, "/v1/posts/\(reviewID)")
            XCTAssertEqual(shown.status, .ok, "read (and kept encoded) before the reports")
            let liked = try await reader.call(.POST, "/v1/posts/\(reviewID)/like", json: ["like_status": true])
            XCTAssertEqual(liked.status, .ok)
            let again = try await author.call(.GET, "/v1/posts/\(reviewID)").object()
            XCTAssertEqual(again["likes"] as? [String], [reader.userID].compactMap { $0 }, "a like is seen at once")
            for index in 0..<3 {
                let reporter = try await app.seasonedMember("신고\(index)")
                _ = try await app.send(.POST, "/api/v1/burger-map/reviews/\(review)/report", json: ["reason": "광고"], token: reporter.token)
            }
            let hidden = try await reader.call(.GET, "/v1/posts/\(reviewID)")
            XCTAssertEqual(hidden.status.code, 410)
            let like = try await reader.call(.POST, "/v1/posts/\(reviewID)/like", json: ["like_status": true])
            XCTAssertEqual(like.status.code, 410)
            let own = try await author.call(.GET, "/v1/posts/\(reviewID)")
            XCTAssertEqual(own.status, .ok, "its author still sees it")
            let list = try await reader.call(.GET, "/v1/posts?limit=21&product_id=\(Self.reviews)").object()
            XCTAssertFalse((list["data"] as? [[String: Any]] ?? []).contains { $0["post_id"] as? String == reviewID })
            let shop = try await reader.call(.GET, "/v1/posts/\(shopID)").object()
            XCTAssertEqual((shop["comments"] as? [Any])?.count, 0)
        }
    }

    func testPhotosAreCheckedBeforeAnyIsKept() async throws {
        try await withLSLPApp { app in
            let client = try await LSLPClient.member(app, nick: "사진")
            let other = try await LSLPClient.member(app, nick: "남의사진")
            let photos = try await BurgerPhoto.query(on: app.db).count()
            let mixed = try await client.uploadFiles([TestImages.phoneJPEG(seed: 1), TestImages.phoneJPEG(seed: 2), TestImages.gif])
            XCTAssertEqual(mixed.status, .badRequest, "a GIF is not a photo: the app's 400")
            let tooMany = try await client.uploadFiles((0..<6).map { TestImages.phoneJPEG(seed: UInt8($0)) })
            XCTAssertEqual(tooMany.status, .badRequest)
            let none = try await client.uploadFiles([])
            XCTAssertEqual(none.status, .badRequest)
            let notMultipart = try await client.call(.POST, "/v1/posts/files", json: ["files": ["a.jpg"]])
            XCTAssertEqual(notMultipart.status, .badRequest)
            let after = try await BurgerPhoto.query(on: app.db).count()
            XCTAssertEqual(after, photos, "nothing kept from a refused upload")

            let five = try await client.uploadFiles((0..<5).map { TestImages.phoneJPEG(seed: UInt8(10 + $0)) })
            XCTAssertEqual((try five.object()["files"] as? [String])?.count, 5)

            let shopID = try await client.addShop("사진 버거", kakaoID: "8201").postID()
            let theirs = try await other.photoPath()
            var review: [String: Any] = ["title": "사진 리뷰", "price": 5, "content": "", "content1": shopID, "product_id": Self.reviews]
            for (files, why) in [([theirs], "someone else's photo"), ([], "no photo"), (["uploads/posts/nothing.jpg"], "not a photo path"),
                                 (["https://example.com/a.jpg"], "not ours")] {
                review["files"] = files
                let refused = try await client.call(.POST, "/v1/posts", json: review)
                XCTAssertEqual(refused.status, .badRequest, why)
            }
            review["files"] = [try await client.photoPath()]
            for (field, value) in [("price", 6 as Any), ("price", "5"), ("content1", String(repeating: "0", count: 24)), ("title", "")] {
                var bad = review
                bad[field] = value
                let refused = try await client.call(.POST, "/v1/posts", json: bad)
                XCTAssertEqual(refused.status, .badRequest, "\(field) \(value)")
            }
            let reviews = try await app.reviewCount()
            let written = try await client.call(.POST, "/v1/posts", json: review)
            XCTAssertEqual(written.status, .ok, written.text)
            let count = try await app.reviewCount()
            XCTAssertEqual(count, reviews + 1)
        }
    }

    /// The image loader sends the key and whatever token it has; it never refreshes.
    func testImagesNeedTheKeyAndAnyTokenOfOurs() async throws {
        try await withLSLPApp(adjust: { $0.accessTokenTTL = 1 }) { app in
            var client = try await LSLPClient.member(app, nick: "이미지")
            let path = try await client.photoPath()
            try await Task.sleep(for: .milliseconds(2_100))
            let expired = try await client.call(.GET, "/v1/\(path)")
            XCTAssertEqual(expired.status, .ok, "an expired token of ours still shows pictures")
            let drawnPhoto = try await BurgerPhoto.query(on: app.db).filter(\.$artwork != nil).first()
            let seeded = try XCTUnwrap(drawnPhoto?.id)
            // The catalog's drawn photos reach the app as JPEG (its image loader cannot draw SVG).
            let drawn = try await client.call(.GET, "/v1/uploads/posts/\(seeded.uuidString.lowercased()).jpg")
            XCTAssertEqual(drawn.status, .ok)
            XCTAssertEqual(drawn.headers.contentType, .jpeg)
            XCTAssertEqual(Array(drawn.body.readableBytesView.prefix(3)), [0xFF, 0xD8, 0xFF])
            let missing = try await client.call(.GET, "/v1/uploads/posts/\(UUID().uuidString.lowercased()).jpg")
            XCTAssertEqual(missing.status.code, 410)
            client.accessToken = "not-a-token"
            let forged = try await client.call(.GET, "/v1/\(path)")
            XCTAssertEqual(forged.status, .unauthorized)
            client.accessToken = nil
            let anonymous = try await client.call(.GET, "/v1/\(path)")
            XCTAssertEqual(anonymous.status, .unauthorized)
        }
    }
}
