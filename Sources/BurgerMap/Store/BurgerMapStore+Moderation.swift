import Accounts
import Fluent
import Foundation
import Platform
import SQLKit

/// What the console's Moderation tab reads and writes of the map: reviews with reports nobody has
/// decided on, reviews hidden, an operator's hiding, and place suggestions set aside.
extension BurgerMapStore {
    /// A review waiting for a decision or hidden: its reports not yet decided on, and the newest reason.
    struct ModerationItem: Sendable, Equatable {
        let id: UUID
        let title: String
        let authorID: UUID
        let hiddenAt: Date?
        let openReports: Int
        let lastReason: String?
    }

    /// Reviews with reports not decided on (those first, most reported first), then hidden ones, newest first.
    func moderationQueue(limit: Int = 50) async throws -> [ModerationItem] {
        let open = SQLQueryString("""
            (SELECT COUNT(*) FROM \(Self.reports) p WHERE p.\(ident: ReportColumn.reviewID) = r.\(ident: ReviewColumn.id) AND p.\(ident: ReportColumn.dismissedAt) IS NULL)
            """)
        let lastReason = SQLQueryString("""
            (SELECT p.\(ident: ReportColumn.reason) FROM \(Self.reports) p WHERE p.\(ident: ReportColumn.reviewID) = r.\(ident: ReviewColumn.id)
             ORDER BY p.\(ident: ReportColumn.createdAt) DESC LIMIT 1)
            """)
        let rows = try await sql.raw("""
            SELECT r.\(ident: ReviewColumn.id), r.\(ident: ReviewColumn.title), r.\(ident: ReviewColumn.authorID), r.\(ident: ReviewColumn.hiddenAt),
                   \(open) AS open_reports, \(lastReason) AS last_reason
            FROM \(Self.reviews) r
            WHERE r.\(ident: ReviewColumn.hiddenAt) IS NOT NULL OR \(open) > 0
            ORDER BY open_reports DESC, r.\(ident: ReviewColumn.hiddenAt) DESC, r.\(ident: ReviewColumn.createdAt) DESC
            LIMIT \(literal: limit)
            """).all()
        return try rows.map { row in
            ModerationItem(id: try row.decode(column: ReviewColumn.id, as: UUID.self), title: try row.decode(column: ReviewColumn.title, as: String.self),
                           authorID: try row.decode(column: ReviewColumn.authorID, as: UUID.self),
                           hiddenAt: try row.decode(column: ReviewColumn.hiddenAt, as: Date?.self),
                           openReports: try row.decode(column: "open_reports", as: Int.self), lastReason: try row.decode(column: "last_reason", as: String?.self))
        }
    }

    /// How many reviews wait for a decision (reports not decided on), for Today.
    func reviewsAwaitingDecision() async throws -> Int {
        try await sql.raw("""
            SELECT COUNT(DISTINCT \(ident: ReportColumn.reviewID)) AS waiting FROM \(Self.reports) WHERE \(ident: ReportColumn.dismissedAt) IS NULL
            """).first(decodingColumn: "waiting", as: Int.self) ?? 0
    }

    /// An operator upholds the reports: the review is hidden (if it was not yet, out of its place's
    /// count and rating) and its reports are decided on. Returns whether this call hid it.
    @discardableResult
    func hideByOperator(_ review: ReviewRow) async throws -> Bool {
        let now = environment.now()
        let hidden = try await transaction { store -> Bool in
            let hiddenNow = try await store.sql.update(Self.reviews).set(SQLIdentifier(ReviewColumn.hiddenAt), to: SQLBind(now))
                .where(SQLIdentifier(ReviewColumn.id), .equal, SQLBind(review.id)).where(SQLIdentifier(ReviewColumn.hiddenAt), .is, SQLLiteral.null)
                .returning(SQLIdentifier(ReviewColumn.id)).all()
            try await store.dismissReports(of: review.id, at: now)
            guard !hiddenNow.isEmpty else { return false }
            try await store.adjustPlace(review.placeID, reviews: -1, ratings: -review.rating)
            return true
        }
        if hidden { try await refreshCover(of: review.placeID) }
        return hidden
    }

    /// Marks a review's reports decided on (they stop counting and leave the queue).
    func dismissReports(of reviewID: UUID) async throws {
        try await dismissReports(of: reviewID, at: environment.now())
    }

    private func dismissReports(of reviewID: UUID, at now: Date) async throws {
        try await sql.update(Self.reports).set(SQLIdentifier(ReportColumn.dismissedAt), to: SQLBind(now))
            .where(SQLIdentifier(ReportColumn.reviewID), .equal, SQLBind(reviewID)).where(SQLIdentifier(ReportColumn.dismissedAt), .is, SQLLiteral.null).run()
        await announcements.moderationChanged()
    }

    /// Sets a place suggestion aside; false when there was none.
    func removeSuggestion(_ id: UUID) async throws -> Bool {
        let removed = try await !sql.delete(from: Self.suggestions).where(SQLIdentifier(SuggestionColumn.id), .equal, SQLBind(id))
            .returning(SQLIdentifier(SuggestionColumn.id)).all().isEmpty
        if removed { await announcements.moderationChanged() }
        return removed
    }

    func suggestionCount() async throws -> Int {
        try await sql.count(Self.suggestions) { $0 }
    }
}
