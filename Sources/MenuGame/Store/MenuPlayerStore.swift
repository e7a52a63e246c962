package import Fluent
import Foundation
import Platform
import SQLKit

/// The one owner of what the menu game keeps about players — `menu_game_preferences` (an
/// account's disliked foods), `menu_game_feedback` (notes from the settings screen) and
/// `menu_device_history` (the menus a device was shown) — naming each column once
/// (`PreferenceColumn`, `FeedbackColumn`, `HistoryColumn`: the models' keys and every statement).
/// The memories that follow them (`savedDislikesMemory`, `ShownMenus`) are the service's.
package struct MenuPlayerStore {
    package let database: any Database

    package init(database: any Database) {
        self.database = database
    }

    enum PreferenceColumn: String, TableColumn {
        case id, userID = "user_id", dislikedFoods = "disliked_foods", updatedAt = "updated_at"
    }

    typealias FeedbackColumn = FeedbackRow.CodingKeys

    enum HistoryColumn: String, TableColumn {
        case id, deviceHash = "device_hash", menuSlug = "menu_slug", shownAt = "shown_at"
    }

    private var sql: any SQLDatabase { database.sql }

    // MARK: Preferences

    /// The account's saved disliked foods (raw names); nil when it never saved any.
    func dislikedFoods(of user: UUID) async throws -> [String]? {
        try await sql.select().column(SQLIdentifier(PreferenceColumn.dislikedFoods)).from(MenuGamePreference.schema)
            .where(SQLIdentifier(PreferenceColumn.userID), .equal, SQLBind(user))
            .first(decodingColumn: PreferenceColumn.dislikedFoods, as: [String].self)
    }

    /// Saves the account's disliked foods (raw names, sorted) in one statement: a first save
    /// inserts the row, a later one (or one racing it) replaces the foods; the last write wins.
    func saveDislikedFoods(_ foods: [String], of user: UUID, at now: Date) async throws {
        let row = PreferenceRow(id: UUID(), userID: user, dislikedFoods: foods, updatedAt: now.wholeMicroseconds)
        try await sql.insert(into: MenuGamePreference.schema).model(row, nilEncodingStrategy: .asNil)
            .onConflict(with: [PreferenceColumn.userID.stringValue]) { conflict in
                conflict.set(excludedValueOf: PreferenceColumn.dislikedFoods.stringValue)
                    .set(excludedValueOf: PreferenceColumn.updatedAt.stringValue)
            }.run()
    }

    /// A row of `menu_game_preferences`, every column by `PreferenceColumn`.
    private struct PreferenceRow: Encodable {
        let id: UUID
        let userID: UUID
        let dislikedFoods: [String]
        let updatedAt: Date
        typealias CodingKeys = PreferenceColumn
    }

    // MARK: Feedback

    func addFeedback(_ message: String, by user: UUID?, language: Language, at now: Date) async throws -> FeedbackRow {
        let row = FeedbackRow(id: UUID(), message: message, userID: user, language: language.rawValue, createdAt: now.wholeMicroseconds)
        try await sql.insert(row, into: MenuGameFeedback.schema)
        return row
    }

    /// The notes newest first, a page at a time (what administrators read).
    func feedbackPage(_ page: CursorPageRequest) async throws -> (items: [FeedbackRow], nextCursor: String?) {
        let rows = try await sql.select().columns(FeedbackColumn.all.map { SQLIdentifier($0) }).from(MenuGameFeedback.schema)
            .newestFirst(createdAt: SQLColumn(FeedbackColumn.createdAt), id: SQLColumn(FeedbackColumn.id), page)
            .all(decoding: FeedbackRow.self)
        return page.page(of: rows)
    }

    // MARK: Shown menus

    /// Writes shows (device, menu, when), then keeps each of those devices' newest `keep` only.
    func recordShows(_ shows: [(deviceHash: String, slug: String, at: Date)], keep: Int) async throws {
        for chunk in shows.chunked(StatementLimits.bindsPerStatement / 4) {  // four binds a row
            let insert = sql.insert(into: MenuDeviceHistory.schema)
                .columns(HistoryColumn.id, HistoryColumn.deviceHash, HistoryColumn.menuSlug, HistoryColumn.shownAt)
            for shown in chunk {
                insert.values(SQLBind(UUID()), SQLBind(shown.deviceHash), SQLBind(shown.slug), SQLBind(shown.at))
            }
            try await insert.run()
        }
        let table = SQLIdentifier(MenuDeviceHistory.schema), device = SQLIdentifier(HistoryColumn.deviceHash), id = SQLIdentifier(HistoryColumn.id)
        for devices in Array(Set(shows.map(\.deviceHash))).chunked(StatementLimits.bindsPerStatement) {
            try await sql.raw("""
                DELETE FROM \(table) WHERE \(device) IN (\(binds: Array(devices)))
                AND \(id) NOT IN (SELECT newest.\(id) FROM \(table) newest
                               WHERE newest.\(device) = \(table).\(device)
                               ORDER BY newest.\(ident: HistoryColumn.shownAt) DESC LIMIT \(literal: keep))
                """).run()
        }
    }

    /// A device's newest shown menus, at most `limit`.
    func recentShows(of deviceHash: String, limit: Int) async throws -> [String] {
        try await sql.select().column(SQLIdentifier(HistoryColumn.menuSlug)).from(MenuDeviceHistory.schema)
            .where(SQLIdentifier(HistoryColumn.deviceHash), .equal, SQLBind(deviceHash))
            .orderBy(HistoryColumn.shownAt, .descending).limit(limit)
            .all(decodingColumn: HistoryColumn.menuSlug, as: String.self)
    }
}

/// A note from the settings screen as the store reads it.
struct FeedbackRow: Codable, Sendable, Hashable, NewestFirstRow {
    let id: UUID
    let message: String
    /// The author, while the account exists; anonymous notes have none.
    let userID: UUID?
    /// The language the player used, so an administrator knows how to read and answer.
    let language: String
    let createdAt: Date

    enum CodingKeys: String, TableColumn {
        case id, message, language
        case userID = "user_id", createdAt = "created_at"
        static let all = [id, message, userID, language, createdAt]
    }

    init(id: UUID, message: String, userID: UUID?, language: String, createdAt: Date) {
        self.id = id
        self.message = message
        self.userID = userID
        self.language = language
        self.createdAt = createdAt
    }

    init(_ model: MenuGameFeedback) throws {
        id = try model.requireID()
        message = model.message
        userID = model.$user.id
        language = model.language
        guard let createdAt = model.createdAt else { throw FluentError.missingField(name: MenuPlayerStore.FeedbackColumn.createdAt.stringValue) }
        self.createdAt = createdAt
    }
}
