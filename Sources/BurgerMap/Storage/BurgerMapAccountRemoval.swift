import Fluent
import Media
import Platform
import SQLKit
import Vapor

/// When an account is deleted its reviews, photos, likes, comments, marks and follows go by
/// cascade; this moves the numbers other rows keep about them in the same transaction: the places
/// its visible reviews counted in, and the like, bookmark, comment and report counts of the
/// reviews it reacted to.
enum BurgerMapAccountRemoval {
    static func register(_ app: Application) {
        app.accountRemovals.register(beforeDelete: { user, database in
            try await settle(user, on: database.sql)
        }, afterDelete: { [weak app] _, _ in
            guard let app else { return }
            if app.placeIndex.isLoaded { try await app.placeIndex.reload(from: app.db, files: app.files) }
            app.placeVersions.changedEverything()
            app.burgerMapCache.invalidate()
            await app.events.publish(PlaceVersions.message(places: nil), to: PlaceIndex.contentTopic)
        })
    }

    static func settle(_ user: UUID, on sql: any SQLDatabase) async throws {
        // The places its visible reviews were counted in.
        try await sql.raw("""
            UPDATE burger_places SET
              review_count = review_count - (SELECT COUNT(*) FROM burger_reviews r
                WHERE r.place_id = burger_places.id AND r.author_id = \(bind: user) AND r.hidden_at IS NULL),
              rating_sum = rating_sum - (SELECT COALESCE(SUM(r.rating), 0) FROM burger_reviews r
                WHERE r.place_id = burger_places.id AND r.author_id = \(bind: user) AND r.hidden_at IS NULL)
            WHERE id IN (SELECT place_id FROM burger_reviews WHERE author_id = \(bind: user))
            """).run()
        // Likes and bookmarks it gave (one each per review).
        for (kind, counter) in [(BurgerReaction.Kind.like, "like_count"), (.bookmark, "bookmark_count")] {
            try await sql.raw("""
                UPDATE burger_reviews SET \(ident: counter) = \(ident: counter) - 1
                WHERE id IN \(BurgerPeopleStore.reviews(reactedBy: user, kind))
                """).run()
        }
        // Comments it wrote and reports it made on others' reviews.
        for (table, column, counter) in [("burger_comments", "author_id", "comment_count"), ("burger_reports", "reporter_id", "report_count")] {
            try await sql.raw("""
                UPDATE burger_reviews SET \(ident: counter) = \(ident: counter) - (SELECT COUNT(*) FROM \(ident: table) x
                  WHERE x.review_id = burger_reviews.id AND x.\(ident: column) = \(bind: user))
                WHERE id IN (SELECT review_id FROM \(ident: table) WHERE \(ident: column) = \(bind: user))
                """).run()
        }
        // Covers that were its photos: the place's next newest visible review's first photo.
        try await sql.raw("""
            UPDATE burger_places SET cover_photo_id = (
              SELECT p.id FROM burger_photos p JOIN burger_reviews r ON r.id = p.review_id
              WHERE r.place_id = burger_places.id AND r.hidden_at IS NULL AND r.author_id <> \(bind: user)
              ORDER BY r.created_at DESC, p.position LIMIT 1)
            WHERE cover_photo_id IN (SELECT id FROM burger_photos WHERE owner_id = \(bind: user))
            """).run()
    }
}
