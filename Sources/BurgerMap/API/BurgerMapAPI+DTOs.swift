import Accounts
import Media
import Notifications
import Platform
import Vapor

/// A place as clients see it.
struct PlaceResponse: Content {
    let id: UUID
    let name: String
    let address: String
    let lat: Double
    let lon: Double
    @NullEncoded var phone: String?
    let reviewCount: Int
    /// The plain mean of its ratings; null before the first review.
    @NullEncoded var averageRating: Double?
    /// The Bayesian average lists are ranked by (`PlaceRanking`).
    let score: Double
    /// One photo of the place, from its reviews; null before the first.
    @NullEncoded var photoURL: String?
    /// Meters from the point of a `near` search; null otherwise.
    @NullEncoded var distanceMeters: Double?
    /// False while the place is one newcomer's word: made by an account younger than three days
    /// and not yet reviewed by another account.
    let verified: Bool

    init(_ summary: PlaceSummary) {
        let place = summary.place
        id = place.id
        name = place.name
        address = place.address
        lat = place.lat
        lon = place.lon
        phone = place.phone
        reviewCount = place.reviewCount
        averageRating = place.reviewCount > 0 ? (Double(place.ratingSum) / Double(place.reviewCount) * 100).rounded() / 100 : nil
        score = (PlaceRanking.score(ratingSum: place.ratingSum, reviewCount: place.reviewCount) * 1000).rounded() / 1000
        photoURL = place.coverURL
        distanceMeters = summary.distanceMeters.map { $0.rounded() }
        verified = !place.unverified
    }
}

/// A map's places (`items`) or, for a crowded box, its clusters; never paged (`nextCursor` null),
/// as a box holds at most 200 pins.
struct PlacesResponse: Content {
    let items: [PlaceResponse]
    let clusters: [MapCluster]
    @NullEncoded var nextCursor: String?

    init(items: [PlaceResponse], clusters: [MapCluster]) {
        self.items = items
        self.clusters = clusters
        self.nextCursor = nil
    }
}

struct PlaceBody: Content {
    let name: String
    let address: String
    let lat: Double
    let lon: Double
    let phone: String?
}

struct PlacesQuery: Content {
    var bbox: String?
    var near: String?
    var limit: Int?
    var q: String?

    func coordinate(_ text: String) throws -> Coordinate {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let lat = parts[0], let lon = parts[1] else { throw AppError.badRequest("invalid_near") }
        do { return try Coordinate(lat: lat, lon: lon) } catch { throw BurgerMapService.appError(error) }
    }

    func nearLimit() throws -> Int {
        guard let limit else { return BurgerMapService.defaultNearLimit }
        guard (1...BurgerMapService.maxNearLimit).contains(limit) else {
            throw AppError.badRequest("invalid_limit", ["max": String(BurgerMapService.maxNearLimit)])
        }
        return limit
    }

    /// The search words, at most 40 characters; nil when none.
    func searchText() throws -> String? {
        guard let q else { return nil }
        guard q.fits(characters: 40, bytes: 160) else { throw AppError.invalid("invalid_search", ["max": "40"]) }
        let words = q.trimmingCharacters(in: .whitespacesAndNewlines)
        return words.isEmpty ? nil : words
    }
}

/// A place's detail page: the place, how many people ate there or want to, and the reader's marks.
struct PlaceDetailResponse: Content {
    let id: UUID
    let name: String
    let address: String
    let lat: Double
    let lon: Double
    @NullEncoded var phone: String?
    let reviewCount: Int
    @NullEncoded var averageRating: Double?
    let score: Double
    @NullEncoded var photoURL: String?
    let eatenCount: Int
    let wantCount: Int
    /// `eaten` and/or `want`; empty for anonymous readers.
    let myMarks: [String]
    /// As in `PlaceResponse`.
    let verified: Bool

    init(_ detail: PlaceDetail) {
        let place = PlaceResponse(detail.summary)
        id = place.id
        name = place.name
        address = place.address
        lat = place.lat
        lon = place.lon
        phone = place.phone
        reviewCount = place.reviewCount
        averageRating = place.averageRating
        score = place.score
        photoURL = place.photoURL
        eatenCount = detail.eatenCount
        wantCount = detail.wantCount
        myMarks = detail.myMarks.map(\.rawValue)
        verified = place.verified
    }
}

/// A registration that disagreed with a stored place: what the place says, what was registered,
/// and how they differ (`position`, `phone`, `address`, `kakao_id_far`, `same_name_nearby`).
struct PlaceSuggestionResponse: Content {
    package struct Stored: Content {
        package let id: UUID
        package let name: String
        package let address: String
        @NullEncoded package var phone: String?
        package let lat: Double
        package let lon: Double
    }

