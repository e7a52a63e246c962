import Accounts
import BurgerMap
package import Fluent
import LookForRealBurgerApp
import Notifications
import Platform
package import WhatWeEatTesting
package import XCTVapor

extension Application {
    /// A member whose account is old enough for its reports to count towards hiding a review
    /// (`BurgerMapService.reporterStandingAge`).
    package func seasonedMember(_ nickname: String) async throws -> Member {
        let member = try await self.member(nickname)
        try await age(member, by: BurgerMapService.reporterStandingAge + 60)
        return member
    }

    /// `POST /api/v1/burger-map/photos` with these parts as multipart/form-data.
    package func uploadPhoto(_ parts: [UploadPart], token: String?) async throws -> TestingHTTPResponse {
        let (body, contentType) = UploadPart.multipart(parts)
        return try await send(.POST, "/api/v1/burger-map/photos", body: body, contentType: contentType, token: token)
    }

    /// Uploads a PNG (different bytes for each seed) and returns the photo's id.
    package func photo(_ token: String, seed: Int = Int.random(in: 0..<1_000_000)) async throws -> UUID {
        let response = try await uploadPhoto([UploadPart(data: TestImages.png(seed: seed))], token: token)
        XCTAssertEqual(response.status, .created, response.text)
        return try response.json(BurgerMapJSON.Photo.self).id
    }

    /// Registers a place and returns its id.
    package func place(_ token: String, _ name: String = "테스트 버거 \(UUID().uuidString.prefix(6))", lat: Double = 37.5512, lon: Double = 126.9882) async throws -> UUID {
        let response = try await send(.POST, "/api/v1/burger-map/places",
                                      json: BurgerMapJSON.NewPlace(name: name, address: "서울 중구 테스트로 1", lat: lat, lon: lon), token: token)
        XCTAssertEqual(response.status, .created, response.text)
        return try XCTUnwrap(UUID(uuidString: try XCTUnwrap(try response.object()["id"] as? String)))
    }

    /// Writes a review (uploading a fresh photo unless given some) and returns the response.
    package func postReview(_ token: String, place: UUID, title: String = "맛있는 버거", rating: Int = 4, text: String = "패티가 촉촉해요.",
                    photos: [UUID]? = nil) async throws -> TestingHTTPResponse {
        var photoIDs = photos ?? []
        if photos == nil { photoIDs = [try await photo(token)] }
        return try await send(.POST, "/api/v1/burger-map/reviews",
                              json: BurgerMapJSON.NewReview(placeId: place, title: title, rating: rating, text: text, photoIds: photoIDs), token: token)
    }

    /// Writes a review and returns its id.
    package func review(_ token: String, place: UUID, title: String = "맛있는 버거", rating: Int = 4, photos: [UUID]? = nil) async throws -> UUID {
        let response = try await postReview(token, place: place, title: title, rating: rating, photos: photos)
        XCTAssertEqual(response.status, .created, response.text)
        return try response.json(BurgerMapJSON.Review.self).id
    }
}

/// The map's JSON as the tests read and write it.
package enum BurgerMapJSON {
    package struct NewPlace: Encodable {
        package let name: String, address: String, lat: Double, lon: Double

        package init(name: String, address: String, lat: Double, lon: Double) {
            (self.name, self.address, self.lat, self.lon) = (name, address, lat, lon)
        }
    }

    package struct NewReview: Encodable {
        package let placeId: UUID, title: String, rating: Int, text: String, photoIds: [UUID]

        package init(placeId: UUID, title: String, rating: Int, text: String, photoIds: [UUID]) {
            (self.placeId, self.title, self.rating, self.text, self.photoIds) = (placeId, title, rating, text, photoIds)
        }
    }

    package struct Photo: Decodable { package let id: UUID; package let url: String; package let width: Int; package let height: Int }
    package struct PlaceRef: Decodable { package let id: UUID; package let name: String }
    package struct Person: Decodable { package let id: UUID; package let nickname: String; package let profileImageURL: String? }
    package struct Review: Decodable {
        package let id: UUID
        package let place: PlaceRef
        package let author: Person
        package let title: String
        package let rating: Int
        package let text: String
        package let photos: [Photo]
        package let likeCount: Int
        package let bookmarkCount: Int
        package let commentCount: Int
        package let likedByMe: Bool
        package let bookmarkedByMe: Bool
        package let hidden: Bool
        package let createdAt: Date
        package let updatedAt: Date?
    }
    package struct Place: Decodable {
        package let id: UUID
        package let name: String
        package let address: String
        package let reviewCount: Int
        package let averageRating: Double?
        package let photoURL: String?
    }
    package struct PlaceDetail: Decodable {
        package let id: UUID
        package let reviewCount: Int
        package let averageRating: Double?
        package let photoURL: String?
        package let eatenCount: Int
        package let wantCount: Int
        package let myMarks: [String]
    }
    package struct Comment: Decodable { package let id: UUID; package let reviewId: UUID; package let author: Person; package let text: String; package let updatedAt: Date? }
    package struct Profile: Decodable {
        package let id: UUID
        package let nickname: String
        package let reviewCount: Int
        package let followerCount: Int
        package let followingCount: Int
        package let eatenCount: Int
        package let followedByMe: Bool
    }
    package struct Page<Item: Decodable>: Decodable { package let items: [Item]; package let nextCursor: String? }
}

