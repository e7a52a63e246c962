import Accounts
import BurgerMap
import BurgerMapTesting
import Fluent
@testable import LookForRealBurgerApp
import Platform
import WhatWeEatTesting
import XCTVapor

/// The LookForRealBurger app's posts on our server (`../shared/contracts/lslp-burger-api.md` §3–§4
/// and the replay sketch §7): shops are our places, reviews our reviews, and what the app writes is
/// what the web shows, and the other way round.
final class BurgerMapCompatPostsTests: XCTestCase {
    static let shops = "LFRB_BURGER_HOUSE_TEST"
    static let reviews = "LFRB_BURGER_HOUSE_REVIEW_TEST"

    /// The app's map (every shop at once) keeps each shop encoded: a review or a mark makes its shop
    /// again and no other, a like or a comment none, a rename the shops that name the person; and
    /// what the app reads is always what a map made from nothing would be.
    func testTheWholeMapMakesAgainOnlyTheShopsAWriteTouched() async throws {
        try await withLSLPApp { app in
            let mina = try await LSLPClient.member(app, nick: "미나")
            let shopID = try await mina.addShop("정직버거", kakaoID: "20001").postID()
            let otherID = try await mina.addShop("솔직버거", kakaoID: "20002", lon: 127.03).postID()
            let map = "/v1/posts?limit=300000&product_id=\(Self.shops)"
            func shops() async throws -> [String: [String: Any]] {
                let answer = try await mina.call(.GET, map)
                let listed = try XCTUnwrap(try answer.object()["data"] as? [[String: Any]])
                return Dictionary(uniqueKeysWithValues: listed.map { ($0["post_id"] as? String ?? "", $0) })
            }
            func madeFromNothing() async throws -> String {
                let kept = app.shopPostFragments
                app.shopPostFragments = ShopPostFragments(versions: app.placeVersions)
                defer { app.shopPostFragments = kept }
                app.burgerMapCache.invalidate()
                return try await mina.call(.GET, map).text
            }
            let first = try await shops()
            XCTAssertEqual(app.shopPostFragments.made, first.count, "the first reader makes every shop")
            XCTAssertGreaterThan(first.count, 60, "the catalog's places and the two new shops")

            // A review: its shop lists it; the other shops come from memory.
            let review = try await mina.addReview(shop: shopID)
            var made = app.shopPostFragments.made
            let reviewed = try await shops()
            XCTAssertEqual(app.shopPostFragments.made, made + 1)
            let links = (reviewed[shopID]?["comments"] as? [[String: Any]])?.compactMap { $0["content"] as? String }
            XCTAssertEqual(links, [try review.postID()])

            // A like and a comment on the review show on the review, not on a shop: nothing is made.
            made = app.shopPostFragments.made
            let liked = try await mina.call(.POST, "/v1/posts/\(try review.postID())/like", json: ["like_status": true])
            XCTAssertEqual(liked.status, .ok, liked.text)
            _ = try await shops()
            XCTAssertEqual(app.shopPostFragments.made, made)

            // A mark ("eaten here") on the other shop: that shop alone, with the person in `likes`.
            let marked = try await mina.call(.POST, "/v1/posts/\(otherID)/like", json: ["like_status": true])
            XCTAssertEqual(marked.status, .ok, marked.text)
            let afterMark = try await shops()
            XCTAssertEqual(app.shopPostFragments.made, made + 1)
            XCTAssertEqual(afterMark[otherID]?["likes"] as? [String], [try XCTUnwrap(mina.userID)])

            // A rename: the two shops naming her (creator, reviewer) are made again with the new name.
            made = app.shopPostFragments.made
            let renamed = try await app.send(.PATCH, "/api/v1/me", json: ["nickname": "미나짱"], token: mina.accessToken)
            XCTAssertEqual(renamed.status, .ok, renamed.text)
            try await waitUntil { app.shopPostFragments.count == afterMark.count - 2 }
            let afterRename = try await shops()
            XCTAssertEqual(app.shopPostFragments.made, made + 2)
            XCTAssertEqual((afterRename[shopID]?["creator"] as? [String: Any])?["nick"] as? String, "미나짱")
            XCTAssertEqual(((afterRename[shopID]?["comments"] as? [[String: Any]])?.first?["creator"] as? [String: Any])?["nick"] as? String, "미나짱")

            // Another instance's announcement moves the versions as a local write does.
            made = app.shopPostFragments.made
            app.placeVersions.apply(message: PlaceVersions.message(places: [try await app.uuid(of: BurgerPlace.self, shopID)]))
            app.burgerMapCache.invalidate()
            _ = try await shops()
            XCTAssertEqual(app.shopPostFragments.made, made + 1)

            let kept = try await mina.call(.GET, map).text
            let fresh = try await madeFromNothing()
            XCTAssertEqual(kept, fresh, "shops kept one by one read as the map made whole")
        }
    }

