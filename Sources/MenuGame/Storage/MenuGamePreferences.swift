import Accounts
import Fluent
import Platform
import Vapor

/// A signed-in player's menu-game choices, so they follow the account to another device.
/// Anonymous players keep the same choices in cookies (see `MenuGameDevice`).
final class MenuGamePreference: Model, @unchecked Sendable {
    static let schema = "menu_game_preferences"

    @ID(key: .id) var id: UUID?
    @Parent(key: "user_id") var user: User
    /// Disliked foods as their raw names, sorted (`["MEAT", "SPICY"]`).
    @Field(key: "disliked_foods") var dislikedFoods: [String]
    @Timestamp(key: "updated_at", on: .update, format: .microseconds) var updatedAt: Date?

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
    @Field(key: "message") package var message: String
    @OptionalParent(key: "user_id") package var user: User?
    /// The language the player used, so an administrator knows how to read and answer.
    @Field(key: "language") package var language: String
    @Timestamp(key: "created_at", on: .create, format: .microseconds) package var createdAt: Date?

    package init() {}

    package init(message: String, userID: UUID?, language: Language) {
        self.message = message
        self.$user.id = userID
        self.language = language.rawValue
    }
}

extension MenuGameService {
    /// The account's saved disliked foods; nil when it never saved any. Every menu-game page a
    /// signed-in player opens asks, so the answer is remembered (`savedDislikesMemory`) until
    /// `saveDislikes` changes it on any instance.
    func savedDislikes(of userID: UUID) async throws -> Set<Flavor>? {
        try await savedDislikesMemory.value(for: userID) {
            let row = try await database.sql.raw("""
                SELECT disliked_foods FROM \(ident: MenuGamePreference.schema) WHERE user_id = \(bind: userID)
                """).first()
            return try row.map { Set(try $0.decode(column: "disliked_foods", as: [String].self).compactMap(Flavor.init(rawValue:))).intersection(Flavor.dislikeable) }
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
        let clean = disliked.intersection(Flavor.dislikeable)
        if let existing = try await MenuGamePreference.query(on: database).filter(\.$user.$id == userID).first() {
            existing.dislikedFoods = MenuGamePreference.encode(clean)
            try await existing.save(on: database)
        } else {
            do {
                try await MenuGamePreference(userID: userID, disliked: clean).create(on: database)
            } catch let error as any DatabaseError where error.isConstraintFailure {
                // Another request of the same account saved first; last write wins.
                try await MenuGamePreference.query(on: database).filter(\.$user.$id == userID)
                    .set(\.$dislikedFoods, to: MenuGamePreference.encode(clean)).update()
            }
        }
    }

    /// Stores a note from the settings screen. Blank or overlong notes are refused (422).
    @discardableResult
    func leaveFeedback(_ raw: String, userID: UUID?, language: Language) async throws -> MenuGameFeedback {
        let message = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !message.isEmpty else { throw AppError.invalid("feedback_empty") }
        guard message.fits(characters: MenuGameFeedback.maxLength, bytes: MenuGameFeedback.maxLength * 4) else {
            throw AppError.invalid("feedback_too_long", ["max": String(MenuGameFeedback.maxLength)])
        }
        let feedback = MenuGameFeedback(message: message, userID: userID, language: language)
        try await feedback.create(on: database)
        return feedback
    }
}
