import Accounts
package import Fluent
import Foundation
import Platform
import SQLKit

/// Reviews (`burger_reviews`) and their reports (`burger_reports`). A review's writes move its
/// place's count, rating sum and cover in the same transaction; the place is announced after it.
extension BurgerMapStore {
    enum ReviewColumn: String, TableColumn {
        case id, placeID = "place_id", authorID = "author_id", title, rating, text, likeCount = "like_count"
        case bookmarkCount = "bookmark_count", commentCount = "comment_count", reportCount = "report_count"
        case hiddenAt = "hidden_at", createdAt = "created_at", updatedAt = "updated_at"
    }

    enum ReportColumn: String, TableColumn {
        case id, reviewID = "review_id", reporterID = "reporter_id", reason
        /// Set when an admin restored the review: the report no longer counts.
        case dismissedAt = "dismissed_at"
        case createdAt = "created_at"
    }

    /// A new review as written: every column of `burger_reviews`.
    struct NewReview: Encodable {
        typealias CodingKeys = ReviewColumn
        let id: UUID, placeID: UUID, authorID: UUID, title: String, rating: Int, text: String
        let likeCount: Int, bookmarkCount: Int, commentCount: Int, reportCount: Int, hiddenAt: Date?, createdAt: Date, updatedAt: Date
    }

    /// A new report as written: every column of `burger_reports`.
    struct NewReport: Encodable {
        typealias CodingKeys = ReportColumn
        let id: UUID, reviewID: UUID, reporterID: UUID, reason: String, dismissedAt: Date?, createdAt: Date
    }

    /// A review's own counters, moved by the writes that change them.
    enum ReviewCounter {
        case likes, bookmarks, comments

        var column: ReviewColumn {
            switch self {
            case .likes: return ReviewColumn.likeCount
            case .bookmarks: return ReviewColumn.bookmarkCount
            case .comments: return ReviewColumn.commentCount
            }
        }
    }

    static var reviews: SQLIdentifier { SQLIdentifier(BurgerReview.schema) }
    static var reports: SQLIdentifier { SQLIdentifier(BurgerReport.schema) }

    // MARK: Reading

    /// A review as the rules need it (cards are `ReviewCards`'), hidden or not.
    func review(_ id: UUID) async throws -> ReviewRow? {
        try await sql.select()
            .columns([ReviewColumn.id, ReviewColumn.placeID, ReviewColumn.authorID, ReviewColumn.title, ReviewColumn.rating,
                      ReviewColumn.text, ReviewColumn.hiddenAt].map { SQLIdentifier($0) })
            .from(Self.reviews).where(SQLIdentifier(ReviewColumn.id), .equal, SQLBind(id)).first()
            .map { row in
                ReviewRow(id: try row.decode(column: ReviewColumn.id, as: UUID.self), placeID: try row.decode(column: ReviewColumn.placeID, as: UUID.self),
                          authorID: try row.decode(column: ReviewColumn.authorID, as: UUID.self),
                          title: try row.decode(column: ReviewColumn.title, as: String.self), rating: try row.decode(column: ReviewColumn.rating, as: Int.self),
                          text: try row.decode(column: ReviewColumn.text, as: String.self),
                          hidden: try row.decode(column: ReviewColumn.hiddenAt, as: Date?.self) != nil)
            }
    }

    /// The review whose id begins with the LookForRealBurger app's 24-hex `objectID`, hidden or not.
    package func review(objectID: String) async throws -> ReviewRow? {
        guard let id = try await id(in: Self.reviews, objectID: objectID) else { return nil }
        return try await review(id)
    }

    /// How many visible reviews `author` has.
    func visibleReviewCount(by author: UUID) async throws -> Int {
        try await sql.count(Self.reviews) {
            $0.where(SQLIdentifier(ReviewColumn.authorID), .equal, SQLBind(author)).where(SQLIdentifier(ReviewColumn.hiddenAt), .is, SQLLiteral.null)
        }
    }

    /// The ids of `author`'s visible reviews, with when each was written.
    func visibleReviews(by author: UUID) async throws -> [(id: UUID, createdAt: Date?)] {
        try await sql.select().column(ReviewColumn.id).column(ReviewColumn.createdAt).from(Self.reviews)
            .where(SQLIdentifier(ReviewColumn.authorID), .equal, SQLBind(author)).where(SQLIdentifier(ReviewColumn.hiddenAt), .is, SQLLiteral.null).all()
            .map { (try $0.decode(column: ReviewColumn.id, as: UUID.self), try $0.decode(column: ReviewColumn.createdAt, as: Date?.self)) }
    }

