import Fluent
import Media
import Platform
import SQLKit
import Vapor

/// When an account is deleted its reviews, photos, likes, comments, marks and follows go by
/// cascade; the store moves the numbers other rows keep about them in the same transaction
/// (`BurgerMapStore.settleRemoval`), and announces everything once it is done.
enum BurgerMapAccountRemoval {
    static func register(_ app: Application) {
        app.accountRemovals.register(beforeDelete: { [weak app] user, database in
            guard let app else { return }
            try await BurgerMapStore(database: database, environment: app.burgerMapEnvironment).settleRemoval(of: user)
        }, afterDelete: { [weak app] _, _ in
            guard let app else { return }
            let store = BurgerMapStore(database: app.db, environment: app.burgerMapEnvironment)
            try await store.announcements.everythingChanged(store: store)
        })
    }
}

extension BurgerMapStore {
    /// Before an account's rows go by cascade: the places its visible reviews counted in, the like,
    /// bookmark, comment and report counts of the reviews it reacted to, and the covers that were
    /// its photos. Not announced (the caller's transaction has not committed): see `register`.
    func settleRemoval(of user: UUID) async throws {
        typealias R = ReviewColumn
        typealias P = PlaceColumn
        let places = Self.places, reviews = Self.reviews
        // The places its visible reviews were counted in.
        try await sql.raw("""
            UPDATE \(places) SET
              \(ident: P.reviewCount) = \(ident: P.reviewCount) - (SELECT COUNT(*) FROM \(reviews) r
                WHERE r.\(ident: R.placeID) = \(places).\(ident: P.id) AND r.\(ident: R.authorID) = \(bind: user) AND r.\(ident: R.hiddenAt) IS NULL),
              \(ident: P.ratingSum) = \(ident: P.ratingSum) - (SELECT COALESCE(SUM(r.\(ident: R.rating)), 0) FROM \(reviews) r
                WHERE r.\(ident: R.placeID) = \(places).\(ident: P.id) AND r.\(ident: R.authorID) = \(bind: user) AND r.\(ident: R.hiddenAt) IS NULL)
            WHERE \(ident: P.id) IN (SELECT \(ident: R.placeID) FROM \(reviews) WHERE \(ident: R.authorID) = \(bind: user))
            """).run()
        // Likes and bookmarks it gave (one each per review).
        for (kind, counter) in [(BurgerReaction.Kind.like, ReviewCounter.likes), (.bookmark, .bookmarks)] {
            try await sql.raw("""
                UPDATE \(reviews) SET \(ident: counter.column) = \(ident: counter.column) - 1
                WHERE \(ident: R.id) IN \(BurgerPeopleStore.reviews(reactedBy: user, kind))
                """).run()
        }
        // Comments it wrote and reports it made on others' reviews.
        let written: [(SQLIdentifier, any TableColumn, any TableColumn, R)] = [(Self.comments, CommentColumn.authorID, CommentColumn.reviewID, R.commentCount),
                                                                               (Self.reports, ReportColumn.reporterID, ReportColumn.reviewID, R.reportCount)]
        for (table, column, reviewColumn, counter) in written {
            try await sql.raw("""
                UPDATE \(reviews) SET \(ident: counter) = \(ident: counter) - (SELECT COUNT(*) FROM \(table) x
                  WHERE x.\(ident: reviewColumn) = \(reviews).\(ident: R.id) AND x.\(ident: column) = \(bind: user))
                WHERE \(ident: R.id) IN (SELECT \(ident: reviewColumn) FROM \(table) WHERE \(ident: column) = \(bind: user))
                """).run()
        }
        // Covers that were its photos: the place's next newest visible review's first photo.
        try await sql.raw("""
            UPDATE \(places) SET \(ident: P.coverPhotoID) = (
              SELECT p.\(ident: PhotoColumn.id) FROM \(Self.photos) p JOIN \(reviews) r ON r.\(ident: R.id) = p.\(ident: PhotoColumn.reviewID)
              WHERE r.\(ident: R.placeID) = \(places).\(ident: P.id) AND r.\(ident: R.hiddenAt) IS NULL AND r.\(ident: R.authorID) <> \(bind: user)
              ORDER BY r.\(ident: R.createdAt) DESC, p.\(ident: PhotoColumn.position) LIMIT 1)
            WHERE \(ident: P.coverPhotoID) IN (SELECT \(ident: PhotoColumn.id) FROM \(Self.photos) WHERE \(ident: PhotoColumn.ownerID) = \(bind: user))
            """).run()
    }
}
