import Accounts
import Fluent
import Foundation
import Platform
import SQLKit
import Vapor

/// `whatweeat seed --synthetic --places N --reviews M`: fills the map with generated places,
/// reviewers, reviews (one generated picture each) and a reader who follows 500 of the
/// reviewers, for scale benchmarks (docs/PERFORMANCE.md). Rows go in by multi-row inserts in
/// large transactions; the places' counters and covers are computed before they are written.
/// The data is random but repeatable (`seed` fixes the generator).
struct BurgerMapSynthetic {
    static let readerEmail = "synthetic-reader@seed.whatweeat.invalid"
    /// How many reviewers the reader follows (the feed benchmark's "someone following 500 people").
    static let readerFollows = 500

    let places: Int
    let reviews: Int
    let users: Int
    let seed: UInt64
    let progress: (_ stage: String, _ done: Int, _ total: Int) -> Void

    /// City centres and their share of the places: most burgers are in Seoul.
    static let cities: [(lat: Double, lon: Double, spread: Double, share: Double, name: String)] = [
        (37.5510, 126.9880, 0.07, 0.6, "서울"), (35.1600, 129.0600, 0.05, 0.25, "부산"), (33.4900, 126.5000, 0.04, 0.15, "제주"),
    ]

    /// Reviewers get `passwordHash` (made of a secret nobody keeps); the reader gets its own.
    func fill(_ database: any Database, application: Application, passwordHash: String, readerPasswordHash: String) async throws {
        var random = SplitMix(seed: seed)
        let now = application.burgerMapEnvironment.now()

        // Reviewers, and the reader.
        var userIDs: [UUID] = []
        try await inBatches(database, count: users + 1, stage: "users") { range, rows in
            for index in range {
                let id = UUID()
                let isReader = index == users
                if !isReader { userIDs.append(id) }
                let nickname = isReader ? "synthetic-reader" : "reviewer-\(seed)-\(index)"
                rows.append(AccountStore.syntheticRow(id: id, email: isReader ? Self.readerEmail : "reviewer-\(seed)-\(index)@synthetic.whatweeat.invalid",
                                                      passwordHash: isReader ? readerPasswordHash : passwordHash, nickname: nickname,
                                                      createdAt: Self.microseconds(now)))
            }
        } insert: { sql, rows in
            try await AccountStore.insertSynthetic(rows, on: sql)
        }
        let readerID = try await AccountStore(database: database, application: application).user(email: Self.readerEmail)?.requireID()

        // Places: positions first; counters come from the reviews below.
        var placeIDs: [UUID] = []
        var placePoints: [Coordinate] = []
        for _ in 0..<places {
            let city = Self.pickCity(&random)
            placeIDs.append(UUID())
            placePoints.append(Coordinate(unchecked: min(89, max(-89, city.lat + random.gaussian() * city.spread)),
                                          min(179, max(-179, city.lon + random.gaussian() * city.spread * 1.2))))
        }
        // Who reviews what, decided first: the places' counters and covers are written with them,
        // and places go in before the reviews that refer to them.
        var reviewCount = [Int](repeating: 0, count: places)
        var ratingSum = [Int](repeating: 0, count: places)
        var cover = [UUID?](repeating: nil, count: places)
        var reviewPlace = [Int32](repeating: 0, count: reviews)
        var reviewRating = [UInt8](repeating: 0, count: reviews)
        var reviewPhoto = [UUID](repeating: UUID(), count: reviews)
        for index in 0..<reviews {
            let place = Int(random.next() % UInt64(places))
            let rating = [5, 5, 4, 4, 4, 3, 3, 2, 1][Int(random.next() % 9)]
            reviewPlace[index] = Int32(place)
            reviewRating[index] = UInt8(rating)
            reviewPhoto[index] = UUID()
            reviewCount[place] += 1
            ratingSum[place] += rating
            cover[place] = reviewPhoto[index]
        }

        try await inBatches(database, count: places, stage: "places") { range, rows in
            for index in range {
                let name = "합성 버거 \(index + 1)호점"
                rows.append([SQLBind(placeIDs[index]), SQLBind(name), SQLBind(BurgerMapRules.nameKey(name)),
                             SQLBind("합성시 버거로 \(index + 1)"), SQLBind(placePoints[index].lat), SQLBind(placePoints[index].lon),
                             SQLBind(reviewCount[index]), SQLBind(ratingSum[index]), SQLBind(cover[index]), SQLBind(Self.microseconds(now))])
            }
        } insert: { sql, rows in
            typealias P = BurgerMapStore.PlaceColumn
            try await SyntheticRows.insert(into: BurgerPlace.schema, [P.id, P.name, P.nameKey, P.address, P.lat, P.lon, P.reviewCount, P.ratingSum,
                                                                      P.coverPhotoID, P.createdAt], rows, on: sql)
        }

        // Reviews, oldest first over the last two years, each with one generated picture.
        let span = 2 * 365 * 86_400.0
        let titles = ["패티가 두꺼워요", "번이 촉촉해요", "감튀 맛집", "가성비 최고", "소스가 특별해요", "웨이팅 있어요", "재방문 의사 있음", "치즈가 듬뿍"]
        let artworks = ["🍔|#FDE68A", "🧀|#FEF3C7", "🍟|#FECACA", "🥓|#FED7AA"]
        try await inBatches(database, count: reviews, stage: "reviews") { range, rows in
            for index in range {
                let author = userIDs[Int(random.next() % UInt64(userIDs.count))]
                let rating = Int(reviewRating[index])
                let written = Self.microseconds(now.addingTimeInterval(-span + span * Double(index) / Double(max(1, reviews))))
                rows.append([SQLBind(UUID()), SQLBind(placeIDs[Int(reviewPlace[index])]), SQLBind(author), SQLBind(titles[index % titles.count]),
                             SQLBind(rating), SQLBind("합성 리뷰 \(index + 1): 별 \(rating)개."), SQLBind(0), SQLBind(0), SQLBind(0),
                             SQLBind(0), SQLBind(written), SQLBind(written),
                             // The photo's columns ride along and are split off below.
                             SQLBind(reviewPhoto[index]), SQLBind(artworks[index % artworks.count])])
            }
        } insert: { sql, rows in
            typealias R = BurgerMapStore.ReviewColumn
            typealias F = BurgerMapStore.PhotoColumn
            try await SyntheticRows.insert(into: BurgerReview.schema, [R.id, R.placeID, R.authorID, R.title, R.rating, R.text, R.likeCount, R.bookmarkCount,
                                                                       R.commentCount, R.reportCount, R.createdAt, R.updatedAt],
                                           rows.map { Array($0.prefix(12)) }, on: sql)
            try await SyntheticRows.insert(into: BurgerPhoto.schema, [F.id, F.ownerID, F.reviewID, F.position, F.artwork, F.width, F.height, F.createdAt],
                                           rows.map { [$0[12], $0[2], $0[0], SQLBind(0), $0[13], SQLBind(800), SQLBind(600), $0[10]] }, on: sql)
        }

        // The reader follows the first 500 reviewers.
        if let readerID {
            let followed = Array(userIDs.prefix(Self.readerFollows))
            try await inBatches(database, count: followed.count, stage: "follows") { range, rows in
                for index in range {
                    rows.append([SQLBind(UUID()), SQLBind(readerID), SQLBind(followed[index]), SQLBind(Self.microseconds(now))])
                }
            } insert: { sql, rows in
                try await SyntheticRows.insert(into: BurgerFollow.schema, [BurgerPeopleStore.FollowColumn.id, BurgerPeopleStore.FollowColumn.followerID,
                                                                    BurgerPeopleStore.FollowColumn.followeeID, BurgerPeopleStore.FollowColumn.createdAt],
                                                rows, on: sql)
            }
        }
    }

