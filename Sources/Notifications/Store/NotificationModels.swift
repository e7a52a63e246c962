package import Accounts
package import Fluent
import FluentSQL
import Foundation
import Platform
import SQLKit

/// One line in a person's inbox: someone did something that concerns them ("liked your review").
/// Any service posts here through `NotificationStore`; the text is written when it is read, in the
/// reader's language, from `kind` and the actor's current nickname.
package final class InboxNotification: Model, @unchecked Sendable {
    package static let schema = "notifications"

    @ID(key: .id) package var id: UUID?
    @Parent(key: NotificationStore.Column.recipientID.fieldKey) package var recipient: User
    @OptionalParent(key: NotificationStore.Column.actorID.fieldKey) package var actor: User?
    /// The service that posted it (`burger-map`, `mates`).
    @Field(key: NotificationStore.Column.service.fieldKey) package var service: String
    /// What happened (`review_liked`); the message is `notification.<kind>`.
    @Field(key: NotificationStore.Column.kind.fieldKey) package var kind: String
    /// What it is about (a review), for clients that open it.
    @OptionalField(key: NotificationStore.Column.subjectID.fieldKey) package var subjectID: UUID?
    /// Where the web app shows it.
    @OptionalField(key: NotificationStore.Column.link.fieldKey) package var link: String?
    /// A short quote (a comment's first words), shown under the message.
    @OptionalField(key: NotificationStore.Column.excerpt.fieldKey) package var excerpt: String?
    @OptionalField(key: NotificationStore.Column.readAt.fieldKey) package var readAt: Date?
    @Timestamp(key: NotificationStore.Column.createdAt.fieldKey, on: .create, format: .microseconds) package var createdAt: Date?
    /// How many events it stands for (collapsed comments, a conversation's new lines).
    @Field(key: NotificationStore.Column.eventCount.fieldKey) package var eventCount: Int

    package init() {
        eventCount = 1
    }
}

struct CreateNotifications: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(InboxNotification.schema)
            .id()
            .field("recipient_id", .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .field("actor_id", .uuid, .references(User.schema, "id", onDelete: .setNull))
            .field("service", .string, .required)
            .field("kind", .string, .required)
            .field("subject_id", .uuid)
            .field("link", .string)
            .field("excerpt", .string)
            .field("read_at", .datetime)
            .field("created_at", .datetime)
            .create()
        try await database.sql.create(index: "notifications_recipient").on(InboxNotification.schema)
            .column("recipient_id").column("created_at").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(InboxNotification.schema).delete()
    }
}

/// How many events an entry stands for: one for every entry written before.
struct AddNotificationEventCount: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(InboxNotification.schema).field(NotificationStore.Column.eventCount.fieldKey, .int, .required, .sql(.default(1))).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(InboxNotification.schema).deleteField(NotificationStore.Column.eventCount.fieldKey).update()
    }
}
