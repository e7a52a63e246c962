import Accounts
@testable import BurgerMap
import BurgerMapTesting
import Fluent
import LookForRealBurgerApp
import Media
import Platform
import WhatWeEatTesting
import XCTVapor

/// The catalog a new install's map starts with: real-looking places in three cities, reviews by
/// seed accounts nobody can sign in to, and generated photos that are served as SVG.
final class BurgerMapCatalogTests: XCTestCase {
    struct Places: Decodable { let items: [BurgerMapJSON.Place]; let clusters: [Cluster] }
    struct Cluster: Decodable { let count: Int }

    func testANewInstallHasSixtyPlacesInThreeCitiesWithReviews() async throws {
        try await withTestApp { app in
            let cities: [(name: String, bbox: String)] = [
                ("서울", "126.70,37.40,127.25,37.72"),
                ("부산", "128.85,35.00,129.30,35.30"),
                ("제주", "126.10,33.10,126.99,33.60"),
            ]
            var total = 0
            for city in cities {
                let response = try await app.send(.GET, "/api/v1/burger-map/places?bbox=\(city.bbox)")
                XCTAssertEqual(response.status, .ok, response.text)
                let places = try response.json(Places.self)
                XCTAssertEqual(places.clusters.count, 0)
                XCTAssertGreaterThanOrEqual(places.items.count, 5, "\(city.name) has places")
                for place in places.items {
                    XCTAssertTrue(place.address.hasPrefix(city.name), "\(place.name) is in \(city.name): \(place.address)")
                    XCTAssertGreaterThan(place.reviewCount, 0, "\(place.name) has reviews")
                    XCTAssertNotNil(place.averageRating)
                    XCTAssertNotNil(place.photoURL, "\(place.name) has a picture")
                }
                total += places.items.count
            }
            XCTAssertGreaterThanOrEqual(total, 60)
            let stored = try await BurgerPlace.query(on: app.db).count()
            XCTAssertEqual(total, stored, "every seeded place is in one of the three cities")
            let reviews = try await app.allPages("/api/v1/burger-map/reviews", BurgerMapJSON.Review.self, id: \.id)
            XCTAssertGreaterThanOrEqual(reviews.count, 120)
            XCTAssertGreaterThanOrEqual(Set(reviews.map(\.author.id)).count, 10, "reviews by a dozen seed accounts")
            XCTAssertTrue(reviews.allSatisfy { (1...5).contains($0.photos.count) && $0.updatedAt == nil })
        }
    }

    func testSearchingCheeseFindsTheDoubleCheeseBurgerHouse() async throws {
        try await withTestApp { app in
            let response = try await app.send(.GET, "/api/v1/burger-map/places/search?q=%EC%B9%98%EC%A6%88")  // 치즈
            XCTAssertEqual(response.status, .ok, response.text)
            let names = try response.json(BurgerMapJSON.Page<BurgerMapJSON.Place>.self).items.map(\.name)
            XCTAssertTrue(names.contains("더블치즈버거 하우스"), "\(names)")
            XCTAssertTrue(names.allSatisfy { $0.contains("치즈") }, "\(names)")
            // Three characters and more go through the trigram index.
            let trigram = try await app.send(.GET, "/api/v1/burger-map/places/search?q=%EC%B9%98%EC%A6%88%EB%B2%84")  // 치즈버
                .json(BurgerMapJSON.Page<BurgerMapJSON.Place>.self).items.map(\.name)
            XCTAssertTrue(trigram.contains("더블치즈버거 하우스"), "\(trigram)")
            XCTAssertFalse(trigram.contains("성수동 치즈멜트 키친"), "\(trigram)")
        }
    }

    /// Issue 60: "햄버거", "버거", "수제버거" and "burger" name what every place here serves, so they
    /// find every place (ranked), where they used to find the few with the word in their name.
    func testTheWordsForWhatEveryPlaceServesFindEveryPlace() async throws {
        try await withTestApp { app in
            let all = try await app.rowCount("burger_places")
            for word in ["햄버거", "버거", "수제 버거", "Burger"] {
                let encoded = word.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let found = try await app.send(.GET, "/api/v1/burger-map/places/search?q=\(encoded)&limit=100")
                    .json(BurgerMapJSON.Page<BurgerMapJSON.Place>.self).items
                XCTAssertEqual(found.count, all, word)
                let near = try await app.send(.GET, "/api/v1/burger-map/places?near=37.5665,126.9780&q=\(encoded)&limit=5")
                    .json(BurgerMapJSON.Page<BurgerMapJSON.Place>.self).items
                XCTAssertEqual(near.count, 5, "\(word): the nearest of every place")
            }
            let cheese = try await app.send(.GET, "/api/v1/burger-map/places/search?q=%EC%B9%98%EC%A6%88&limit=100")
                .json(BurgerMapJSON.Page<BurgerMapJSON.Place>.self).items
            XCTAssertLessThan(cheese.count, all, "other words still narrow the search")
        }
    }

