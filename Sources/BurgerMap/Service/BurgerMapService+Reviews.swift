import Accounts
package import Fluent
import Media
import Metrics
import Notifications
package import Platform
import SQLKit
import Vapor

/// What a review says, as written or edited.
package struct ReviewDraft: Sendable {
    package var placeID: UUID
    package var title: String
    package var rating: Int
    package var text: String
    package var photoIDs: [UUID]

    package init(placeID: UUID, title: String, rating: Int, text: String, photoIDs: [UUID]) {
        self.placeID = placeID
        self.title = title
        self.rating = rating
        self.text = text
        self.photoIDs = photoIDs
    }
}

/// A person acting on the map, with their role (an admin may delete and restore any review).
package struct MapActor: Sendable {
    package let id: UUID
    package let isAdmin: Bool
}

extension BurgerMapService {
    static let reportsToHide = 3
    /// A report counts towards hiding when its reporter has some standing: an account this old,
    /// or one with this many visible reviews of its own this old (or an admin). Fresh accounts
    /// cost one sign-up each; without this, three of them hid any review in a fraction of a second.
    package static let reporterStandingAge: TimeInterval = 3 * 24 * 3600
    static let reporterStandingReviews = 3
    package static let service = "burger-map"

    // MARK: Reading

    package func reviews(_ page: CursorPageRequest, viewer: UUID?) async throws -> (items: [ReviewCard], nextCursor: String?) {
        try await cards.page(page, viewer: viewer)
    }

    /// Reviews hidden by reports, for the admins who decide on them.
    func hiddenReviews(_ page: CursorPageRequest, viewer: UUID?) async throws -> (items: [ReviewCard], nextCursor: String?) {
        try await cards.page(page, viewer: viewer, visibleOnly: false) {
            $0.where(ReviewCards.column(BurgerMapStore.ReviewColumn.hiddenAt), .isNot, SQLLiteral.null)
        }
    }

    package func reviews(ofPlace placeID: UUID, _ page: CursorPageRequest, viewer: UUID?) async throws -> (items: [ReviewCard], nextCursor: String?) {
        _ = try await place(placeID)
        return try await cards.page(page, viewer: viewer) { $0.where(ReviewCards.column(BurgerMapStore.ReviewColumn.placeID), .equal, SQLBind(placeID)) }
    }

    package func reviews(byAuthor authorID: UUID, _ page: CursorPageRequest, viewer: UUID?) async throws -> (items: [ReviewCard], nextCursor: String?) {
        return try await cards.page(page, viewer: viewer) { $0.where(ReviewCards.column(BurgerMapStore.ReviewColumn.authorID), .equal, SQLBind(authorID)) }
    }

    /// Following this many people or more, the feed walks all reviews newest first and keeps
    /// the followed ones' (`ReviewCards.query(timeline:)`); below it, it reads each followed
    /// person's reviews by index and sorts them.
    static let timelineFeedFollows = 50

    /// Reviews by the people `userID` follows, newest first.
    package func feed(of userID: UUID, _ page: CursorPageRequest) async throws -> (items: [ReviewCard], nextCursor: String?) {
        let follows = try await people.followCounts(of: userID).following
        guard follows > 0 else { return ([], nil) }
        let followees = people.followees(of: userID)
        return try await cards.page(page, viewer: userID, timeline: follows >= Self.timelineFeedFollows) { query in
            query.where(ReviewCards.column(BurgerMapStore.ReviewColumn.authorID), .in, followees)
        }
    }

    /// A review; a hidden one only for its author and admins.
    /// A review's card as the viewer sees it. The card without anyone's likes is kept until the
    /// next write (`keptReviewCards`); a signed-in viewer's likes and bookmarks are one query.
    package func review(_ id: UUID, viewer: MapActor?) async throws -> ReviewCard {
        var card = try await keptReviewCards.value("review:\(id)") {
            guard let card = try await cards.card(id, viewer: nil) else { throw AppError.notFound("review_not_found") }
            return card
        }
        guard !card.hidden || viewer?.isAdmin == true || viewer?.id == card.authorID else { throw AppError.notFound("review_not_found") }
        if let viewer {
            let reactions = try await environment.keptViewerReactions.value("\(viewer.id):\(id)") {
                let read = try await cards.addReactions(of: viewer.id, to: [card])[0]
                return ViewerReactions(liked: read.likedByMe, bookmarked: read.bookmarkedByMe)
            }
            card.likedByMe = reactions.liked
            card.bookmarkedByMe = reactions.bookmarked
        }
        return card
    }

    // MARK: Writing

    /// Writes a review: the photos (the author's own, not yet on a review) join it, the place's
    /// count, rating and cover follow, all in one transaction, so a failure leaves the photos free.
    package func addReview(_ draft: ReviewDraft, by author: UUID) async throws -> ReviewCard {
        let draft = try checked(draft)
        guard try await store.place(draft.placeID) != nil else { throw AppError.invalid("unknown_place") }
        let slot = try await limits.reviews.reserve(author.uuidString, code: "too_many_reviews")
        let reviewID = UUID()
        do {
            try await store.addReview(id: reviewID, draft, by: author)
        } catch let error as AppError where error.status.code < 500 {
            await limits.reviews.release(slot)   // a refused review does not count
            throw error
        }
        Counter(label: "whatweeat_burger_reviews_written_total").increment()
        return try await review(reviewID, viewer: MapActor(id: author, isAdmin: false))
    }

