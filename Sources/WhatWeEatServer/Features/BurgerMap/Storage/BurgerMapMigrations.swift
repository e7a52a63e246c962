import Fluent
import SQLKit

struct CreateBurgerPlaces: AsyncMigration {
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
