import Accounts
import Fluent
import Foundation
import Media
import Platform

/// A burger place on the map. Reviews keep `reviewCount` and `ratingSum` current, so lists and
/// rankings read them without counting rows.
package final class BurgerPlace: Model, @unchecked Sendable {
    package static let schema = "burger_places"

    @ID(key: .id) package var id: UUID?
    @Field(key: .string(BurgerMapStore.PlaceColumn.name)) package var name: String
    /// `BurgerMapRules.nameKey(name)`: how two registrations of one place are recognized.
    @Field(key: .string(BurgerMapStore.PlaceColumn.nameKey)) var nameKey: String
    @Field(key: .string(BurgerMapStore.PlaceColumn.address)) package var address: String
    @Field(key: .string(BurgerMapStore.PlaceColumn.lat)) package var lat: Double
    @Field(key: .string(BurgerMapStore.PlaceColumn.lon)) package var lon: Double
    @OptionalField(key: .string(BurgerMapStore.PlaceColumn.phone)) package var phone: String?
    @OptionalParent(key: .string(BurgerMapStore.PlaceColumn.createdBy)) var createdBy: User?
    @Field(key: .string(BurgerMapStore.PlaceColumn.reviewCount)) package var reviewCount: Int
    @Field(key: .string(BurgerMapStore.PlaceColumn.ratingSum)) var ratingSum: Int
    /// The newest photo of its visible reviews: the picture lists and pins show.
    @OptionalField(key: .string(BurgerMapStore.PlaceColumn.coverPhotoID)) var coverPhotoID: UUID?
    /// The Kakao place id the LookForRealBurger app registered it under (its dedupe key); nil for
    /// places added on the web until the app meets them.
    @OptionalField(key: .string(BurgerMapStore.PlaceColumn.kakaoID)) package var kakaoID: String?
    /// Made by an account younger than three days, and nobody else has reviewed there yet:
    /// shown as unverified (its name, phone and address are one newcomer's word).
    @Field(key: .string(BurgerMapStore.PlaceColumn.unverified)) package var unverified: Bool
    @Timestamp(key: .string(BurgerMapStore.PlaceColumn.createdAt), on: .create, format: .microseconds) package var createdAt: Date?

    package init() {}

    package init(name: String, address: String, at point: Coordinate, phone: String?, createdBy: UUID?) {
        self.name = name
        self.nameKey = BurgerMapRules.nameKey(name)
        self.address = address
        self.lat = point.lat
        self.lon = point.lon
        self.phone = phone
        self.$createdBy.id = createdBy
        self.reviewCount = 0
        self.ratingSum = 0
        self.unverified = false
    }

    package var coordinate: Coordinate { Coordinate(unchecked: lat, lon) }
}

