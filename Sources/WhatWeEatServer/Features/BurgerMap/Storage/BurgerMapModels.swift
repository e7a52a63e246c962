import Fluent
import Foundation

/// A burger place on the map. Reviews keep `reviewCount` and `ratingSum` current, so lists and
/// rankings read them without counting rows.
final class BurgerPlace: Model, @unchecked Sendable {
    static let schema = "burger_places"

    @ID(key: .id) var id: UUID?
    @Field(key: "name") var name: String
    /// `BurgerMapRules.nameKey(name)`: how two registrations of one place are recognized.
    @Field(key: "name_key") var nameKey: String
    @Field(key: "address") var address: String
    @Field(key: "lat") var lat: Double
    @Field(key: "lon") var lon: Double
    @OptionalField(key: "phone") var phone: String?
    @OptionalParent(key: "created_by") var createdBy: User?
    @Field(key: "review_count") var reviewCount: Int
    @Field(key: "rating_sum") var ratingSum: Int
    /// The newest photo of its visible reviews: the picture lists and pins show.
    @OptionalField(key: "cover_photo_id") var coverPhotoID: UUID?
    /// The Kakao place id the LookForRealBurger app registered it under (its dedupe key); nil for
    /// places added on the web until the app meets them.
    @OptionalField(key: "kakao_id") var kakaoID: String?
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

    init() {}

    init(name: String, address: String, at point: Coordinate, phone: String?, createdBy: UUID?) {
        self.name = name
        self.nameKey = BurgerMapRules.nameKey(name)
        self.address = address
        self.lat = point.lat
        self.lon = point.lon
        self.phone = phone
        self.$createdBy.id = createdBy
        self.reviewCount = 0
        self.ratingSum = 0
    }

    var coordinate: Coordinate { Coordinate(unchecked: lat, lon) }
}

/// A photo uploaded for a review. It belongs to its uploader until a review attaches it; a photo
/// no review took within a day is deleted (`BurgerPhotoSweeper`). Seeded photos have no file:
/// their `artwork` is drawn on request.
final class BurgerPhoto: Model, @unchecked Sendable {
    static let schema = "burger_photos"

    @ID(key: .id) var id: UUID?
    @Parent(key: "owner_id") var owner: User
    @OptionalField(key: "review_id") var reviewID: UUID?
    /// Order within its review (0 first).
    @Field(key: "position") var position: Int
    /// The file in `app.files`; nil for seeded artwork.
    @OptionalField(key: "file_key") var fileKey: String?
    /// `emoji|#colour` of a generated picture (the seeded catalog).
    @OptionalField(key: "artwork") var artwork: String?
    @Field(key: "width") var width: Int
    @Field(key: "height") var height: Int
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

    init() {}

    init(id: UUID? = nil, ownerID: UUID, fileKey: String?, artwork: String? = nil, width: Int, height: Int) {
        self.id = id
        self.$owner.id = ownerID
        self.fileKey = fileKey
        self.artwork = artwork
        self.width = width
        self.height = height
        self.position = 0
    }
}

/// A review of a place: a title, 1–5 stars, text and 1–5 photos. The counters are kept by the
/// writes that change them, so lists never count rows. Three reports hide it (`hiddenAt`) until
/// an admin restores it.
final class BurgerReview: Model, @unchecked Sendable {
    static let schema = "burger_reviews"

    @ID(key: .id) var id: UUID?
    @Parent(key: "place_id") var place: BurgerPlace
    @Parent(key: "author_id") var author: User
    @Field(key: "title") var title: String
    @Field(key: "rating") var rating: Int
    @Field(key: "text") var text: String
    @Field(key: "like_count") var likeCount: Int
    @Field(key: "bookmark_count") var bookmarkCount: Int
    @Field(key: "comment_count") var commentCount: Int
    @Field(key: "report_count") var reportCount: Int
    @OptionalField(key: "hidden_at") var hiddenAt: Date?
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update) var updatedAt: Date?

    init() {}

    init(id: UUID? = nil, placeID: UUID, authorID: UUID, title: String, rating: Int, text: String) {
        self.id = id
        self.$place.id = placeID
        self.$author.id = authorID
        self.title = title
        self.rating = rating
        self.text = text
        self.likeCount = 0
        self.bookmarkCount = 0
        self.commentCount = 0
        self.reportCount = 0
    }
}

/// A like or a bookmark: one row per (kind, review, person).
final class BurgerReaction: Model, @unchecked Sendable {
    static let schema = "burger_reactions"
    enum Kind: String, Codable, Sendable, CaseIterable { case like, bookmark }

    @ID(key: .id) var id: UUID?
    @Field(key: "kind") var kind: String
    @Parent(key: "review_id") var review: BurgerReview
    @Parent(key: "user_id") var user: User
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}

final class BurgerComment: Model, @unchecked Sendable {
    static let schema = "burger_comments"

    @ID(key: .id) var id: UUID?
    @Parent(key: "review_id") var review: BurgerReview
    @Parent(key: "author_id") var author: User
    @Field(key: "text") var text: String
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update) var updatedAt: Date?

    init() {}

    init(reviewID: UUID, authorID: UUID, text: String) {
        self.$review.id = reviewID
        self.$author.id = authorID
        self.text = text
    }
}

/// One account's report of one review (a second report by the same account changes nothing).
final class BurgerReport: Model, @unchecked Sendable {
    static let schema = "burger_reports"

    @ID(key: .id) var id: UUID?
    @Parent(key: "review_id") var review: BurgerReview
    @Parent(key: "reporter_id") var reporter: User
    @Field(key: "reason") var reason: String
    /// Set when an admin restored the review: the report no longer counts.
    @OptionalField(key: "dismissed_at") var dismissedAt: Date?
    @Timestamp(key: "created_at", on: .create) var createdAt: Date?

    init() {}
}

/// "Eaten here" and "want to go": one row per (kind, place, person).
final class BurgerMark: Model, @unchecked Sendable {
    static let schema = "burger_marks"
    enum Kind: String, Codable, Sendable, CaseIterable { case eaten, want }

    @ID(key: .id) var id: UUID?
    @Field(key: "kind") var kind: String
    @Parent(key: "place_id") var place: BurgerPlace
    @Parent(key: "user_id") var user: User
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}

/// `follower` reads `followee`'s reviews in their feed.
final class BurgerFollow: Model, @unchecked Sendable {
    static let schema = "burger_follows"

    @ID(key: .id) var id: UUID?
    @Parent(key: "follower_id") var follower: User
    @Parent(key: "followee_id") var followee: User
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}

/// A donation made from the LookForRealBurger app's "후원하기", once the payment provider confirmed
/// it; the provider's payment id is unique, so one payment counts once.
final class BurgerDonation: Model, @unchecked Sendable {
    static let schema = "burger_donations"

    @ID(key: .id) var id: UUID?
    @OptionalParent(key: "user_id") var user: User?
    @Field(key: "payment_id") var paymentID: String
    @Field(key: "merchant_uid") var merchantUID: String
    @Field(key: "amount") var amount: Int
    /// `portone` or `test`.
    @Field(key: "gateway") var gateway: String
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

    init() {}

    init(userID: UUID, paymentID: String, merchantUID: String, amount: Int, gateway: String) {
        self.$user.id = userID
        self.paymentID = paymentID
        self.merchantUID = merchantUID
        self.amount = amount
        self.gateway = gateway
    }
}
