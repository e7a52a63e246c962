package import Accounts
package import Fluent
import Foundation
import Media
package import Platform

/// A burger place on the map. Reviews keep `reviewCount` and `ratingSum` current, so lists and
/// rankings read them without counting rows.
package final class BurgerPlace: Model, @unchecked Sendable {
    package static let schema = "burger_places"

    @ID(key: .id) package var id: UUID?
    @Field(key: BurgerMapStore.PlaceColumn.name.fieldKey) package var name: String
    /// `BurgerMapRules.nameKey(name)`: how two registrations of one place are recognized.
    @Field(key: BurgerMapStore.PlaceColumn.nameKey.fieldKey) var nameKey: String
    @Field(key: BurgerMapStore.PlaceColumn.address.fieldKey) package var address: String
    @Field(key: BurgerMapStore.PlaceColumn.lat.fieldKey) package var lat: Double
    @Field(key: BurgerMapStore.PlaceColumn.lon.fieldKey) package var lon: Double
    @OptionalField(key: BurgerMapStore.PlaceColumn.phone.fieldKey) package var phone: String?
    @OptionalParent(key: BurgerMapStore.PlaceColumn.createdBy.fieldKey) var createdBy: User?
    @Field(key: BurgerMapStore.PlaceColumn.reviewCount.fieldKey) package var reviewCount: Int
    @Field(key: BurgerMapStore.PlaceColumn.ratingSum.fieldKey) var ratingSum: Int
    /// The newest photo of its visible reviews: the picture lists and pins show.
    @OptionalField(key: BurgerMapStore.PlaceColumn.coverPhotoID.fieldKey) var coverPhotoID: UUID?
    /// The Kakao place id the LookForRealBurger app registered it under (its dedupe key); nil for
    /// places added on the web until the app meets them.
    @OptionalField(key: BurgerMapStore.PlaceColumn.kakaoID.fieldKey) package var kakaoID: String?
    /// Made by an account younger than three days, and nobody else has reviewed there yet:
    /// shown as unverified (its name, phone and address are one newcomer's word).
    @Field(key: BurgerMapStore.PlaceColumn.unverified.fieldKey) package var unverified: Bool
    @Timestamp(key: BurgerMapStore.PlaceColumn.createdAt.fieldKey, on: .create, format: .microseconds) package var createdAt: Date?

    package init() {}

    package var coordinate: Coordinate { Coordinate(unchecked: lat, lon) }
}

/// A photo uploaded for a review. It belongs to its uploader until a review attaches it; a photo
/// no review took within a day is deleted (`BurgerPhotoSweeper`). Seeded photos have no file:
/// their `artwork` is drawn on request.
package final class BurgerPhoto: Model, @unchecked Sendable {
    package static let schema = "burger_photos"

    @ID(key: .id) package var id: UUID?
    @Parent(key: BurgerMapStore.PhotoColumn.ownerID.fieldKey) package var owner: User
    @OptionalField(key: BurgerMapStore.PhotoColumn.reviewID.fieldKey) package var reviewID: UUID?
    /// Order within its review (0 first).
    @Field(key: BurgerMapStore.PhotoColumn.position.fieldKey) package var position: Int
    /// The file in `app.files`; nil for seeded artwork.
    @OptionalField(key: BurgerMapStore.PhotoColumn.fileKey.fieldKey) package var fileKey: String?
    /// `emoji|#colour` of a generated picture (the seeded catalog).
    @OptionalField(key: BurgerMapStore.PhotoColumn.artwork.fieldKey) package var artwork: String?
    @Field(key: BurgerMapStore.PhotoColumn.width.fieldKey) package var width: Int
    @Field(key: BurgerMapStore.PhotoColumn.height.fieldKey) package var height: Int
    @Timestamp(key: BurgerMapStore.PhotoColumn.createdAt.fieldKey, on: .create, format: .microseconds) package var createdAt: Date?

    package init() {}
}