    /// The author edits: any of title, rating, text and photos (a new photo list replaces the old;
    /// photos left out are deleted).
    package func editReview(_ id: UUID, title: String?, rating: Int?, text: String?, photoIDs: [UUID]?, by actor: MapActor) async throws -> ReviewCard {
        guard let review = try await store.review(id), !(review.hidden && review.authorID != actor.id)
        else { throw AppError.notFound("review_not_found") }
        guard review.authorID == actor.id else { throw AppError(.forbidden, "not_review_author") }
        let current = try await store.photos(ofReviews: [id])[id] ?? []
        let draft = try checked(ReviewDraft(placeID: review.placeID, title: title ?? review.title, rating: rating ?? review.rating,
                                            text: text ?? review.text, photoIDs: photoIDs ?? current.map(\.id)))
        try await store.editReview(review, to: draft, photoIDs: photoIDs == nil ? nil : draft.photoIDs)
        if photoIDs != nil {
            for photo in current where !draft.photoIDs.contains(photo.id) { try await deletePhoto(photo) }
        }
        return try await self.review(id, viewer: actor)
    }

    /// The author or an admin deletes a review, with its photos, likes, comments and reports. An
    /// admin deleting someone else's is audited (`burger_map.review.delete`), with the deletion.
    package func deleteReview(_ id: UUID, by actor: MapActor) async throws {
        guard let review = try await store.review(id), !review.hidden || actor.isAdmin || review.authorID == actor.id
        else { throw AppError.notFound("review_not_found") }
        guard review.authorID == actor.id || actor.isAdmin else { throw AppError(.forbidden, "not_review_author") }
        let audit = review.authorID == actor.id ? nil : AuditEntry(
            actorID: actor.id, action: "burger_map.review.delete", subjectType: "burger_review", subjectID: id.uuidString,
            before: Self.audited(review), after: nil, at: environment.now())
        for photo in try await store.deleteReview(review, audit: audit) {
            await quota.release(await files.byteCount(of: photo.fileKey), for: photo.ownerID, on: database)
            try await deleteFileIfUnused(photo.fileKey)
        }
        try await inbox.withdraw(subject: id)
    }

    // MARK: Reports

    static let reportRule = BurgerMapStore.ReportRule(reportsToHide: reportsToHide, standingAge: reporterStandingAge,
                                                      standingReviews: reporterStandingReviews)

    /// Reports a review once per account (10 reports an hour per account); the third report that
    /// counts — from an account with standing, not dismissed by an admin's restore — hides it (and
    /// takes it out of its place's count and rating) until an admin restores it. Reports without
    /// standing are kept for the admins and count once their reporters have it. Returns whether
    /// it is hidden.
    package func report(_ id: UUID, reason rawReason: String, by reporter: UUID) async throws -> Bool {
        let reason = rawReason.trimmingCharacters(in: .whitespacesAndNewlines)
        do { try BurgerMapRules.checkReportReason(reason) } catch { throw Self.appError(error) }
        guard let review = try await store.review(id), !review.hidden else { throw AppError.notFound("review_not_found") }
        guard review.authorID != reporter else { throw AppError.invalid("cannot_report_own_review") }
        if try await store.hasReported(id, by: reporter) { return false }
        try await limits.reports.reserve(reporter.uuidString, code: "too_many_reports")
        do {
            return try await store.addReport(of: review, reason: reason, by: reporter, rule: Self.reportRule)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            return false  // The same account's report raced itself; one counts.
        }
    }

    /// An admin shows a hidden review again. Its reports stay, dismissed: they no longer count,
    /// and their reporters cannot report it again (new reporters can). Audited
    /// (`burger_map.review.restore`, as the console's decision is) when this call showed it.
    package func restore(_ id: UUID, by actor: MapActor) async throws -> ReviewCard {
        guard actor.isAdmin else { throw AppError.forbidden }
        guard let review = try await store.review(id) else { throw AppError.notFound("review_not_found") }
        if review.hidden {
            var before = Self.audited(review)
            before["hidden"] = "true"
            try await store.restore(review, audit: AuditEntry(
                actorID: actor.id, action: "burger_map.review.restore", subjectType: "burger_review", subjectID: id.uuidString,
                before: before, after: ["hidden": "false"], at: environment.now()))
        }
        return try await self.review(id, viewer: actor)
    }

    /// What the audit log keeps of a review an operator acted on: whose it was and its title.
    static func audited(_ review: ReviewRow) -> [String: String] {
        ["author": review.authorID.uuidString, "title": review.title]
    }

    // MARK: Likes and bookmarks

    /// Sets or clears a like or bookmark; setting twice or clearing twice changes nothing.
    /// A new like tells the author.
    package func setReaction(_ kind: BurgerReaction.Kind, on id: UUID, to on: Bool, by actor: MapActor) async throws -> ReviewCard {
        let card = try await review(id, viewer: actor)
        let added = try await store.react(kind, on: id, by: actor.id, to: on)
        if added && kind == .like {
            try await inbox.post(NotificationDraft(recipient: card.authorID, actor: actor.id, service: Self.service, kind: "review_liked",
                                                   subjectID: id, link: MapPath.review(id), excerpt: card.title, once: true))
        }
        return try await review(id, viewer: actor)
    }

    // MARK: Helpers

    private func checked(_ draft: ReviewDraft) throws -> ReviewDraft {
        var draft = draft
        draft.title = draft.title.trimmingCharacters(in: .whitespacesAndNewlines)
        draft.text = draft.text.trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            try BurgerMapRules.checkReview(rating: draft.rating, title: draft.title, text: draft.text, photoIDs: draft.photoIDs)
        } catch { throw Self.appError(error) }
        return draft
    }
}