    /// Builds rows a chunk at a time and inserts them, 500 rows a statement and 20,000 a transaction.
    private func inBatches(_ database: any Database, count: Int, stage: String, build: (Range<Int>, inout [[any SQLExpression]]) throws -> Void,
                           insert: @escaping @Sendable (any SQLDatabase, [[any SQLExpression]]) async throws -> Void) async throws {
        var start = 0
        progress(stage, 0, count)
        while start < count {
            let end = min(count, start + 20_000)
            var rows: [[any SQLExpression]] = []
            try build(start..<end, &rows)
            let chunks = stride(from: 0, to: rows.count, by: 500).map { Array(rows[$0..<min(rows.count, $0 + 500)]) }
            try await database.writeTransaction { transaction in
                for chunk in chunks { try await insert(transaction.sql, chunk) }
            }
            start = end
            progress(stage, start, count)
        }
    }

    /// One multi-row INSERT.
    static func pickCity(_ random: inout SplitMix) -> (lat: Double, lon: Double, spread: Double, share: Double, name: String) {
        var roll = random.unit()
        for city in cities {
            if roll < city.share { return city }
            roll -= city.share
        }
        return cities[0]
    }

    static func microseconds(_ date: Date) -> Date {
        Date(timeIntervalSinceReferenceDate: (date.timeIntervalSinceReferenceDate * 1e6).rounded() / 1e6)
    }

    init(places: Int, reviews: Int, users: Int, seed: UInt64,
                 progress: @escaping (_ stage: String, _ done: Int, _ total: Int) -> Void) {
        self.places = places
        self.reviews = reviews
        self.users = users
        self.seed = seed
        self.progress = progress
    }
}
