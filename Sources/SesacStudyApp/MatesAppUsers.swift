import Accounts
package import Fluent
import Mates
import Platform
import SocketIO
import SQLKit
import Vapor

/// A user of a 새싹 스터디 app: their Firebase uid linked to an account of ours. Holds only what
/// the apps send that our own profile has no place for (the phone number as typed, the FCM token,
/// the whole birth date, the free-text study); everything else is the account's mates profile.
package struct MatesAppUser: Codable, Sendable, Equatable {
    package static let schema = "mates_app_users"
    typealias CodingKeys = AppUserStore.UserColumn

    /// The Firebase uid (the ID token's `sub`).
    package let uid: String
    package var userID: UUID
    /// The Firebase project the uid belongs to (each student app has its own).
    package var projectID: String
    package var phoneNumber: String
    package var email: String
    var fcmToken: String
    /// As sent at sign-up (the apps send local time labelled as UTC; it is kept, not corrected).
    package var birth: Date
    package var study: String
    /// The apps' "내 번호 검색 허용" (let people find me by my number). We have no search by phone
    /// number, so it is kept and shown back, and does not hide anyone from the map.
    package var searchable: Bool
    /// True when the sign-up made the account; false when it joined one that had verified this
    /// phone number on the web. Withdrawing deletes only an account the app made.
    var createdAccount: Bool
    /// The last ended match this user has moved past (dodged after, reviewed, or searched again):
    /// until then the apps show the partner's dodge or review in `myQueueState`.
    var settledMatchID: UUID?
    /// When this uid was first handed its chat socket's binding cookie (`SesacSocketBinding`); nil
    /// until then. From then on its chat socket binds by cookie or token only, never by network.
    var socketCookieHandedAt: Date?
    package var createdAt: Date
}

struct CreateMatesAppUsers: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(MatesAppUser.schema)
            .field("uid", .string, .identifier(auto: false))
            .field("user_id", .uuid, .required, .references(User.schema, "id", onDelete: .cascade))
            .field("project_id", .string, .required)
            .field("phone_number", .string, .required)
            .field("email", .string, .required)
            .field("fcm_token", .string, .required)
            .field("birth", .datetime, .required)
            .field("study", .string, .required)
            .field("searchable", .bool, .required)
            .field("created_account", .bool, .required)
            .field("settled_match_id", .uuid)
            // No longer read or written: the networks a uid called from are `mates_app_networks`.
            .field("last_address", .string)
            .field("last_seen_at", .datetime)
            .field("created_at", .datetime)
            .create()
        // One account may have several uids: the same phone number in two students' apps.
        try await database.sql.create(index: "mates_app_users_user").on(MatesAppUser.schema).column("user_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(MatesAppUser.schema).delete()
    }
}

/// When each uid was first handed its binding cookie (`MatesAppUser.socketCookieHandedAt`): a uid
/// that holds one is never bound by network again. The uids with a network on record are marked at
/// once: every call that noted a network (since both came in together) was answered with the cookie.
struct AddMatesAppUserSocketCookie: NamedMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(MatesAppUser.schema).fields([(AppUserStore.UserColumn.socketCookieHandedAt, .datetime)], optional: true).update()
        let handed = AppUserStore.UserColumn.socketCookieHandedAt.rawValue, uid = AppUserStore.UserColumn.uid.rawValue
        let networks = CreateMatesAppNetworks.schema, seenAt = AppUserStore.NetworkColumn.seenAt.rawValue
        try await database.sql.raw("""
            UPDATE \(ident: MatesAppUser.schema) SET \(ident: handed) =
                (SELECT MIN(n.\(ident: seenAt)) FROM \(ident: networks) n WHERE n.\(ident: uid) = \(ident: MatesAppUser.schema).\(ident: uid))
            WHERE \(ident: uid) IN (SELECT \(ident: uid) FROM \(ident: networks))
            """).run()
    }

    func revert(on database: any Database) async throws {
        // Written out: Fluent's SQLite driver leaves a dropped field where it is.
        try await database.sql.raw("ALTER TABLE \(ident: MatesAppUser.schema) DROP COLUMN \(ident: AppUserStore.UserColumn.socketCookieHandedAt.rawValue)").run()
    }
}

/// The networks (`ClientNetwork`) each app uid called `/v1` from, with when it last did: a chat
/// socket without the binding cookie binds that uid from the latest of them
/// (`SesacAppService.appLatestNetwork`). Pruned after a day and at withdrawal.
struct CreateMatesAppNetworks: NamedMigration {
    static let schema = "mates_app_networks"

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.schema)
            .field("uid", .string, .required)
            .field("network", .string, .required)
            .field("seen_at", .datetime, .required)
            .unique(on: "uid", "network")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(Self.schema).delete()
    }
}
