import Accounts
import Fluent
import Foundation
import Platform
import SQLKit

/// One line in a person's inbox: someone did something that concerns them ("liked your review").
/// Any service posts here through `NotificationInbox`; the text is written when it is read, in the
/// reader's language, from `kind` and the actor's current nickname.
package final class InboxNotification: Model, @unchecked Sendable {
    package static let schema = "notifications"

    @ID(key: .id) package var id: UUID?
    @Parent(key: "recipient_id") package var recipient: User
    @OptionalParent(key: "actor_id") package var actor: User?
    /// The service that posted it (`burger-map`, `mates`).
    @Field(key: "service") package var service: String
    /// What happened (`review_liked`); the message is `notification.<kind>`.
    @Field(key: "kind") package var kind: String
    /// What it is about (a review), for clients that open it.
    @OptionalField(key: "subject_id") package var subjectID: UUID?
    /// Where the web app shows it.
    @OptionalField(key: "link") package var link: String?
    /// A short quote (a comment's first words), shown under the message.
    @OptionalField(key: "excerpt") package var excerpt: String?
    @OptionalField(key: "read_at") package var readAt: Date?
    @Timestamp(key: "created_at", on: .create, format: .microseconds) package var createdAt: Date?

    package init() {}
}

struct CreateNotifications: NamedMigration {
    package func prepare(on database: any Database) async throws {
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

    package func revert(on database: any Database) async throws {
        try await database.schema(InboxNotification.schema).delete()
    }
}
