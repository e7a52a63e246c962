import Accounts
import Fluent
import Media
import Metrics
import Notifications
import Platform
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
            $0.where(ReviewCards.column("hidden_at"), .isNot, SQLLiteral.null)
        }
    }

    package func reviews(ofPlace placeID: UUID, _ page: CursorPageRequest, viewer: UUID?) async throws -> (items: [ReviewCard], nextCursor: String?) {
        _ = try await place(placeID)
        return try await cards.page(page, viewer: viewer) { $0.where(ReviewCards.column("place_id"), .equal, SQLBind(placeID)) }
    }

    package func reviews(byAuthor authorID: UUID, _ page: CursorPageRequest, viewer: UUID?) async throws -> (items: [ReviewCard], nextCursor: String?) {
        return try await cards.page(page, viewer: viewer) { $0.where(ReviewCards.column("author_id"), .equal, SQLBind(authorID)) }
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
            query.where(ReviewCards.column("author_id"), .in, followees)
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
        if let viewer { card = try await cards.addReactions(of: viewer.id, to: [card])[0] }
        return card
    }

    // MARK: Writing

    /// Writes a review: the photos (the author's own, not yet on a review) join it, the place's
    /// count, rating and cover follow, all in one transaction, so a failure leaves the photos free.
    package func addReview(_ draft: ReviewDraft, by author: UUID) async throws -> ReviewCard {
        let draft = try checked(draft)
        guard try await BurgerPlace.find(draft.placeID, on: database) != nil else { throw AppError.invalid("unknown_place") }
        let slot = try await limits.reviews.reserve(author.uuidString, code: "too_many_reviews")
        let reviewID = UUID()
        do {
            try await database.transaction { transaction in
                let review = BurgerReview(id: reviewID, placeID: draft.placeID, authorID: author, title: draft.title,
                                          rating: draft.rating, text: draft.text)
                try await review.create(on: transaction)
                try await Self.attach(draft.photoIDs, to: reviewID, of: draft.placeID, owner: author, on: transaction)
                try await Self.adjustPlace(draft.placeID, reviews: 1, ratings: draft.rating, on: transaction)
                try await Self.verifyPlace(draft.placeID, reviewedBy: author, on: transaction)
            }
        } catch let error as AppError where error.status.code < 500 {
            await limits.reviews.release(slot)   // a refused review does not count
            throw error
        }
        try await placeChanged(draft.placeID)
        Counter(label: "whatweeat_burger_reviews_written_total").increment()
        return try await review(reviewID, viewer: MapActor(id: author, isAdmin: false))
    }

    /// The author edits: any of title, rating, text and photos (a new photo list replaces the old;
    /// photos left out are deleted).
    package func editReview(_ id: UUID, title: String?, rating: Int?, text: String?, photoIDs: [UUID]?, by actor: MapActor) async throws -> ReviewCard {
        guard let review = try await BurgerReview.find(id, on: database), !(review.hiddenAt != nil && review.$author.id != actor.id)
        else { throw AppError.notFound("review_not_found") }
        guard review.$author.id == actor.id else { throw AppError(.forbidden, "not_review_author") }
        let current = try await BurgerPhoto.query(on: database).filter(\.$reviewID == id).sort(\.$position).all()
        let draft = try checked(ReviewDraft(placeID: review.$place.id, title: title ?? review.title, rating: rating ?? review.rating,
                                            text: text ?? review.text, photoIDs: photoIDs ?? current.compactMap(\.id)))
        let dropped = current.filter { !draft.photoIDs.contains($0.id ?? UUID()) }
        let ratingChange = draft.rating - review.rating
        try await database.transaction { transaction in
            if photoIDs != nil {
                // Detach all, then attach the new list in its order: kept photos are the author's too.
                try await transaction.sql.update(BurgerPhoto.schema).set("review_id", to: SQLLiteral.null)
                    .where("review_id", .equal, SQLBind(id)).run()
                try await Self.attach(draft.photoIDs, to: id, of: review.$place.id, owner: actor.id, on: transaction)
            }
            review.title = draft.title
            review.rating = draft.rating
            review.text = draft.text
            try await review.save(on: transaction)
            if review.hiddenAt == nil && ratingChange != 0 {
                try await Self.adjustPlace(review.$place.id, reviews: 0, ratings: ratingChange, on: transaction)
            }
        }
        if photoIDs != nil {
            for photo in dropped { try await deletePhoto(photo) }
            try await refreshCover(of: review.$place.id)
        } else if ratingChange != 0 {
            try await placeChanged(review.$place.id)
        }
        await contentChanged(places: [review.$place.id])
        return try await self.review(id, viewer: actor)
    }

    /// The author or an admin deletes a review, with its photos, likes, comments and reports.
    package func deleteReview(_ id: UUID, by actor: MapActor) async throws {
        guard let review = try await BurgerReview.find(id, on: database),
              review.hiddenAt == nil || actor.isAdmin || review.$author.id == actor.id
        else { throw AppError.notFound("review_not_found") }
        guard review.$author.id == actor.id || actor.isAdmin else { throw AppError(.forbidden, "not_review_author") }
        let photos = try await BurgerPhoto.query(on: database).filter(\.$reviewID == id).all()
        try await database.transaction { transaction in
            try await BurgerPhoto.query(on: transaction).filter(\.$reviewID == id).delete()
            try await BurgerPeopleStore(database: transaction).removeReactions(on: id)
            try await BurgerComment.query(on: transaction).filter(\.$review.$id == id).delete()
            try await BurgerReport.query(on: transaction).filter(\.$review.$id == id).delete()
            try await review.delete(on: transaction)
            if review.hiddenAt == nil {
                try await Self.adjustPlace(review.$place.id, reviews: -1, ratings: -review.rating, on: transaction)
            }
        }
        for photo in photos {
            await quota.release(await files.byteCount(of: photo.fileKey), for: photo.$owner.id, on: database)
            try await deleteFileIfUnused(photo.fileKey)
        }
        try await inbox.withdraw(subject: id)
        try await refreshCover(of: review.$place.id)
    }

    // MARK: Reports

    /// Reports a review once per account (10 reports an hour per account); the third report that
    /// counts — from an account with standing, not dismissed by an admin's restore — hides it (and
    /// takes it out of its place's count and rating) until an admin restores it. Reports without
    /// standing are kept for the admins and count once their reporters have it. Returns whether
    /// it is hidden.
    package func report(_ id: UUID, reason rawReason: String, by reporter: UUID) async throws -> Bool {
        let reason = rawReason.trimmingCharacters(in: .whitespacesAndNewlines)
        do { try BurgerMapRules.checkReportReason(reason) } catch { throw Self.appError(error) }
        guard let review = try await BurgerReview.find(id, on: database), review.hiddenAt == nil else {
            throw AppError.notFound("review_not_found")
        }
        guard review.$author.id != reporter else { throw AppError.invalid("cannot_report_own_review") }
        if try await BurgerReport.query(on: database).filter(\.$review.$id == id).filter(\.$reporter.$id == reporter).first() != nil {
            return false
        }
        try await limits.reports.reserve(reporter.uuidString, code: "too_many_reports")
        let hidden: Bool
        do {
            hidden = try await database.transaction { transaction -> Bool in
                let report = BurgerReport()
                report.$review.id = id
                report.$reporter.id = reporter
                report.reason = reason
                try await report.create(on: transaction)
                let count = try await Self.countedReports(of: id, on: transaction)
                guard count >= Self.reportsToHide else {
                    try await transaction.sql.update(BurgerReview.schema).set("report_count", to: SQLBind(count))
                        .where("id", .equal, SQLBind(id)).run()
                    return false
                }
                // Only the report that hides it adjusts the place, even if reports race.
                let hiddenNow = try await transaction.sql.update(BurgerReview.schema)
                    .set("report_count", to: SQLBind(count)).set("hidden_at", to: SQLBind(Date()))
                    .where("id", .equal, SQLBind(id)).where("hidden_at", .is, SQLLiteral.null)
                    .returning("id").all()
                guard !hiddenNow.isEmpty else { return false }
                try await Self.adjustPlace(review.$place.id, reviews: -1, ratings: -review.rating, on: transaction)
                return true
            }
        } catch let error as any DatabaseError where error.isConstraintFailure {
            return false  // The same account's report raced itself; one counts.
        }
        if hidden { try await refreshCover(of: review.$place.id) }
        return hidden
    }

    /// The reports of a review that count: not dismissed, by reporters with standing.
    static func countedReports(of review: UUID, on database: any Database, now: Date = Date()) async throws -> Int {
        let standingSince = now.addingTimeInterval(-reporterStandingAge)
        let row = try await database.sql.raw("""
            SELECT COUNT(*) AS counted FROM \(ident: BurgerReport.schema) r JOIN \(ident: User.schema) u ON u.\(ident: AccountStore.Column.id) = r.reporter_id
            WHERE r.review_id = \(bind: review) AND r.dismissed_at IS NULL
            AND (u.\(ident: AccountStore.Column.createdAt) <= \(bind: standingSince) OR u.\(ident: AccountStore.Column.role) = \(bind: Role.admin.rawValue)
                 OR (SELECT COUNT(*) FROM \(ident: BurgerReview.schema) v
                     WHERE v.author_id = u.id AND v.hidden_at IS NULL AND v.created_at <= \(bind: standingSince)) >= \(literal: reporterStandingReviews))
            """).first()
        return try row?.decode(column: "counted", as: Int.self) ?? 0
    }

    /// An admin shows a hidden review again. Its reports stay, dismissed: they no longer count,
    /// and their reporters cannot report it again (new reporters can).
    package func restore(_ id: UUID, by actor: MapActor) async throws -> ReviewCard {
        guard actor.isAdmin else { throw AppError.forbidden }
        guard let review = try await BurgerReview.find(id, on: database) else { throw AppError.notFound("review_not_found") }
        if review.hiddenAt != nil {
            try await database.transaction { transaction in
                let shown = try await transaction.sql.update(BurgerReview.schema)
                    .set("report_count", to: SQLBind(0)).set("hidden_at", to: SQLLiteral.null)
                    .where("id", .equal, SQLBind(id)).where("hidden_at", .isNot, SQLLiteral.null)
                    .returning("id").all()
                guard !shown.isEmpty else { return }
                try await BurgerReport.query(on: transaction).filter(\.$review.$id == id).filter(\.$dismissedAt == nil)
                    .set(\.$dismissedAt, to: Date()).update()
                try await Self.adjustPlace(review.$place.id, reviews: 1, ratings: review.rating, on: transaction)
            }
            try await refreshCover(of: review.$place.id)
        }
        return try await self.review(id, viewer: actor)
    }

    // MARK: Likes and bookmarks

    /// Sets or clears a like or bookmark; setting twice or clearing twice changes nothing.
    /// A new like tells the author.
    package func setReaction(_ kind: BurgerReaction.Kind, on id: UUID, to on: Bool, by actor: MapActor) async throws -> ReviewCard {
        let card = try await review(id, viewer: actor)
        let counter = kind == .like ? "like_count" : "bookmark_count"
        var added = false
        if on {
            if try await !people.hasReaction(kind, on: id, by: actor.id) {
                do {
                    added = try await database.transaction { transaction in
                        guard try await BurgerPeopleStore(database: transaction).addReaction(kind, on: id, by: actor.id) else { return false }
                        try await Self.increment(counter, of: id, by: 1, on: transaction)
                        return true
                    }
                } catch let error as any DatabaseError where error.isConstraintFailure {
                    added = false  // A parallel request set it first.
                }
            }
        } else {
            try await database.transaction { transaction in
                let removed = try await BurgerPeopleStore(database: transaction).removeReaction(kind, on: id, by: actor.id)
                if removed > 0 { try await Self.increment(counter, of: id, by: -removed, on: transaction) }
            }
        }
        await contentChanged(places: [])  // likes and bookmarks show on reviews, not places
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

    /// Gives the photos to the review in the order given. Each must be the owner's and on no
    /// review: the update names both, so a photo taken by a parallel review fails this one.
    static func attach(_ photoIDs: [UUID], to reviewID: UUID, of placeID: UUID, owner: UUID, on database: any Database) async throws {
        for (position, photoID) in photoIDs.enumerated() {
            let taken = try await database.sql.update(BurgerPhoto.schema)
                .set("review_id", to: SQLBind(reviewID)).set("position", to: SQLBind(position))
                .where("id", .equal, SQLBind(photoID)).where("owner_id", .equal, SQLBind(owner))
                .where("review_id", .is, SQLLiteral.null)
                .returning("id").all()
            guard !taken.isEmpty else { throw AppError.invalid("invalid_photo", ["id": photoID.uuidString.lowercased()]) }
        }
        if let first = photoIDs.first {
            try await database.sql.update(BurgerPlace.schema).set("cover_photo_id", to: SQLBind(first))
                .where("id", .equal, SQLBind(placeID)).run()
        }
    }

    static func adjustPlace(_ placeID: UUID, reviews: Int, ratings: Int, on database: any Database) async throws {
        try await database.sql.update(BurgerPlace.schema)
            .set("review_count", to: SQLBinaryExpression(SQLColumn("review_count"), .add, SQLBind(reviews)))
            .set("rating_sum", to: SQLBinaryExpression(SQLColumn("rating_sum"), .add, SQLBind(ratings)))
            .where("id", .equal, SQLBind(placeID)).run()
    }

    package static func increment(_ counter: String, of reviewID: UUID, by amount: Int, on database: any Database) async throws {
        try await database.sql.update(BurgerReview.schema)
            .set(SQLColumn(counter), to: SQLBinaryExpression(SQLColumn(counter), .add, SQLBind(amount)))
            .where("id", .equal, SQLBind(reviewID)).run()
    }

    /// The place's cover is the first photo of its newest visible review; the index learns of
    /// the change (with the place's counts, which the caller has just moved).
    func refreshCover(of placeID: UUID) async throws {
        let newest = try await cards.query().where(ReviewCards.column("place_id"), .equal, SQLBind(placeID))
            .orderBy(SQLOrderBy(expression: ReviewCards.column("created_at"), direction: SQLDirection.descending)).limit(1).first()
        var cover: UUID?
        if let newest {
            let reviewID = try newest.decode(column: "id", as: UUID.self)
            cover = try await BurgerPhoto.query(on: database).filter(\.$reviewID == reviewID).sort(\.$position).first()?.id
        }
        try await database.sql.update(BurgerPlace.schema).set("cover_photo_id", to: cover.map { SQLBind($0) as any SQLExpression } ?? SQLLiteral.null)
            .where("id", .equal, SQLBind(placeID)).run()
        try await placeChanged(placeID)
    }
}