/// A review of a place: a title, 1–5 stars, text and 1–5 photos. The counters are kept by the
/// writes that change them, so lists never count rows. Three reports hide it (`hiddenAt`) until
/// an admin restores it.
package final class BurgerReview: Model, @unchecked Sendable {
    package static let schema = "burger_reviews"

    @ID(key: .id) package var id: UUID?
    @Parent(key: BurgerMapStore.ReviewColumn.placeID.fieldKey) package var place: BurgerPlace
    @Parent(key: BurgerMapStore.ReviewColumn.authorID.fieldKey) package var author: User
    @Field(key: BurgerMapStore.ReviewColumn.title.fieldKey) package var title: String
    @Field(key: BurgerMapStore.ReviewColumn.rating.fieldKey) package var rating: Int
    @Field(key: BurgerMapStore.ReviewColumn.text.fieldKey) package var text: String
    @Field(key: BurgerMapStore.ReviewColumn.likeCount.fieldKey) package var likeCount: Int
    @Field(key: BurgerMapStore.ReviewColumn.bookmarkCount.fieldKey) package var bookmarkCount: Int
    @Field(key: BurgerMapStore.ReviewColumn.commentCount.fieldKey) package var commentCount: Int
    @Field(key: BurgerMapStore.ReviewColumn.reportCount.fieldKey) var reportCount: Int
    @OptionalField(key: BurgerMapStore.ReviewColumn.hiddenAt.fieldKey) var hiddenAt: Date?
    @Timestamp(key: BurgerMapStore.ReviewColumn.createdAt.fieldKey, on: .create, format: .microseconds) package var createdAt: Date?
    @Timestamp(key: BurgerMapStore.ReviewColumn.updatedAt.fieldKey, on: .update) package var updatedAt: Date?

    package init() {}
}

/// A like or a bookmark: one row per (kind, review, person).
package final class BurgerReaction: Model, @unchecked Sendable {
    package static let schema = "burger_reactions"
    package enum Kind: String, Codable, Sendable, CaseIterable { case like, bookmark }

    @ID(key: .id) package var id: UUID?
    @Field(key: BurgerPeopleStore.ReactionColumn.kind.fieldKey) package var kind: String
    @Parent(key: BurgerPeopleStore.ReactionColumn.reviewID.fieldKey) package var review: BurgerReview
    @Parent(key: BurgerPeopleStore.ReactionColumn.userID.fieldKey) package var user: User
    @Timestamp(key: BurgerPeopleStore.ReactionColumn.createdAt.fieldKey, on: .create, format: .microseconds) package var createdAt: Date?

    package init() {}
}

package final class BurgerComment: Model, @unchecked Sendable {
    package static let schema = "burger_comments"

    @ID(key: .id) package var id: UUID?
    @Parent(key: BurgerMapStore.CommentColumn.reviewID.fieldKey) package var review: BurgerReview
    @Parent(key: BurgerMapStore.CommentColumn.authorID.fieldKey) package var author: User
    @Field(key: BurgerMapStore.CommentColumn.text.fieldKey) package var text: String
    @Timestamp(key: BurgerMapStore.CommentColumn.createdAt.fieldKey, on: .create, format: .microseconds) package var createdAt: Date?
    @Timestamp(key: BurgerMapStore.CommentColumn.updatedAt.fieldKey, on: .update) package var updatedAt: Date?

    package init() {}
}

/// One account's report of one review (a second report by the same account changes nothing).
package final class BurgerReport: Model, @unchecked Sendable {
    package static let schema = "burger_reports"

    @ID(key: .id) package var id: UUID?
    @Parent(key: BurgerMapStore.ReportColumn.reviewID.fieldKey) package var review: BurgerReview
    @Parent(key: BurgerMapStore.ReportColumn.reporterID.fieldKey) var reporter: User
    @Field(key: BurgerMapStore.ReportColumn.reason.fieldKey) package var reason: String
    /// Set when an admin restored the review: the report no longer counts.
    @OptionalField(key: BurgerMapStore.ReportColumn.dismissedAt.fieldKey) var dismissedAt: Date?
    @Timestamp(key: BurgerMapStore.ReportColumn.createdAt.fieldKey, on: .create) package var createdAt: Date?

    package init() {}
}

/// "Eaten here" and "want to go": one row per (kind, place, person).
package final class BurgerMark: Model, @unchecked Sendable {
    package static let schema = "burger_marks"
    package enum Kind: String, Codable, Sendable, CaseIterable { case eaten, want }

    @ID(key: .id) package var id: UUID?
    @Field(key: BurgerPeopleStore.MarkColumn.kind.fieldKey) package var kind: String
    @Parent(key: BurgerPeopleStore.MarkColumn.placeID.fieldKey) package var place: BurgerPlace
    @Parent(key: BurgerPeopleStore.MarkColumn.userID.fieldKey) package var user: User
    @Timestamp(key: BurgerPeopleStore.MarkColumn.createdAt.fieldKey, on: .create, format: .microseconds) package var createdAt: Date?

    package init() {}
}

/// `follower` reads `followee`'s reviews in their feed.
final class BurgerFollow: Model, @unchecked Sendable {
    static let schema = "burger_follows"

    @ID(key: .id) var id: UUID?
    @Parent(key: BurgerPeopleStore.FollowColumn.followerID.fieldKey) var follower: User
    @Parent(key: BurgerPeopleStore.FollowColumn.followeeID.fieldKey) var followee: User
    @Timestamp(key: BurgerPeopleStore.FollowColumn.createdAt.fieldKey, on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}