extension Application {
    /// Reads every page of a list (`limit` per page), failing on a page that repeats an item.
    package func allPages<Item: Decodable>(_ path: String, _ type: Item.Type, limit: Int = 100, token: String? = nil,
                                   id: (Item) -> UUID) async throws -> [Item] {
        var items: [Item] = []
        var seen: Set<UUID> = []
        var cursor: String?
        let separator = path.contains("?") ? "&" : "?"
        for _ in 0..<1_000 {
            let query = "\(separator)limit=\(limit)" + (cursor.map { "&cursor=\($0)" } ?? "")
            let response = try await send(.GET, path + query, token: token)
            XCTAssertEqual(response.status, .ok, "\(path): \(response.text)")
            let page = try response.json(BurgerMapJSON.Page<Item>.self)
            XCTAssertLessThanOrEqual(page.items.count, limit)
            for item in page.items { XCTAssertTrue(seen.insert(id(item)).inserted, "\(path) repeats \(id(item))") }
            items += page.items
            guard let next = page.nextCursor else { return items }
            cursor = next
        }
        XCTFail("\(path) never ends")
        return items
    }

    /// The status a GET of `path` answers.
    package func status(_ path: String, token: String? = nil) async throws -> HTTPStatus {
        try await send(.GET, path, token: token).status
    }

    package func reviewCount() async throws -> Int { try await BurgerReview.query(on: db).count() }

    package func placeDetail(_ id: UUID, token: String? = nil) async throws -> BurgerMapJSON.PlaceDetail {
        let response = try await send(.GET, "/api/v1/burger-map/places/\(id)", token: token)
        XCTAssertEqual(response.status, .ok, response.text)
        return try response.json(BurgerMapJSON.PlaceDetail.self)
    }
}

extension Application {
    /// Empties the burger map of the catalog every test app is seeded with (its places, reviews,
    /// photos and reactions, and the seed reviewers' accounts), for tests that count what they add.
    /// Children are deleted before parents, so it holds whether or not the database cascades.
    package func removeBurgerCatalog() async throws {
        try await db.transaction { database in
            try await BurgerReaction.query(on: database).delete()
            try await BurgerComment.query(on: database).delete()
            try await BurgerReport.query(on: database).delete()
            try await BurgerPhoto.query(on: database).delete()
            try await BurgerReview.query(on: database).delete()
            try await BurgerMark.query(on: database).delete()
            try await BurgerPlace.query(on: database).delete()
            try await User.query(on: database).filter(\.$email, .custom("LIKE"), "burger-reviewer-%@seed.whatweeat.invalid").delete()
        }
        // The map's in-memory index, when a request has loaded it, learns of it as of any change
        // made behind the service's back (otherwise it loads from the emptied tables on first
        // use), and cached lists are dropped.
        if placeIndex.isLoaded { try await placeIndex.reload(from: BurgerMapStore(database: db, environment: self.burgerMapEnvironment)) }
        burgerMapCache.invalidate()
        let places = try await BurgerPlace.query(on: db).count()
        let reviews = try await BurgerReview.query(on: db).count()
        XCTAssertEqual([places, reviews], [0, 0], "the burger catalog is gone")
    }
}