/// A photo uploaded for a review. It belongs to its uploader until a review attaches it; a photo
/// no review took within a day is deleted (`BurgerPhotoSweeper`). Seeded photos have no file:
/// their `artwork` is drawn on request.
package final class BurgerPhoto: Model, @unchecked Sendable {
    package static let schema = "burger_photos"

    @ID(key: .id) package var id: UUID?
    @Parent(key: .string(BurgerMapStore.PhotoColumn.ownerID)) package var owner: User
    @OptionalField(key: .string(BurgerMapStore.PhotoColumn.reviewID)) package var reviewID: UUID?
    /// Order within its review (0 first).
    @Field(key: .string(BurgerMapStore.PhotoColumn.position)) package var position: Int
    /// The file in `app.files`; nil for seeded artwork.
    @OptionalField(key: .string(BurgerMapStore.PhotoColumn.fileKey)) package var fileKey: String?
    /// `emoji|#colour` of a generated picture (the seeded catalog).
    @OptionalField(key: .string(BurgerMapStore.PhotoColumn.artwork)) package var artwork: String?
    @Field(key: .string(BurgerMapStore.PhotoColumn.width)) package var width: Int
    @Field(key: .string(BurgerMapStore.PhotoColumn.height)) package var height: Int
    @Timestamp(key: .string(BurgerMapStore.PhotoColumn.createdAt), on: .create, format: .microseconds) package var createdAt: Date?

    package init() {}

    package init(id: UUID? = nil, ownerID: UUID, fileKey: String?, artwork: String? = nil, width: Int, height: Int) {
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
package final class BurgerReview: Model, @unchecked Sendable {
    package static let schema = "burger_reviews"

    @ID(key: .id) package var id: UUID?
    @Parent(key: .string(BurgerMapStore.ReviewColumn.placeID)) package var place: BurgerPlace
    @Parent(key: .string(BurgerMapStore.ReviewColumn.authorID)) package var author: User
    @Field(key: .string(BurgerMapStore.ReviewColumn.title)) package var title: String
    @Field(key: .string(BurgerMapStore.ReviewColumn.rating)) package var rating: Int
    @Field(key: .string(BurgerMapStore.ReviewColumn.text)) package var text: String
    @Field(key: .string(BurgerMapStore.ReviewColumn.likeCount)) package var likeCount: Int
    @Field(key: .string(BurgerMapStore.ReviewColumn.bookmarkCount)) package var bookmarkCount: Int
    @Field(key: .string(BurgerMapStore.ReviewColumn.commentCount)) package var commentCount: Int
    @Field(key: .string(BurgerMapStore.ReviewColumn.reportCount)) var reportCount: Int
    @OptionalField(key: .string(BurgerMapStore.ReviewColumn.hiddenAt)) var hiddenAt: Date?
    @Timestamp(key: .string(BurgerMapStore.ReviewColumn.createdAt), on: .create, format: .microseconds) package var createdAt: Date?
    @Timestamp(key: .string(BurgerMapStore.ReviewColumn.updatedAt), on: .update) package var updatedAt: Date?

    package init() {}

    package init(id: UUID? = nil, placeID: UUID, authorID: UUID, title: String, rating: Int, text: String) {
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
package final class BurgerReaction: Model, @unchecked Sendable {
    package static let schema = "burger_reactions"
    package enum Kind: String, Codable, Sendable, CaseIterable { case like, bookmark }

    @ID(key: .id) package var id: UUID?
    @Field(key: .string(BurgerPeopleStore.ReactionColumn.kind)) package var kind: String
    @Parent(key: .string(BurgerPeopleStore.ReactionColumn.reviewID)) package var review: BurgerReview
    @Parent(key: .string(BurgerPeopleStore.ReactionColumn.userID)) package var user: User
    @Timestamp(key: .string(BurgerPeopleStore.ReactionColumn.createdAt), on: .create, format: .microseconds) package var createdAt: Date?

    package init() {}
}

package final class BurgerComment: Model, @unchecked Sendable {
    package static let schema = "burger_comments"

    @ID(key: .id) package var id: UUID?
    @Parent(key: .string(BurgerMapStore.CommentColumn.reviewID)) package var review: BurgerReview
    @Parent(key: .string(BurgerMapStore.CommentColumn.authorID)) package var author: User
    @Field(key: .string(BurgerMapStore.CommentColumn.text)) package var text: String
    @Timestamp(key: .string(BurgerMapStore.CommentColumn.createdAt), on: .create, format: .microseconds) package var createdAt: Date?
    @Timestamp(key: .string(BurgerMapStore.CommentColumn.updatedAt), on: .update) package var updatedAt: Date?

    package init() {}

    package init(reviewID: UUID, authorID: UUID, text: String) {
        self.$review.id = reviewID
        self.$author.id = authorID
        self.text = text
    }
}

/// One account's report of one review (a second report by the same account changes nothing).
package final class BurgerReport: Model, @unchecked Sendable {
    package static let schema = "burger_reports"

    @ID(key: .id) package var id: UUID?
    @Parent(key: .string(BurgerMapStore.ReportColumn.reviewID)) package var review: BurgerReview
    @Parent(key: .string(BurgerMapStore.ReportColumn.reporterID)) var reporter: User
    @Field(key: .string(BurgerMapStore.ReportColumn.reason)) package var reason: String
    /// Set when an admin restored the review: the report no longer counts.
    @OptionalField(key: .string(BurgerMapStore.ReportColumn.dismissedAt)) var dismissedAt: Date?
    @Timestamp(key: .string(BurgerMapStore.ReportColumn.createdAt), on: .create) package var createdAt: Date?

    package init() {}
}

/// "Eaten here" and "want to go": one row per (kind, place, person).
package final class BurgerMark: Model, @unchecked Sendable {
    package static let schema = "burger_marks"
    package enum Kind: String, Codable, Sendable, CaseIterable { case eaten, want }

    @ID(key: .id) package var id: UUID?
    @Field(key: .string(BurgerPeopleStore.MarkColumn.kind)) package var kind: String
    @Parent(key: .string(BurgerPeopleStore.MarkColumn.placeID)) package var place: BurgerPlace
    @Parent(key: .string(BurgerPeopleStore.MarkColumn.userID)) package var user: User
    @Timestamp(key: .string(BurgerPeopleStore.MarkColumn.createdAt), on: .create, format: .microseconds) package var createdAt: Date?

    package init() {}
}

/// `follower` reads `followee`'s reviews in their feed.
final class BurgerFollow: Model, @unchecked Sendable {
    static let schema = "burger_follows"

    @ID(key: .id) var id: UUID?
    @Parent(key: .string(BurgerPeopleStore.FollowColumn.followerID)) var follower: User
    @Parent(key: .string(BurgerPeopleStore.FollowColumn.followeeID)) var followee: User
    @Timestamp(key: .string(BurgerPeopleStore.FollowColumn.createdAt), on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}
