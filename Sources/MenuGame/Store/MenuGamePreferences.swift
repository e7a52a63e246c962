package import Accounts
package import Fluent
package import Platform
import Vapor

/// A signed-in player's menu-game choices, so they follow the account to another device.
/// Anonymous players keep the same choices in cookies (see `MenuGameDevice`).
final class MenuGamePreference: Model, @unchecked Sendable {
    static let schema = "menu_game_preferences"

    @ID(key: .id) var id: UUID?
    @Parent(key: MenuPlayerStore.PreferenceColumn.userID.fieldKey) var user: User
    /// Disliked foods as their raw names, sorted (`["MEAT", "SPICY"]`).
    @Field(key: MenuPlayerStore.PreferenceColumn.dislikedFoods.fieldKey) var dislikedFoods: [String]
    @Timestamp(key: MenuPlayerStore.PreferenceColumn.updatedAt.fieldKey, on: .update, format: .microseconds) var updatedAt: Date?

    init() {}

    init(userID: UUID, disliked: Set<Flavor>) {
        self.$user.id = userID
        self.dislikedFoods = Self.encode(disliked)
    }

    var disliked: Set<Flavor> { Set(dislikedFoods.compactMap(Flavor.init(rawValue:))).intersection(Flavor.dislikeable) }

    static func encode(_ disliked: Set<Flavor>) -> [String] { disliked.map(\.rawValue).sorted() }
}

/// A note a player left from the settings screen; administrators read them.
package final class MenuGameFeedback: Model, @unchecked Sendable {
    package static let schema = "menu_game_feedback"
    package static let maxLength = 2000

    @ID(key: .id) package var id: UUID?
    @Field(key: MenuPlayerStore.FeedbackColumn.message.fieldKey) package var message: String
    @OptionalParent(key: MenuPlayerStore.FeedbackColumn.userID.fieldKey) package var user: User?
    /// The language the player used, so an administrator knows how to read and answer.
    @Field(key: MenuPlayerStore.FeedbackColumn.language.fieldKey) package var language: String
    @Timestamp(key: MenuPlayerStore.FeedbackColumn.createdAt.fieldKey, on: .create, format: .microseconds) package var createdAt: Date?

    package init() {}
}

extension MenuGameService {
    /// What the game keeps about players.
    var players: MenuPlayerStore { MenuPlayerStore(database: database) }

    /// The account's saved disliked foods; nil when it never saved any. Every menu-game page a
    /// signed-in player opens asks, so the answer is remembered (`savedDislikesMemory`) until
    /// `saveDislikes` changes it on any instance.
    func savedDislikes(of userID: UUID) async throws -> Set<Flavor>? {
        try await savedDislikesMemory.value(for: userID) {
            try await players.dislikedFoods(of: userID).map { Set($0.compactMap(Flavor.init(rawValue:))).intersection(Flavor.dislikeable) }
        }
    }

    func saveDislikes(_ disliked: Set<Flavor>, for userID: UUID) async throws {
        // Forgotten here and on every instance once written (or once the write failed halfway).
        do {
            try await writeDislikes(disliked, for: userID)
        } catch {
            await savedDislikesMemory.forget(userID, announcingOn: events)
            throw error
        }
        await savedDislikesMemory.forget(userID, announcingOn: events)
    }

    private func writeDislikes(_ disliked: Set<Flavor>, for userID: UUID) async throws {
        try await players.saveDislikedFoods(MenuGamePreference.encode(disliked.intersection(Flavor.dislikeable)), of: userID, at: environment.now())
    }

    /// Stores a note from the settings screen. Blank or overlong notes are refused (422).
    @discardableResult
    func leaveFeedback(_ raw: String, userID: UUID?, language: Language) async throws -> FeedbackRow {
        let message = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !message.isEmpty else { throw AppError.invalid("feedback_empty") }
        guard raw.fits(characters: MenuGameFeedback.maxLength, bytes: MenuGameFeedback.maxLength * 4) else {
            throw AppError.invalid("feedback_too_long", ["max": String(MenuGameFeedback.maxLength)])
        }
        let row = try await players.addFeedback(message, by: userID, language: language, at: environment.now())
        await environment.feedback.changed(announcingOn: events)
        return row
    }
}
