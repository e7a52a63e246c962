import Accounts
import Fluent
import Platform
import SQLKit

struct CreateMenus: NamedMigration {
    package func prepare(on database: any Database) async throws {
        try await database.schema(MenuRecord.schema)
            .id()
            .field(.string(MenuStore.Column.slug), .string, .required)
            .field(.string(MenuStore.Column.nameKo), .string, .required)
            .field(.string(MenuStore.Column.nameEn), .string, .required)
            .field(.string(MenuStore.Column.nameJa), .string, .required)
            .field(.string(MenuStore.Column.emoji), .string, .required)
            .field(.string(MenuStore.Column.nations), .array(of: .string), .required)
            .field(.string(MenuStore.Column.flavors), .array(of: .string), .required)
            .field(.string(MenuStore.Column.rice), .bool, .required)
            .field(.string(MenuStore.Column.noodle), .bool, .required)
            .field(.string(MenuStore.Column.soup), .bool, .required)
            .field(.string(MenuStore.Column.healthy), .bool, .required)
            .field(.string(MenuStore.Column.instant), .bool, .required)
            .field(.string(MenuStore.Column.alcohol), .bool, .required)
            .field(.string(MenuStore.Column.expense), .string)
            .field(.string(MenuStore.Column.imageURL), .string)
            .field(.string(MenuStore.Column.editedByAdmin), .bool, .required)
            .field(.string(MenuStore.Column.retiredAt), .datetime)
            .field(.string(MenuStore.Column.createdAt), .datetime)
            .field(.string(MenuStore.Column.updatedAt), .datetime)
            .unique(on: .string(MenuStore.Column.slug))
            .create()
        try await database.sql.create(index: "menus_created_at_id").on(MenuRecord.schema)
            .column(MenuStore.Column.createdAt).column(MenuStore.Column.id).run()
    }

    package func revert(on database: any Database) async throws {
        try await database.schema(MenuRecord.schema).delete()
    }
}

struct CreateMenuGroups: NamedMigration {
    package func prepare(on database: any Database) async throws {
        try await database.schema(MenuGroup.schema)
            .id()
            .field("pin", .string, .required)
            .field("host_token_hash", .string, .required)
            .field("host_user_id", .uuid, .references(User.schema, "id", onDelete: .setNull))
            .field("recommender", .string, .required)
            .field("last_activity_at", .datetime, .required)
            .field("closed_at", .datetime)
            .field("result", .string)
            .field("created_at", .datetime)
            .unique(on: "pin")
            .create()
        try await database.schema(MenuGroupSubmission.schema)
            .id()
            .field("group_id", .uuid, .required, .references(MenuGroup.schema, "id", onDelete: .cascade))
            .field("player_token_hash", .string, .required)
            .field("answer", .string, .required)
            .field("submitted_at", .datetime, .required)
            .unique(on: "group_id", "player_token_hash")
            .create()
        try await database.schema(MenuDeviceHistory.schema)
            .id()
            .field("device_hash", .string, .required)
            .field("menu_slug", .string, .required)
            .field("shown_at", .datetime, .required)
            .create()
        try await database.sql.create(index: "menu_device_history_device_shown").on(MenuDeviceHistory.schema)
            .column("device_hash").column("shown_at").run()
    }

    package func revert(on database: any Database) async throws {
        try await database.schema(MenuDeviceHistory.schema).delete()
        try await database.schema(MenuGroupSubmission.schema).delete()
        try await database.schema(MenuGroup.schema).delete()
    }
}

struct CreateMenuGamePreferencesAndFeedback: NamedMigration {
    package func prepare(on database: any Database) async throws {
        try await database.schema(MenuGamePreference.schema)
            .id()
            .field("user_id", .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .field("disliked_foods", .array(of: .string), .required)
            .field("updated_at", .datetime)
            .unique(on: "user_id")
            .create()
        try await database.schema(MenuGameFeedback.schema)
            .id()
            .field("message", .string, .required)
            // Feedback outlives a withdrawn account, without the link to it.
            .field("user_id", .uuid, .references(User.schema, "id", onDelete: .setNull))
            .field("language", .string, .required)
            .field("created_at", .datetime)
            .create()
    }

    package func revert(on database: any Database) async throws {
        try await database.schema(MenuGameFeedback.schema).delete()
        try await database.schema(MenuGamePreference.schema).delete()
    }
}