    /// The contract's replay sketch, line by line, after the accounts part (BurgerMapCompatAccountsTests).
    func testTheReplaySketch() async throws {
        try await withLSLPApp { app in
            let me = try await LSLPClient.member(app, nick: "버거왕")
            let other = try await LSLPClient.member(app, nick: "버거친구")

            // The map's one request: every shop, and "0" for no more pages. A new install has its catalog.
            let map = try await me.call(.GET, "/v1/posts?limit=10000&product_id=\(Self.shops)")
            XCTAssertEqual(map.status, .ok, map.text)
            let catalog = try map.object()
            XCTAssertEqual(catalog["next_cursor"] as? String, "0")
            let seeded = try XCTUnwrap(catalog["data"] as? [[String: Any]])
            let placeCount = try await BurgerPlace.query(on: app.db).count()
            XCTAssertEqual(seeded.count, placeCount)
            for shop in seeded {
                // What the app's map needs of a shop (§4.1), or it drops it.
                XCTAssertNotNil(Double(try XCTUnwrap(shop["content1"] as? String)))
                XCTAssertNotNil(Double(try XCTUnwrap(shop["content2"] as? String)))
                for key in ["content3", "content4", "content5"] { XCTAssertNotNil(shop[key] as? String, key) }
                XCTAssertNil(shop["price"], "a shop has no price")
            }

            let shop = try await me.addShop("버거킹 강남점", kakaoID: "12345678")
            let shopID = try XCTUnwrap(shop["post_id"] as? String)
            XCTAssertNotNil(shopID.range(of: "^[0-9a-f]{24}$", options: .regularExpression))
            XCTAssertNil(shop["price"])
            for key in ["files", "likes", "likes2", "buyers", "comments"] { XCTAssertEqual((shop[key] as? [Any])?.count, 0, key) }
            XCTAssertEqual(shop["hashTags"] as? [String], ["버거킹"])
            XCTAssertEqual(shop["content1"] as? String, "127.0276")
            XCTAssertEqual(shop["content2"] as? String, "37.4979")
            XCTAssertEqual(shop["content5"] as? String, "12345678")
            XCTAssertEqual(shop["product_id"] as? String, Self.shops)
            XCTAssertNotNil((shop["createdAt"] as? String)?.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression))
            XCTAssertEqual((shop["creator"] as? [String: Any])?["nick"] as? String, "버거왕")

            let uploaded = try await me.uploadFiles([TestImages.phoneJPEG(seed: 1)])
            XCTAssertEqual(uploaded.status, .ok, uploaded.text)
            let paths = try XCTUnwrap(try uploaded.object()["files"] as? [String])
            XCTAssertEqual(paths.count, 1)
            XCTAssertNotNil(paths[0].range(of: "^uploads/posts/[0-9a-f-]{36}\\.jpg$", options: .regularExpression), paths[0])

            let written = try await me.call(.POST, "/v1/posts", json: [
                "title": "맛집", "price": 5, "content": "굿", "content1": shopID, "product_id": Self.reviews, "files": paths])
            XCTAssertEqual(written.status, .ok, written.text)
            let review = try written.object()
            let reviewID = try XCTUnwrap(review["post_id"] as? String)
            XCTAssertEqual(review["price"] as? Int, 5)
            XCTAssertEqual(review["content1"] as? String, shopID)
            XCTAssertEqual(review["files"] as? [String], paths)
            for key in ["content2", "content3", "content4", "content5"] { XCTAssertNil(review[key], "\(key) was never sent, so it is left out") }

            let link = try await me.call(.POST, "/v1/posts/\(shopID)/comments", json: ["content": reviewID])
            XCTAssertEqual(link.status, .ok, link.text)
            XCTAssertEqual(try link.object()["content"] as? String, reviewID)
            let shopAfter = try await me.call(.GET, "/v1/posts/\(shopID)").object()
            XCTAssertEqual(((shopAfter["comments"] as? [[String: Any]])?.first)?["content"] as? String, reviewID)
            XCTAssertEqual((shopAfter["comments"] as? [Any])?.count, 1, "the link is the review itself, not a second comment")
            let feed = try await me.call(.GET, "/v1/posts?limit=21&product_id=\(Self.reviews)").object()
            XCTAssertEqual(((feed["data"] as? [[String: Any]])?.first)?["post_id"] as? String, reviewID)

            for (route, list) in [("like", "likes"), ("like-2", "likes-2")] {
                let liked = try await other.call(.POST, "/v1/posts/\(reviewID)/\(route)", json: ["like_status": true])
                XCTAssertEqual(liked.status, .ok, liked.text)
                XCTAssertEqual(try liked.object()["like_status"] as? Bool, true)
                let mine = try await other.call(.GET, "/v1/posts/\(list)/me?limit=21").object()
                XCTAssertEqual((mine["data"] as? [[String: Any]])?.compactMap { $0["post_id"] as? String }, [reviewID], list)
                XCTAssertEqual(mine["next_cursor"] as? String, "0")
            }
            let reviewAfter = try await me.call(.GET, "/v1/posts/\(reviewID)").object()
            XCTAssertEqual(reviewAfter["likes"] as? [String], [other.userID].compactMap { $0 })
            XCTAssertEqual(reviewAfter["likes2"] as? [String], [other.userID].compactMap { $0 })

            let followed = try await me.call(.POST, "/v1/follow/\(try XCTUnwrap(other.userID))")
            XCTAssertEqual(try followed.object()["following_status"] as? Bool, true)
            let profile = try await me.call(.GET, "/v1/users/\(try XCTUnwrap(other.userID))/profile").object()
            XCTAssertEqual((profile["followers"] as? [[String: Any]])?.compactMap { $0["user_id"] as? String }, [me.userID].compactMap { $0 })
            let mine = try await me.call(.GET, "/v1/users/me/profile").object()
            XCTAssertEqual(Set(try XCTUnwrap(mine["posts"] as? [String])), [shopID, reviewID])

            let image = try await me.call(.GET, "/v1/\(paths[0])")
            XCTAssertEqual(image.status, .ok)
            XCTAssertEqual(image.headers.contentType, .jpeg)
            XCTAssertEqual(Array(image.body.readableBytesView.prefix(3)), [0xFF, 0xD8, 0xFF])
            XCTAssertNil(String(decoding: Data(image.body.readableBytesView), as: UTF8.self).range(of: TestImages.gpsText), "no GPS position")

            var keyless = me
            keyless.key = ""
            for path in ["/v1/posts?limit=21&product_id=\(Self.reviews)", "/v1/\(paths[0])", "/v1/posts/\(reviewID)"] {
                let refused = try await keyless.call(.GET, path)
                XCTAssertEqual(refused.status.code, 420, path)
            }
        }
    }

    /// The app's posts and the web's map are one map: what either writes, the other shows.
    func testTheAppAndTheWebShowTheSameReviews() async throws {
        try await withLSLPApp { app in
            let appUser = try await LSLPClient.member(app, nick: "앱리뷰어")
            let shop = try await appUser.addShop("앱과웹 버거", kakaoID: "99887766", lon: 126.9780, lat: 37.5665)
            let shopID = try XCTUnwrap(shop["post_id"] as? String)
            let fromApp = try await appUser.addReview(shop: shopID, title: "앱에서 쓴 리뷰", rating: 4, text: "패티가 두꺼워요 #수제버거")
            XCTAssertEqual(fromApp["hashTags"] as? [String], ["수제버거"])
            let appReview = try await app.uuid(of: BurgerReview.self, try fromApp.postID())
            let placeID = try await app.uuid(of: BurgerPlace.self, shopID)

            // On the web: the review list, the place, the review's page.
            let web = try await app.member("웹리뷰어")
            let list = try await app.send(.GET, "/api/v1/burger-map/reviews?limit=100", token: web.token).json(BurgerMapJSON.Page<BurgerMapJSON.Review>.self)
            let shown = try XCTUnwrap(list.items.first { $0.id == appReview })
            XCTAssertEqual(shown.title, "앱에서 쓴 리뷰")
            XCTAssertEqual(shown.rating, 4)
            XCTAssertEqual(shown.photos.count, 1)
            XCTAssertEqual(shown.place.id, placeID)
            let place = try await app.placeDetail(placeID)
            XCTAssertEqual(place.reviewCount, 1)
            XCTAssertEqual(place.averageRating, 4)
            let page = try await app.send(.GET, "/map/reviews/\(appReview.uuidString.lowercased())", token: nil)
            XCTAssertEqual(page.status, .ok)
            XCTAssertTrue(page.text.contains("앱에서 쓴 리뷰"))
            XCTAssertTrue(page.text.contains("앱과웹 버거"))

            // The web writes on the same place, likes and comments on the app's review.
            let webReview = try await app.review(web.token, place: placeID, title: "웹에서 쓴 리뷰", rating: 2)
            _ = try await app.send(.PUT, "/api/v1/burger-map/reviews/\(appReview)/like", token: web.token)
            _ = try await app.send(.POST, "/api/v1/burger-map/reviews/\(appReview)/comments", json: ["text": "웹에서 남긴 댓글"], token: web.token)
            _ = try await app.send(.PUT, "/api/v1/burger-map/places/\(placeID)/marks/eaten", token: web.token)

            let feed = try await appUser.call(.GET, "/v1/posts?limit=21&product_id=\(Self.reviews)").object()
            let posts = try XCTUnwrap(feed["data"] as? [[String: Any]])
            XCTAssertEqual(posts.first?["post_id"] as? String, ObjectID.of(webReview), "newest first")
            XCTAssertEqual(posts.first?["title"] as? String, "웹에서 쓴 리뷰")
            XCTAssertEqual(posts.first?["price"] as? Int, 2)
            XCTAssertEqual(posts.first?["content1"] as? String, shopID)
            let appPost = try XCTUnwrap(posts.first { $0["post_id"] as? String == ObjectID.of(appReview) })
            XCTAssertEqual(appPost["likes"] as? [String], [ObjectID.of(web.id)])
            let comments = try XCTUnwrap(appPost["comments"] as? [[String: Any]])
            XCTAssertEqual(comments.map { $0["content"] as? String }, ["웹에서 남긴 댓글"])
            XCTAssertEqual((comments.first?["creator"] as? [String: Any])?["nick"] as? String, "웹리뷰어")

            // The shop's "comments" are its reviews, newest first: what the app's map sheet reads.
            let shopNow = try await appUser.call(.GET, "/v1/posts/\(shopID)").object()
            XCTAssertEqual((shopNow["comments"] as? [[String: Any]])?.compactMap { $0["content"] as? String },
                           [ObjectID.of(webReview), ObjectID.of(appReview)])
            XCTAssertEqual(shopNow["likes"] as? [String], [ObjectID.of(web.id)], "likes of a shop: who ate there")

            // A comment from the app shows on the web.
            let reply = try await appUser.call(.POST, "/v1/posts/\(ObjectID.of(webReview))/comments", json: ["content": "앱에서 단 답글"])
            XCTAssertEqual(reply.status, .ok, reply.text)
            let webComments = try await app.send(.GET, "/api/v1/burger-map/reviews/\(webReview)/comments", token: nil)
                .json(BurgerMapJSON.Page<BurgerMapJSON.Comment>.self)
            XCTAssertEqual(webComments.items.map(\.text), ["앱에서 단 답글"])
            XCTAssertEqual(webComments.items.first?.author.nickname, "앱리뷰어")
        }
    }

    /// The app looks a Kakao place up among all shops and makes it only when missing; we find it for
    /// it too, by the Kakao id (within 200 m) and by name within 20 m (a place the web added first).
    func testShopsAreFoundBeforeTheyAreMade() async throws {
        try await withLSLPApp { app in
            let client = try await LSLPClient.member(app, nick: "가게찾기")
            let first = try await client.addShop("중복 버거", kakaoID: "1111")
            let again = try await client.addShop("중복 버거", kakaoID: "1111", lon: 127.0286, lat: 37.4989)
            XCTAssertEqual(again["post_id"] as? String, first["post_id"] as? String, "the Kakao id names the place (within 200 m)")

            let web = try await app.member("웹가게")
            let webPlace = try await app.place(web.token, "웹 먼저 버거", lat: 37.5512, lon: 126.9882)
            let webShop = try await client.call(.GET, "/v1/posts/\(ObjectID.of(webPlace))").object()
            XCTAssertEqual(webShop["content5"] as? String, ObjectID.of(webPlace), "a place the app never met has its own id there")
            XCTAssertEqual(webShop["content4"] as? String, "", "present without a phone: the app drops a shop without it")
            let found = try await client.addShop("웹먼저버거", kakaoID: "2222", lon: 126.98825, lat: 37.55122)
            XCTAssertEqual(found["post_id"] as? String, ObjectID.of(webPlace), "the same name within 20 m (5 m)")
            XCTAssertEqual(found["content5"] as? String, "2222", "and the place takes the Kakao id")
            let places = try await BurgerPlace.query(on: app.db).filter(\.$kakaoID == "2222").count()
            XCTAssertEqual(places, 1)

            let before = try await BurgerPlace.query(on: app.db).count()
            let base: [String: Any] = ["title": "나쁜 버거", "content1": "127.0", "content2": "37.5", "content3": "서울", "content4": "",
                                       "content5": "3333", "product_id": Self.shops]
            for (field, value) in [("content1", "동쪽" as Any), ("content2", "91"), ("content5", "id with spaces"), ("title", ""),
                                   ("content3", String(repeating: "주", count: 121)), ("content4", "전화번호"), ("product_id", "SOME_OTHER_APP")] {
                var body = base
                body[field] = value
                let refused = try await client.call(.POST, "/v1/posts", json: body)
                XCTAssertEqual(refused.status, .badRequest, "\(field): \(refused.text)")
                XCTAssertNotNil(refused.lslpMessage, field)
            }
            for field in ["title", "content1", "content3", "product_id"] {
                var body = base
                body[field] = nil
                let refused = try await client.call(.POST, "/v1/posts", json: body)
                XCTAssertEqual(refused.status, .badRequest, field)
            }
            let after = try await BurgerPlace.query(on: app.db).count()
            XCTAssertEqual(after, before, "nothing refused was stored")
        }
    }

    /// Issue "real people", item 5: a Kakao place without a road address (`content3: ""`) was
    /// refused, so it could never be reviewed; a catalog place whose name differs from Kakao's by a
    /// branch suffix, spacing or punctuation became a second place beside it.
    func testShopsWithoutAnAddressOrWithAnotherSpellingOfTheirName() async throws {
        try await withLSLPApp { app in
            let client = try await LSLPClient.member(app, nick: "주소없음")
            let response = try await client.call(.POST, "/v1/posts", json: [
                "title": "골목 수제버거", "content": "#골목 수제버거", "content1": "127.0301", "content2": "37.4988", "content3": "",
                "content4": "", "content5": "4444", "product_id": Self.shops])
            XCTAssertEqual(response.status, .ok, response.text)
            XCTAssertEqual(try response.object()["content3"] as? String, "", "the app gets back what it sent")
            let registered = try await BurgerPlace.query(on: app.db).filter(\.$kakaoID == "4444").first()
            let place = try XCTUnwrap(registered)
            var visitor = CookieBrowser(app: app)
            let page = try await visitor.get("/map/places/\(try place.requireID())")
            XCTAssertTrue(page.text.contains("주소 정보 없음"), "the page says the address is unknown")
            let review = try await client.addReview(shop: try response.object().postID(), title: "주소 없어도 맛집")
            XCTAssertNotNil(review["post_id"], "and it can be reviewed")

            // Our catalog's spelling, then Kakao's: one place, which takes the Kakao id.
            let web = try await app.member("카탈로그")
            let catalog = try await app.place(web.token, "버거킹 서울역", lat: 37.5547, lon: 126.9707)
            for (name, kakaoID) in [("버거킹 서울역점", "5555"), ("버거킹(서울역 지점)", "5556"), ("BURGER KING 서울역", "5557")] {
                let shop = try await client.addShop(name, kakaoID: kakaoID, lon: 126.97073, lat: 37.55472)
                if name == "BURGER KING 서울역" {
                    XCTAssertNotEqual(shop["post_id"] as? String, ObjectID.of(catalog), "another name is another place")
                } else {
                    XCTAssertEqual(shop["post_id"] as? String, ObjectID.of(catalog), "\(name) is the catalog's place")
                }
            }
            let kept = try await BurgerPlace.find(catalog, on: app.db)
            XCTAssertEqual(kept?.kakaoID, "5555", "the first Kakao id the place met")
            // Far apart, the same spelling is two places.
            let elsewhere = try await client.addShop("버거킹 서울역점", kakaoID: "5558", lon: 126.99, lat: 37.57)
            XCTAssertNotEqual(elsewhere["post_id"] as? String, ObjectID.of(catalog))
        }
    }

    /// `limit` is a string up to 300000, `next` the cursor we gave (until `"0"`); bad values are 400.
    func testListsPageUntilZero() async throws {
        try await withLSLPApp { app in
            let client = try await LSLPClient.member(app, nick: "페이지")
            let shopID = try await client.addShop("페이지 버거", kakaoID: "5555").postID()
            var written: [String] = []
            for index in 0..<5 {
                written.append(try await client.addReview(shop: shopID, title: "리뷰 \(index)").postID())
            }
            for path in ["/v1/posts/users/\(try XCTUnwrap(client.userID))?product_id=\(Self.reviews)", "/v1/posts?product_id=\(Self.reviews)"] {
                var seen: [String] = []
                var next: String?
                for _ in 0..<200 {  // the catalog's reviews come after ours, on the everyone's list
                    let page = try await client.call(.GET, path + "&limit=2" + (next.map { "&next=\($0)" } ?? "")).object()
                    seen += (page["data"] as? [[String: Any]] ?? []).compactMap { $0["post_id"] as? String }
                    next = page["next_cursor"] as? String
                    if next == "0" { break }
                }
                XCTAssertEqual(next, "0")
                XCTAssertEqual(Array(seen.prefix(5)), written.reversed(), path)
                XCTAssertEqual(Set(seen).count, seen.count, "no post twice")
            }
            let all = try await client.call(.GET, "/v1/posts?limit=300000&product_id=\(Self.shops)")
            XCTAssertEqual(all.status, .ok)
            let ended = try await client.call(.GET, "/v1/posts?limit=21&next=0&product_id=\(Self.reviews)").object()
            XCTAssertEqual((ended["data"] as? [Any])?.count, 0)
            for query in ["limit=0", "limit=300001", "limit=abc", "limit=-1", "next=not-a-cursor", "product_id=OTHER", "product_id="] {
                let path = "/v1/posts?" + (query.hasPrefix("product_id") ? query : "product_id=\(Self.reviews)&\(query)")
                let refused = try await client.call(.GET, path)
                XCTAssertEqual(refused.status, .badRequest, query)
                XCTAssertNotNil(refused.lslpMessage)
            }
            let noProduct = try await client.call(.GET, "/v1/posts?limit=21")
            XCTAssertEqual(noProduct.status, .badRequest)
            let nobody = try await client.call(.GET, "/v1/posts/users/\(String(repeating: "0", count: 24))?product_id=\(Self.reviews)")
            XCTAssertEqual(nobody.status.code, 410)
        }
    }
}