    let id: UUID
    let place: Stored
    @NullEncoded var suggestedBy: UUID?
    let name: String
    let address: String
    @NullEncoded var phone: String?
    let lat: Double
    let lon: Double
    @NullEncoded var kakaoId: String?
    let reasons: [String]
    @NullEncoded var createdAt: Date?

    init(_ suggestion: PlaceSuggestionRow) throws {
        id = suggestion.id
        guard let stored = suggestion.place else { throw AppError.notFound("place_not_found") }
        place = Stored(id: stored.id, name: stored.name, address: stored.address, phone: stored.phone, lat: stored.lat, lon: stored.lon)
        suggestedBy = suggestion.suggestedBy
        name = suggestion.name
        address = suggestion.address
        phone = suggestion.phone
        lat = suggestion.lat
        lon = suggestion.lon
        kakaoId = suggestion.kakaoID
        reasons = suggestion.reasons
        createdAt = suggestion.createdAt
    }
}

struct PhotoResponse: Content {
    let id: UUID
    let url: String
    let width: Int
    let height: Int
}

struct PlaceReference: Content {
    let id: UUID
    let name: String
}

/// A review with its place, author and photos, and the reader's like and bookmark.
struct ReviewResponse: Content {
    let id: UUID
    let place: PlaceReference
    let author: PersonSummary
    let title: String
    let rating: Int
    let text: String
    let photos: [PhotoResponse]
    let likeCount: Int
    let bookmarkCount: Int
    let commentCount: Int
    let likedByMe: Bool
    let bookmarkedByMe: Bool
    /// True only when reports hid it (its author and admins still see it).
    let hidden: Bool
    let createdAt: Date
    /// When its author last edited it; null when never edited.
    @NullEncoded var updatedAt: Date?

    init(_ card: ReviewCard, files: any FileStorage) {
        id = card.id
        place = PlaceReference(id: card.placeID, name: card.placeName)
        author = PersonSummary(id: card.authorID, nickname: card.authorNickname, profileImageURL: card.authorImageKey.map(files.urlPath(for:)))
        title = card.title
        rating = card.rating
        text = card.text
        photos = card.photos.map {
            PhotoResponse(id: $0.id, url: BurgerMapService.photoURL(fileKey: $0.fileKey, id: $0.id, files: files), width: $0.width, height: $0.height)
        }
        likeCount = card.likeCount
        bookmarkCount = card.bookmarkCount
        commentCount = card.commentCount
        likedByMe = card.likedByMe
        bookmarkedByMe = card.bookmarkedByMe
        hidden = card.hidden
        createdAt = card.createdAt
        // Writing sets both times from one clock reading (they differ only by how each column
        // rounds it, under a microsecond); an edit moves only the second, by at least a request's
        // time: a millisecond tells them apart, where a second hid an edit made right after posting.
        updatedAt = card.updatedAt.flatMap { $0.timeIntervalSince(card.createdAt) > 0.001 ? $0 : nil }
    }
}

struct CommentResponse: Content {
    let id: UUID
    let reviewId: UUID
    let author: PersonSummary
    let text: String
    let createdAt: Date
    @NullEncoded var updatedAt: Date?

    init(_ comment: CommentRow, files: any FileStorage) {
        id = comment.id
        reviewId = comment.reviewID ?? comment.id
        author = PersonSummary(id: comment.author.id, nickname: comment.author.nickname, profileImageURL: comment.author.imageKey.map(files.urlPath(for:)))
        text = comment.text
        createdAt = comment.createdAt
        updatedAt = comment.updatedAt.flatMap { $0.timeIntervalSince(comment.createdAt) > 0.001 ? $0 : nil }
    }
}

/// A person on the map: who they are, their counts, and whether the reader follows them.
struct MapProfileResponse: Content {
    let id: UUID
    let nickname: String
    @NullEncoded var profileImageURL: String?
    let reviewCount: Int
    let followerCount: Int
    let followingCount: Int
    let eatenCount: Int
    let followedByMe: Bool

    init(_ profile: MapProfile, files: any FileStorage) {
        id = profile.id
        nickname = profile.nickname
        profileImageURL = profile.profileImageKey.map(files.urlPath(for:))
        reviewCount = profile.reviewCount
        followerCount = profile.followerCount
        followingCount = profile.followingCount
        eatenCount = profile.eatenCount
        followedByMe = profile.followedByMe
    }
}

struct ReportResponse: Content {
    let reported: Bool
    /// Whether the review is now hidden (this report was the third).
    let hidden: Bool
}

struct ReviewBody: Content {
    let placeId: UUID
    let title: String
    let rating: Int
    let text: String
    let photoIds: [UUID]
}

struct ReviewPatch: Content {
    let title: String?
    let rating: Int?
    let text: String?
    let photoIds: [UUID]?
}

package struct CommentBody: Content {
    package let text: String
}

struct ReportBody: Content {
    let reason: String
}
