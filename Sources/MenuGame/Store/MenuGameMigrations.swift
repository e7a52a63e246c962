import Accounts
import Fluent
import Platform
import SQLKit

struct CreateMenus: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(MenuRecord.schema)
            .id()
            .field("slug", .string, .required)
            .field("name_ko", .string, .required)
            .field("name_en", .string, .required)
            .field("name_ja", .string, .required)
            .field("emoji", .string, .required)
            .field("nations", .array(of: .string), .required)
            .field("flavors", .array(of: .string), .required)
            .field("rice", .bool, .required)
            .field("noodle", .bool, .required)
            .field("soup", .bool, .required)
            .field("healthy", .bool, .required)
            .field("instant", .bool, .required)
            .field("alcohol", .bool, .required)
            .field("expense", .string)
            .field("image_url", .string)
            .field("edited_by_admin", .bool, .required)
            .field("retired_at", .datetime)
            .field("created_at", .datetime)
            .field("updated_at", .datetime)
            .unique(on: "slug")
            .create()
        try await database.sql.create(index: "menus_created_at_id").on(MenuRecord.schema)
            .column("created_at").column("id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(MenuRecord.schema).delete()
    }
}

struct CreateMenuGroups: NamedMigration {
    func prepare(on database: any Database) async throws {
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

    func revert(on database: any Database) async throws {
        try await database.schema(MenuDeviceHistory.schema).delete()
        try await database.schema(MenuGroupSubmission.schema).delete()
        try await database.schema(MenuGroup.schema).delete()
    }
}

/// Which account answered (when signed in), so a group's result reaches its members' inboxes.
struct AddSubmissionUserID: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(MenuGroupSubmission.schema)
            .field(MenuGroupStore.SubmissionColumn.userID.fieldKey, .uuid, .references(User.schema, "id", onDelete: .setNull)).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(MenuGroupSubmission.schema).deleteField(MenuGroupStore.SubmissionColumn.userID.fieldKey).update()
    }
}

struct CreateMenuGamePreferencesAndFeedback: NamedMigration {
    func prepare(on database: any Database) async throws {
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

    func revert(on database: any Database) async throws {
        try await database.schema(MenuGameFeedback.schema).delete()
        try await database.schema(MenuGamePreference.schema).delete()
    }
}

/// The group's room: who joined, so the waiting room can list people, not just a count.
/// Where a player's 우리뭐먹지 app takes pushes (issue 60): its FCM token and Firebase project.
struct AddMenuGroupMemberPush: NamedMigration {
    func prepare(on database: any Database) async throws {
        typealias Column = MenuGroupStore.MemberColumn
        try await database.schema(MenuGroupMember.schema).field(Column.pushToken.fieldKey, .string).update()
        try await database.schema(MenuGroupMember.schema).field(Column.pushProject.fieldKey, .string).update()
    }

    func revert(on database: any Database) async throws {
        typealias Column = MenuGroupStore.MemberColumn
        try await database.schema(MenuGroupMember.schema).deleteField(Column.pushToken.fieldKey).update()
        try await database.schema(MenuGroupMember.schema).deleteField(Column.pushProject.fieldKey).update()
    }
}

struct CreateMenuGroupMembers: NamedMigration {
    func prepare(on database: any Database) async throws {
        typealias Column = MenuGroupStore.MemberColumn
        try await database.schema(MenuGroupMember.schema)
            .id()
            .field(Column.groupID.fieldKey, .uuid, .required, .references(MenuGroup.schema, "id", onDelete: .cascade))
            .field(Column.playerTokenHash.fieldKey, .string, .required)
            .field(Column.userID.fieldKey, .uuid, .references(User.schema, "id", onDelete: .setNull))
            .field(Column.guestName.fieldKey, .string)
            .field(Column.joinedAt.fieldKey, .datetime, .required)
            .unique(on: Column.groupID.fieldKey, Column.playerTokenHash.fieldKey)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(MenuGroupMember.schema).delete()
    }
}
