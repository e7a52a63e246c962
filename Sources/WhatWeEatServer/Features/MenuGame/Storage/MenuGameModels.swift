import Fluent
import Foundation

/// A catalog menu as stored. The catalog file seeds it; admins may edit or retire it.
final class MenuRecord: Model, @unchecked Sendable {
    static let schema = "menus"

    @ID(key: .id) var id: UUID?
    /// Stable readable id from the catalog (`kimchi-jjigae`); used in URLs and image names.
    @Field(key: "slug") var slug: String
    @Field(key: "name_ko") var nameKo: String
    @Field(key: "name_en") var nameEn: String
    @Field(key: "name_ja") var nameJa: String
    @Field(key: "emoji") var emoji: String
    @Field(key: "nations") var nations: [String]
    @Field(key: "flavors") var flavors: [String]
    @Field(key: "rice") var rice: Bool
    @Field(key: "noodle") var noodle: Bool
    @Field(key: "soup") var soup: Bool
    @Field(key: "healthy") var healthy: Bool
    @Field(key: "instant") var instant: Bool
    @Field(key: "alcohol") var alcohol: Bool
    @OptionalField(key: "expense") var expense: String?
    /// Another image than the generated card, when the catalog or an admin names one.
    @OptionalField(key: "image_url") var imageURL: String?
    /// Set once an admin changes the menu; the seeder then leaves it alone.
    @Field(key: "edited_by_admin") var editedByAdmin: Bool
    @OptionalField(key: "retired_at") var retiredAt: Date?
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update, format: .microseconds) var updatedAt: Date?

    init() {}

    init(_ menu: Menu, imageURL: String? = nil) {
        apply(menu)
        self.imageURL = imageURL
        self.editedByAdmin = false
    }

    func apply(_ menu: Menu) {
        slug = menu.id
        nameKo = menu.name.ko
        nameEn = menu.name.en
        nameJa = menu.name.ja
        emoji = menu.emoji
        nations = menu.nations.map(\.rawValue).sorted()
        flavors = menu.flavors.map(\.rawValue).sorted()
        rice = menu.rice
        noodle = menu.noodle
        soup = menu.soup
        healthy = menu.healthy
        instant = menu.instant
        alcohol = menu.alcohol
        expense = menu.expense?.rawValue
    }

    /// The domain value; unknown stored enum strings (never written by us) are dropped.
    var menu: Menu {
        Menu(
            id: slug, name: .init(ko: nameKo, en: nameEn, ja: nameJa), emoji: emoji,
            nations: Set(nations.compactMap(Nation.init(rawValue:))), flavors: Set(flavors.compactMap(Flavor.init(rawValue:))),
            rice: rice, noodle: noodle, soup: soup, healthy: healthy, instant: instant, alcohol: alcohol,
            expense: expense.flatMap(Expense.init(rawValue:))
        )
    }
}

/// A group game, found by its PIN while open.
final class MenuGroup: Model, @unchecked Sendable {
    static let schema = "menu_groups"

    @ID(key: .id) var id: UUID?
    /// Six digits, never starting with 0; unique among stored groups.
    @Field(key: "pin") var pin: String
    /// SHA-256 of the host's device token.
    @Field(key: "host_token_hash") var hostTokenHash: String
    @OptionalParent(key: "host_user_id") var hostUser: User?
    @Enum(key: "recommender") var recommender: RecommenderVersion
    @Field(key: "last_activity_at") var lastActivityAt: Date
    @OptionalField(key: "closed_at") var closedAt: Date?
    /// The results, frozen when the game closes, so every later call sees the same menus.
    @OptionalField(key: "result") var result: String?
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

    init() {}

    init(pin: String, hostTokenHash: String, hostUserID: UUID?, recommender: RecommenderVersion, now: Date) {
        self.pin = pin
        self.hostTokenHash = hostTokenHash
        self.$hostUser.id = hostUserID
        self.recommender = recommender
        self.lastActivityAt = now
    }

    var isClosed: Bool { closedAt != nil }
}

/// One player's answers in a group. A resubmission replaces the row; cancelling deletes it.
final class MenuGroupSubmission: Model, @unchecked Sendable {
    static let schema = "menu_group_submissions"

    @ID(key: .id) var id: UUID?
    @Parent(key: "group_id") var group: MenuGroup
    @Field(key: "player_token_hash") var playerTokenHash: String
    /// `GameAnswer` and disliked foods as JSON.
    @Field(key: "answer") var answer: String
    @Field(key: "submitted_at") var submittedAt: Date

    init() {}

    init(groupID: UUID, playerTokenHash: String, answer: String, submittedAt: Date) {
        self.$group.id = groupID
        self.playerTokenHash = playerTokenHash
        self.answer = answer
        self.submittedAt = submittedAt
    }
}

/// Menus a device was recently shown as a solo winner or a random menu, for variety.
final class MenuDeviceHistory: Model, @unchecked Sendable {
    static let schema = "menu_device_history"

    @ID(key: .id) var id: UUID?
    @Field(key: "device_hash") var deviceHash: String
    @Field(key: "menu_slug") var menuSlug: String
    @Field(key: "shown_at") var shownAt: Date

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