    // MARK: Writing

    /// Writes a review: the photos (the author's own, on no review yet) join it, the place's count,
    /// rating and cover follow, and a place someone else made is verified — all in one transaction,
    /// so a failure (a photo taken meanwhile: `invalid_photo`) leaves the photos free. `writtenAt`
    /// dates it (the seeded catalog's reviews); now without it.
    func addReview(id: UUID, _ draft: ReviewDraft, by author: UUID, writtenAt: Date? = nil) async throws {
        try await transaction { store in
            let time = (writtenAt ?? store.environment.now()).wholeMicroseconds
            try await store.sql.insert(NewReview(id: id, placeID: draft.placeID, authorID: author, title: draft.title, rating: draft.rating,
                                                 text: draft.text, likeCount: 0, bookmarkCount: 0, commentCount: 0, reportCount: 0, hiddenAt: nil,
                                                 createdAt: time, updatedAt: time), into: BurgerReview.schema)
            try await store.attach(draft.photoIDs, to: id, of: draft.placeID, owner: author)
            try await store.adjustPlace(draft.placeID, reviews: 1, ratings: draft.rating)
            try await store.verifyPlace(draft.placeID, reviewedBy: author)
            await store.announcements.placesChanged([draft.placeID], store: store)
        }
    }

    /// Changes a review's title, rating and text; with `photoIDs`, its photos become these in this
    /// order (those left out are detached: deleting them is the caller's). A visible review's
    /// rating moves its place's sum.
    func editReview(_ review: ReviewRow, to draft: ReviewDraft, photoIDs: [UUID]?) async throws {
        let ratingChange = draft.rating - review.rating
        try await transaction { store in
            if let photoIDs {
                // Detach all, then attach the new list in its order: kept photos are the author's too.
                try await store.sql.update(Self.photos).set(SQLIdentifier(PhotoColumn.reviewID), to: SQLLiteral.null)
                    .where(SQLIdentifier(PhotoColumn.reviewID), .equal, SQLBind(review.id)).run()
                try await store.attach(photoIDs, to: review.id, of: review.placeID, owner: review.authorID)
            }
            try await store.sql.update(Self.reviews)
                .set(SQLIdentifier(ReviewColumn.title), to: SQLBind(draft.title)).set(SQLIdentifier(ReviewColumn.rating), to: SQLBind(draft.rating))
                .set(SQLIdentifier(ReviewColumn.text), to: SQLBind(draft.text)).set(SQLIdentifier(ReviewColumn.updatedAt), to: SQLBind(store.environment.now()))
                .where(SQLIdentifier(ReviewColumn.id), .equal, SQLBind(review.id)).run()
            if !review.hidden && ratingChange != 0 {
                try await store.adjustPlace(review.placeID, reviews: 0, ratings: ratingChange)
            }
        }
        if photoIDs != nil {
            try await refreshCover(of: review.placeID)
        } else if ratingChange != 0 {
            await announcements.placesChanged([review.placeID], store: self)
        }
        await announcements.contentChanged(places: [review.placeID])
    }

    /// Deletes a review with its photos' rows, reactions, comments and reports; a visible one leaves
    /// its place's count and rating. Returns the photos it had (their files and bytes are the caller's).
    /// `audit`: the operator's entry, written in the same transaction when this call deleted it.
    func deleteReview(_ review: ReviewRow, audit: AuditEntry? = nil) async throws -> [PhotoRow] {
        let photos = try await self.photos(ofReviews: [review.id])[review.id] ?? []
        try await transaction { store in
            try await store.sql.delete(from: Self.photos).where(SQLIdentifier(PhotoColumn.reviewID), .equal, SQLBind(review.id)).run()
            try await BurgerPeopleStore(database: store.database, now: store.environment.now).removeReactions(on: review.id)
            try await store.sql.delete(from: Self.comments).where(SQLIdentifier(CommentColumn.reviewID), .equal, SQLBind(review.id)).run()
            try await store.sql.delete(from: Self.reports).where(SQLIdentifier(ReportColumn.reviewID), .equal, SQLBind(review.id)).run()
            await store.announcements.moderationChanged()
            let removed = try await store.sql.delete(from: Self.reviews).where(SQLIdentifier(ReviewColumn.id), .equal, SQLBind(review.id))
                .returning(SQLIdentifier(ReviewColumn.id)).all()
            // Two deletes that race take it off its place, and write the operator's entry, once.
            guard !removed.isEmpty else { return }
            if !review.hidden { try await store.adjustPlace(review.placeID, reviews: -1, ratings: -review.rating) }
            if let audit { try await AuditLog(database: store.database).record(audit) }
        }
        try await refreshCover(of: review.placeID)
        return photos
    }

