import Accounts
package import Fluent
import Foundation
import Platform

/// A catalog menu as stored. The catalog file seeds it; admins may edit or retire it.
package final class MenuRecord: Model, @unchecked Sendable {
    package static let schema = "menus"

    @ID(key: .id) package var id: UUID?
    /// Stable readable id from the catalog (`kimchi-jjigae`); used in URLs and image names.
    @Field(key: .string(MenuStore.Column.slug)) package var slug: String
    @Field(key: .string(MenuStore.Column.nameKo)) var nameKo: String
    @Field(key: .string(MenuStore.Column.nameEn)) var nameEn: String
    @Field(key: .string(MenuStore.Column.nameJa)) var nameJa: String
    @Field(key: .string(MenuStore.Column.emoji)) package var emoji: String
    @Field(key: .string(MenuStore.Column.nations)) package var nations: [String]
    @Field(key: .string(MenuStore.Column.flavors)) package var flavors: [String]
    @Field(key: .string(MenuStore.Column.rice)) package var rice: Bool
    @Field(key: .string(MenuStore.Column.noodle)) package var noodle: Bool
    @Field(key: .string(MenuStore.Column.soup)) package var soup: Bool
    @Field(key: .string(MenuStore.Column.healthy)) package var healthy: Bool
    @Field(key: .string(MenuStore.Column.instant)) package var instant: Bool
    @Field(key: .string(MenuStore.Column.alcohol)) package var alcohol: Bool
    @OptionalField(key: .string(MenuStore.Column.expense)) package var expense: String?
    /// Another image than the generated card, when the catalog or an admin names one.
    @OptionalField(key: .string(MenuStore.Column.imageURL)) package var imageURL: String?
    /// Set once an admin changes the menu; the seeder then leaves it alone.
    @Field(key: .string(MenuStore.Column.editedByAdmin)) package var editedByAdmin: Bool
    @OptionalField(key: .string(MenuStore.Column.retiredAt)) package var retiredAt: Date?
    @Timestamp(key: .string(MenuStore.Column.createdAt), on: .create, format: .microseconds) package var createdAt: Date?
    @Timestamp(key: .string(MenuStore.Column.updatedAt), on: .update, format: .microseconds) package var updatedAt: Date?

    package init() {}
}

/// A group game, found by its PIN while open.
final class MenuGroup: Model, @unchecked Sendable {
    static let schema = "menu_groups"

    @ID(key: .id) var id: UUID?
    /// Six digits, never starting with 0; unique among stored groups.
    @Field(key: MenuGroupStore.GroupColumn.pin.fieldKey) var pin: String
    /// SHA-256 of the host's device token.
    @Field(key: MenuGroupStore.GroupColumn.hostTokenHash.fieldKey) var hostTokenHash: String
    @OptionalParent(key: MenuGroupStore.GroupColumn.hostUserID.fieldKey) var hostUser: User?
    @Enum(key: MenuGroupStore.GroupColumn.recommender.fieldKey) var recommender: RecommenderVersion
    @Field(key: MenuGroupStore.GroupColumn.lastActivityAt.fieldKey) var lastActivityAt: Date
    @OptionalField(key: MenuGroupStore.GroupColumn.closedAt.fieldKey) var closedAt: Date?
    /// The results, frozen when the game closes, so every later call sees the same menus.
    @OptionalField(key: MenuGroupStore.GroupColumn.result.fieldKey) var result: String?
    @Timestamp(key: MenuGroupStore.GroupColumn.createdAt.fieldKey, on: .create, format: .microseconds) var createdAt: Date?

    init() {}

}

/// One player's answers in a group. A resubmission replaces the row; cancelling deletes it.
package final class MenuGroupSubmission: Model, @unchecked Sendable {
    package static let schema = "menu_group_submissions"

    @ID(key: .id) package var id: UUID?
    @Parent(key: MenuGroupStore.SubmissionColumn.groupID.fieldKey) var group: MenuGroup
    @Field(key: MenuGroupStore.SubmissionColumn.playerTokenHash.fieldKey) var playerTokenHash: String
    /// `GameAnswer` and disliked foods as JSON.
    @Field(key: MenuGroupStore.SubmissionColumn.answer.fieldKey) var answer: String
    @Field(key: MenuGroupStore.SubmissionColumn.submittedAt.fieldKey) var submittedAt: Date
    /// The account that answered, when signed in: told of the result when the host closes.
    @OptionalField(key: MenuGroupStore.SubmissionColumn.userID.fieldKey) var userID: UUID?

    package init() {}
}

/// Menus a device was recently shown as a solo winner or a random menu, for variety.
final class MenuDeviceHistory: Model, @unchecked Sendable {
    static let schema = "menu_device_history"

    @ID(key: .id) var id: UUID?
    @Field(key: MenuPlayerStore.HistoryColumn.deviceHash.fieldKey) var deviceHash: String
    @Field(key: MenuPlayerStore.HistoryColumn.menuSlug.fieldKey) var menuSlug: String
    @Field(key: MenuPlayerStore.HistoryColumn.shownAt.fieldKey) var shownAt: Date

    init() {}

    init(deviceHash: String, menuSlug: String, shownAt: Date) {
        self.deviceHash = deviceHash
        self.menuSlug = menuSlug
        self.shownAt = shownAt
    }
}

/// What a stored submission holds.
struct StoredChoice: Codable {
    var gameAnswer: GameAnswer
    var dislikedFoods: [Flavor]

    var choice: PlayerChoice { PlayerChoice(answer: gameAnswer, disliked: Set(dislikedFoods)) }
}

/// Someone in a group's room: the host, a player who opened the lobby or the game, anyone who
/// answered. The waiting room lists them with whether they have answered.
final class MenuGroupMember: Model, @unchecked Sendable {
    static let schema = "menu_group_members"

    @ID(key: .id) var id: UUID?
    @Parent(key: MenuGroupStore.MemberColumn.groupID.fieldKey) var group: MenuGroup
    @Field(key: MenuGroupStore.MemberColumn.playerTokenHash.fieldKey) var playerTokenHash: String
    /// The account, when the player is signed in: shown by nickname and told of the result.
    @OptionalField(key: MenuGroupStore.MemberColumn.userID.fieldKey) var userID: UUID?
    /// The name a guest chose; nil shows "Guest N" by order of joining.
    @OptionalField(key: MenuGroupStore.MemberColumn.guestName.fieldKey) var guestName: String?
    @Field(key: MenuGroupStore.MemberColumn.joinedAt.fieldKey) var joinedAt: Date

    init() {}
}
