import Accounts
import BurgerMap
import Fluent
import Platform
import Vapor

/// What the app's posts show beside our review cards and places: everyone who liked, bookmarked or
/// marked them (the app's `likes`/`likes2` arrays hold people, not counts), each place's reviews
/// (its "comments") and each review's comments, whole. Each is one query per 500 posts, read by the
/// map's stores.
extension BurgerMapService {
    /// Places newest first, with who added each; those `addedBy` one person when given.
    func placeRows(_ page: CursorPageRequest, addedBy: UUID? = nil) async throws -> (items: [ListedPlace], nextCursor: String?) {
        try await store.listedPlaces(page, addedBy: addedBy)
    }

    func placeRow(_ id: UUID) async throws -> ListedPlace? {
        try await store.listedPlaces([id]).first
    }

    /// Places in the order of `ids` (lists ordered by something else: marks).
    func placeRows(_ ids: [UUID]) async throws -> [ListedPlace] {
        try await store.listedPlaces(ids)
    }

    /// Who liked (`like`) or bookmarked (`bookmark`) each review, in the order they did.
    func reactors(ofReviews ids: [UUID]) async throws -> [UUID: [BurgerReaction.Kind: [UUID]]] {
        try await people.reactors(ofReviews: ids)
    }

    /// Who marked each place "eaten" or "want", in the order they did.
    package func markers(ofPlaces ids: [UUID]) async throws -> [UUID: [BurgerMark.Kind: [UUID]]] {
        try await people.markers(ofPlaces: ids)
    }

    /// Each place's visible reviews, newest first, as the app's shop posts list them.
    func reviewsAsComments(ofPlaces ids: [UUID]) async throws -> [UUID: [CommentRow]] {
        try await store.reviewsAsComments(ofPlaces: ids)
    }

    /// Every comment of each review, newest first.
    package func comments(ofReviews ids: [UUID]) async throws -> [UUID: [CommentRow]] {
        try await store.comments(ofReviews: ids)
    }

    /// Places someone marked (`eaten` is the app's `likes`, `want` its `likes2`), the latest first.
    func markedPlaces(_ kind: BurgerMark.Kind, of userID: UUID, _ page: CursorPageRequest) async throws -> (items: [ListedPlace], nextCursor: String?) {
        let marked = try await people.markedPlaces(kind, by: userID, page)
        return (try await placeRows(marked.items), marked.nextCursor)
    }
}