    /// Gives the photos to the review in the order given. Each must be the owner's and on no
    /// review: the update names both, so a photo taken by a parallel review fails this one. The
    /// first becomes the place's cover.
    func attach(_ photoIDs: [UUID], to reviewID: UUID, of placeID: UUID, owner: UUID) async throws {
        for (position, photoID) in photoIDs.enumerated() {
            let taken = try await sql.update(Self.photos)
                .set(SQLIdentifier(PhotoColumn.reviewID), to: SQLBind(reviewID)).set(SQLIdentifier(PhotoColumn.position), to: SQLBind(position))
                .where(SQLIdentifier(PhotoColumn.id), .equal, SQLBind(photoID)).where(SQLIdentifier(PhotoColumn.ownerID), .equal, SQLBind(owner))
                .where(SQLIdentifier(PhotoColumn.reviewID), .is, SQLLiteral.null)
                .returning(SQLIdentifier(PhotoColumn.id)).all()
            guard !taken.isEmpty else { throw AppError.invalid("invalid_photo", ["id": photoID.uuidString.lowercased()]) }
        }
        if let first = photoIDs.first { try await setCover(of: placeID, to: first) }
    }

    /// Moves one of a review's counters (inside the transaction of the row it counts).
    func increment(_ counter: ReviewCounter, of reviewID: UUID, by amount: Int) async throws {
        let column = SQLIdentifier(counter.column)
        try await sql.update(Self.reviews).set(column, to: SQLBinaryExpression(column, .add, SQLBind(amount)))
            .where(SQLIdentifier(ReviewColumn.id), .equal, SQLBind(reviewID)).run()
    }

    /// Sets (`on`) or clears a like or bookmark with its review's counter, in one transaction.
    /// Returns whether a reaction was added (false when it was there, or a parallel request set it).
    func react(_ kind: BurgerReaction.Kind, on reviewID: UUID, by person: UUID, to on: Bool) async throws -> Bool {
        let counter: ReviewCounter = kind == .like ? .likes : .bookmarks
        var added = false
        if on {
            if try await !BurgerPeopleStore(database: database, now: environment.now).hasReaction(kind, on: reviewID, by: person) {
                do {
                    added = try await transaction { store in
                        guard try await BurgerPeopleStore(database: store.database, now: store.environment.now).addReaction(kind, on: reviewID, by: person) else { return false }
                        try await store.increment(counter, of: reviewID, by: 1)
                        return true
                    }
                } catch let error as any DatabaseError where error.isConstraintFailure {
                    added = false  // A parallel request set it first.
                }
            }
        } else {
            try await transaction { store in
                let removed = try await BurgerPeopleStore(database: store.database, now: store.environment.now).removeReaction(kind, on: reviewID, by: person)
                if removed > 0 { try await store.increment(counter, of: reviewID, by: -removed) }
            }
        }
        await announcements.contentChanged(places: [])  // likes and bookmarks show on reviews, not places
        return added
    }

    // MARK: Reports

    /// What makes reports hide a review (`BurgerMapService` holds the numbers).
    struct ReportRule: Sendable {
        /// The counted reports that hide it.
        let reportsToHide: Int
        /// A reporter counts when their account is this old, or has this many visible reviews this
        /// old, or is an admin's.
        let standingAge: TimeInterval
        let standingReviews: Int
    }

    func hasReported(_ reviewID: UUID, by reporter: UUID) async throws -> Bool {
        try await sql.count(Self.reports) {
            $0.where(SQLIdentifier(ReportColumn.reviewID), .equal, SQLBind(reviewID)).where(SQLIdentifier(ReportColumn.reporterID), .equal, SQLBind(reporter))
        } > 0
    }

