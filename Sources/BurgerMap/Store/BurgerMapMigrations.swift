import Accounts
import Fluent
import Platform
import SQLKit

struct CreateBurgerPlaces: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(BurgerPlace.schema)
            .id()
            .field("name", .string, .required)
            .field("name_key", .string, .required)
            .field("address", .string, .required)
            .field("lat", .double, .required)
            .field("lon", .double, .required)
            .field("phone", .string)
            .field("created_by", .uuid, .references(User.schema, "id", onDelete: .setNull))
            .field("review_count", .int, .required)
            .field("rating_sum", .int, .required)
            .field("created_at", .datetime)
            .create()
        // Map boxes filter by latitude first, then longitude.
        try await database.sql.create(index: "burger_places_lat_lon").on(BurgerPlace.schema).column("lat").column("lon").run()
        try await database.sql.create(index: "burger_places_name_key").on(BurgerPlace.schema).column("name_key").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(BurgerPlace.schema).delete()
    }
}

/// Reviews and everything people do with them: photos, likes and bookmarks, comments, reports,
/// marks on places and follows.
struct CreateBurgerReviews: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(BurgerPlace.schema).field("cover_photo_id", .uuid).update()

        try await database.schema(BurgerReview.schema)
            .id()
            .field("place_id", .uuid, .required, .references(BurgerPlace.schema, "id", onDelete: .cascade))
            .field("author_id", .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .field("title", .string, .required)
            .field("rating", .int, .required)
            .field("text", .string, .required)
            .field("like_count", .int, .required)
            .field("bookmark_count", .int, .required)
            .field("comment_count", .int, .required)
            .field("report_count", .int, .required)
            .field("hidden_at", .datetime)
            .field("created_at", .datetime)
            .field("updated_at", .datetime)
            .create()
        // Newest first: everyone's list, a place's, an author's (and so the feed).
        try await database.sql.create(index: "burger_reviews_created").on(BurgerReview.schema).column("created_at").column("id").run()
        try await database.sql.create(index: "burger_reviews_place").on(BurgerReview.schema).column("place_id").column("created_at").run()
        try await database.sql.create(index: "burger_reviews_author").on(BurgerReview.schema).column("author_id").column("created_at").run()

        try await database.schema(BurgerPhoto.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .field("review_id", .uuid, .references(BurgerReview.schema, "id", onDelete: .setNull))
            .field("position", .int, .required)
            .field("file_key", .string)
            .field("artwork", .string)
            .field("width", .int, .required)
            .field("height", .int, .required)
            .field("created_at", .datetime)
            .create()
        try await database.sql.create(index: "burger_photos_review").on(BurgerPhoto.schema).column("review_id").run()
        try await database.sql.create(index: "burger_photos_file").on(BurgerPhoto.schema).column("file_key").run()

        try await database.schema(BurgerReaction.schema)
            .id()
            .field("kind", .string, .required)
            .field("review_id", .uuid, .required, .references(BurgerReview.schema, "id", onDelete: .cascade))
            .field("user_id", .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .field("created_at", .datetime)
            .unique(on: "user_id", "kind", "review_id")
            .create()
        try await database.sql.create(index: "burger_reactions_user").on(BurgerReaction.schema).column("user_id").column("kind").column("created_at").run()

        try await database.schema(BurgerComment.schema)
            .id()
            .field("review_id", .uuid, .required, .references(BurgerReview.schema, "id", onDelete: .cascade))
            .field("author_id", .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .field("text", .string, .required)
            .field("created_at", .datetime)
            .field("updated_at", .datetime)
            .create()
        try await database.sql.create(index: "burger_comments_review").on(BurgerComment.schema).column("review_id").column("created_at").run()

        try await database.schema(BurgerReport.schema)
            .id()
            .field("review_id", .uuid, .required, .references(BurgerReview.schema, "id", onDelete: .cascade))
            .field("reporter_id", .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .field("reason", .string, .required)
            .field("created_at", .datetime)
            .unique(on: "review_id", "reporter_id")
            .create()

        try await database.schema(BurgerMark.schema)
            .id()
            .field("kind", .string, .required)
            .field("place_id", .uuid, .required, .references(BurgerPlace.schema, "id", onDelete: .cascade))
            .field("user_id", .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .field("created_at", .datetime)
            .unique(on: "user_id", "kind", "place_id")
            .create()
        try await database.sql.create(index: "burger_marks_user").on(BurgerMark.schema).column("user_id").column("kind").column("created_at").run()

        try await database.schema(BurgerFollow.schema)
            .id()
            .field("follower_id", .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .field("followee_id", .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .field("created_at", .datetime)
            .unique(on: "follower_id", "followee_id")
            .create()
        try await database.sql.create(index: "burger_follows_followee").on(BurgerFollow.schema).column("followee_id").column("created_at").run()
        try await database.sql.create(index: "burger_follows_follower").on(BurgerFollow.schema).column("follower_id").column("created_at").run()
    }

    func revert(on database: any Database) async throws {
        for schema in [BurgerFollow.schema, BurgerMark.schema, BurgerReport.schema, BurgerComment.schema, BurgerReaction.schema,
                       BurgerPhoto.schema, BurgerReview.schema] {
            try await database.schema(schema).delete()
        }
        try await database.schema(BurgerPlace.schema).deleteField("cover_photo_id").update()
    }
}

/// The feed of someone who follows many people walks reviews newest first and keeps those of the
/// people followed; this index holds the author beside the time, so the walk never reads a row.
struct AddReviewTimelineIndex: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.sql.create(index: "burger_reviews_timeline").on(BurgerReview.schema)
            .column("created_at").column("id").column("author_id").column("hidden_at").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.drop(index: "burger_reviews_timeline").run()
    }
}

/// What the LookForRealBurger app needs beside the map: the Kakao place id it deduplicates shops
/// by (one place per id), who liked a review or marked a place found by the review or place, and
/// the donations of its "후원하기" button. Written before the app's layer was a module of its own
/// and kept here, recorded under its name, so existing databases do not run it again; the
/// `burger_donations` table is the layer's (`BurgerDonation` in LookForRealBurgerApp).
struct AddAppPlaceKeysAndDonations: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(BurgerPlace.schema).field("kakao_id", .string).update()
        try await database.sql.create(index: "burger_places_kakao_id").unique().on(BurgerPlace.schema).column("kakao_id").run()
        // The app's posts list everyone who liked a review or marked a place (its likes arrays).
        try await database.sql.create(index: "burger_reactions_review").on(BurgerReaction.schema).column("review_id").column("created_at").run()
        try await database.sql.create(index: "burger_marks_place").on(BurgerMark.schema).column("place_id").column("created_at").run()

        try await database.schema("burger_donations")
            .id()
            .field("user_id", .uuid, .references(User.schema, "id", onDelete: .setNull))
            .field("payment_id", .string, .required)
            .field("merchant_uid", .string, .required)
            .field("amount", .int, .required)
            .field("gateway", .string, .required)
            .field("created_at", .datetime)
            .unique(on: "payment_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("burger_donations").delete()
        for index in ["burger_marks_place", "burger_reactions_review", "burger_places_kakao_id"] {
            try await database.sql.drop(index: index).run()
        }
        try await database.schema(BurgerPlace.schema).deleteField("kakao_id").update()
    }
}

/// A report an admin dismissed by restoring its review stays, marked: it no longer counts, and its
/// reporter cannot report that review again (the unique pair still holds).
struct AddReportDismissals: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(BurgerReport.schema).field("dismissed_at", .datetime).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(BurgerReport.schema).deleteField("dismissed_at").update()
    }
}