    func testSeededPhotosAreServedAsSVG() async throws {
        try await withTestApp { app in
            let page = try await app.send(.GET, "/api/v1/burger-map/reviews?limit=5").json(BurgerMapJSON.Page<BurgerMapJSON.Review>.self)
            XCTAssertEqual(page.items.count, 5)
            for review in page.items {
                let photo = try XCTUnwrap(review.photos.first)
                XCTAssertEqual(photo.url, "/images/burger-map/photos/\(photo.id.uuidString.lowercased()).svg")
                XCTAssertEqual([photo.width, photo.height], [800, 600])
                let image = try await app.send(.GET, photo.url)
                XCTAssertEqual(image.status, .ok)
                XCTAssertEqual(image.headers.contentType?.type, "image")
                XCTAssertEqual(image.headers.contentType?.subType, "svg+xml")
                XCTAssertTrue(image.text.hasPrefix("<svg"), String(image.text.prefix(40)))
            }
            let unknown = try await app.send(.GET, "/images/burger-map/photos/\(UUID()).svg")
            XCTAssertEqual(unknown.status, .notFound)
        }
    }

    func testSeedReviewersCannotSignIn() async throws {
        try await withTestApp { app in
            let reviewer = try await User.query(on: app.db).filter(\.$email == BurgerPlacesCatalog.reviewerEmail(0)).first()
            XCTAssertNotNil(reviewer, "the seed reviewers exist")
            for password in ["password1", "burgerburger", BurgerPlacesCatalog.reviewerEmail(0)] {
                let response = try await app.send(.POST, "/api/v1/auth/login",
                                                  json: ["email": BurgerPlacesCatalog.reviewerEmail(0), "password": password])
                XCTAssertEqual(response.status, .unauthorized, "\(password): \(response.text)")
                XCTAssertNil(try? response.object()["accessToken"])
            }
        }
    }

    func testRemovingTheCatalogEmptiesTheMap() async throws {
        try await withTestApp { app in
            // Read the map first, so its in-memory index is loaded when the catalog goes.
            let before = try await app.send(.GET, "/api/v1/burger-map/places?bbox=126.70,37.40,127.25,37.72").json(Places.self)
            XCTAssertGreaterThan(before.items.count, 0)
            try await app.removeBurgerCatalog()
            let seoul = try await app.send(.GET, "/api/v1/burger-map/places?bbox=126.70,37.40,127.25,37.72").json(Places.self)
            XCTAssertEqual(seoul.items.count, 0)
            let reviews = try await app.send(.GET, "/api/v1/burger-map/reviews").json(BurgerMapJSON.Page<BurgerMapJSON.Review>.self)
            XCTAssertEqual(reviews.items.count, 0)
            let search = try await app.send(.GET, "/api/v1/burger-map/places/search?q=%EC%B9%98%EC%A6%88%EB%B2%84")
                .json(BurgerMapJSON.Page<BurgerMapJSON.Place>.self)
            XCTAssertEqual(search.items.count, 0, "the search index follows")
        }
    }

    /// The LookForRealBurger app cannot draw SVG: every seeded photo has its JPEG drawn ahead
    /// (`Resources/catalogs/draw_burger_photos.py`), and the app's posts name it, never an SVG.
    func testEverySeededPhotoHasAJPEGForTheApp() async throws {
        try await withLSLPApp { app in
            let drawnIDs = try await BurgerPhoto.query(on: app.db).filter(\.$artwork != nil).all().map { try $0.requireID() }
            XCTAssertGreaterThan(drawnIDs.count, 100)
            let store = BurgerMapStore(database: app.db, environment: app.burgerMapEnvironment)
            for id in drawnIDs {
                let found = try await store.photo(id)
                let photo = try XCTUnwrap(found)
                let path = try XCTUnwrap(BurgerMapImages.jpeg(of: photo, resources: app.directory.resourcesDirectory), "\(photo.artwork ?? "") #\(photo.position)")
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                XCTAssertEqual(try ImageCleaner.clean(bytes).type, .jpeg)
            }
            let client = try await LSLPClient.member(app, nick: "사진보기")
            let posts = try await client.call(.GET, "/v1/posts?product_id=LFRB_BURGER_HOUSE_REVIEW_TEST&limit=50").object()
            let files = try XCTUnwrap(posts["data"] as? [[String: Any]]).flatMap { $0["files"] as? [String] ?? [] }
            XCTAssertFalse(files.isEmpty)
            XCTAssertTrue(files.allSatisfy { $0.hasSuffix(".jpg") }, "\(files.filter { !$0.hasSuffix(".jpg") })")
            let first = try await client.call(.GET, "/v1/\(try XCTUnwrap(files.first))")
            XCTAssertEqual(first.headers.contentType, .jpeg)
        }
    }
}