    /// Writes one account's report and moves the review's count of the reports that count; the
    /// report that reaches `rule.reportsToHide` hides it and takes it out of its place's count and
    /// rating (only that one, even if reports race). Returns whether this report hid it. A second
    /// report by the same account is a constraint failure, the caller's to read.
    func addReport(of review: ReviewRow, reason: String, by reporter: UUID, rule: ReportRule) async throws -> Bool {
        let hidden = try await transaction { store -> Bool in
            try await store.sql.insert(NewReport(id: UUID(), reviewID: review.id, reporterID: reporter, reason: reason, dismissedAt: nil,
                                                 createdAt: store.environment.now().wholeMicroseconds), into: BurgerReport.schema)
            await store.announcements.moderationChanged()
            let count = try await store.countedReports(of: review.id, rule: rule)
            let update = store.sql.update(Self.reviews).set(SQLIdentifier(ReviewColumn.reportCount), to: SQLBind(count))
                .where(SQLIdentifier(ReviewColumn.id), .equal, SQLBind(review.id))
            guard count >= rule.reportsToHide else {
                try await update.run()
                return false
            }
            let hiddenNow = try await update.set(SQLIdentifier(ReviewColumn.hiddenAt), to: SQLBind(store.environment.now()))
                .where(SQLIdentifier(ReviewColumn.hiddenAt), .is, SQLLiteral.null).returning(SQLIdentifier(ReviewColumn.id)).all()
            guard !hiddenNow.isEmpty else { return false }
            try await store.adjustPlace(review.placeID, reviews: -1, ratings: -review.rating)
            return true
        }
        if hidden { try await refreshCover(of: review.placeID) }
        return hidden
    }

    /// The reports of a review that count: not dismissed, by reporters with standing.
    func countedReports(of reviewID: UUID, rule: ReportRule) async throws -> Int {
        let standingSince = environment.now().addingTimeInterval(-rule.standingAge)
        let row = try await sql.raw("""
            SELECT COUNT(*) AS counted FROM \(Self.reports) r
            JOIN \(ident: User.schema) u ON u.\(ident: AccountStore.Column.id) = r.\(ident: ReportColumn.reporterID)
            WHERE r.\(ident: ReportColumn.reviewID) = \(bind: reviewID) AND r.\(ident: ReportColumn.dismissedAt) IS NULL
            AND (u.\(ident: AccountStore.Column.createdAt) <= \(bind: standingSince) OR u.\(ident: AccountStore.Column.role) = \(bind: Role.admin.rawValue)
                 OR (SELECT COUNT(*) FROM \(Self.reviews) v
                     WHERE v.\(ident: ReviewColumn.authorID) = u.\(ident: AccountStore.Column.id) AND v.\(ident: ReviewColumn.hiddenAt) IS NULL
                     AND v.\(ident: ReviewColumn.createdAt) <= \(bind: standingSince)) >= \(literal: rule.standingReviews))
            """).first()
        return try row?.decode(column: "counted", as: Int.self) ?? 0
    }

    /// Shows a hidden review again; its reports stay, dismissed (they no longer count, and their
    /// reporters cannot report it again). Returns whether this call showed it.
    @discardableResult
    /// `audit`: the operator's entry, written in the same transaction when this call showed it.
    func restore(_ review: ReviewRow, audit: AuditEntry? = nil) async throws -> Bool {
        let shown = try await transaction { store -> Bool in
            let shown = try await store.sql.update(Self.reviews)
                .set(SQLIdentifier(ReviewColumn.reportCount), to: SQLBind(0)).set(SQLIdentifier(ReviewColumn.hiddenAt), to: SQLLiteral.null)
                .where(SQLIdentifier(ReviewColumn.id), .equal, SQLBind(review.id)).where(SQLIdentifier(ReviewColumn.hiddenAt), .isNot, SQLLiteral.null)
                .returning(SQLIdentifier(ReviewColumn.id)).all()
            guard !shown.isEmpty else { return false }
            try await store.sql.update(Self.reports).set(SQLIdentifier(ReportColumn.dismissedAt), to: SQLBind(store.environment.now()))
                .where(SQLIdentifier(ReportColumn.reviewID), .equal, SQLBind(review.id)).where(SQLIdentifier(ReportColumn.dismissedAt), .is, SQLLiteral.null)
                .run()
            await store.announcements.moderationChanged()
            try await store.adjustPlace(review.placeID, reviews: 1, ratings: review.rating)
            if let audit { try await AuditLog(database: store.database).record(audit) }
            return true
        }
        if shown { try await refreshCover(of: review.placeID) }
        return shown
    }
}

/// A review as the rules read it (lists and pages read `ReviewCard`s).
package struct ReviewRow: Sendable {
    package let id: UUID
    package let placeID: UUID
    package let authorID: UUID
    let title: String
    let rating: Int
    let text: String
    /// Hidden by reports until an admin restores it.
    let hidden: Bool
}
