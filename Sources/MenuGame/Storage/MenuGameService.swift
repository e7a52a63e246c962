import Accounts
import Fluent
import Metrics
import Platform
import SQLKit
import Vapor

/// The results of a game as clients see them, frozen when a group closes.
package struct GameResult: Codable, Sendable, Equatable {
    package struct Entry: Codable, Sendable, Equatable {
        let slug: String
        package let name: Menu.Names
        package let emoji: String
        package let imageURL: String
        package let keywords: [String]
    }
    package let menus: [Entry]
    package let playerCount: Int
}

/// A group's waiting-room state for one device.
package struct GroupStatus: Sendable, Equatable {
    package let pin: String
    package let submissionCount: Int
    package let isHost: Bool
    package let isClosed: Bool
    package let expiresAt: Date
}

/// Every rule of solo games, random menus and group games, for the native API, the iOS app's
/// routes and the web pages alike.
package struct MenuGameService {
    static let groupLifetime: TimeInterval = 24 * 3600
    static let resultSize = 5

    package let database: any Database
    package let catalog: MenuCatalog.Snapshot
    package let events: any EventBus
    let groupStates: MenuGroupStateCache
    package let publicURL: String
    let application: Application
    let shownMenus: ShownMenus
    let savedDislikesMemory: PersonMemory<Set<Flavor>?>

    package init(request: Request) {
        self.database = request.db
        self.application = request.application
        self.catalog = request.application.menuCatalog.snapshot
        self.events = request.application.events
        self.groupStates = request.application.menuGroupStates
        self.publicURL = request.application.settings.publicURL
        self.shownMenus = request.application.shownMenus
        self.savedDislikesMemory = request.application.savedDislikesMemory
    }

    // MARK: Menus

    package func imageURL(for menu: Menu) -> String {
        catalog.imageURLs[menu.id] ?? "\(publicURL)/images/menus/\(menu.id).svg"
    }

    package func entry(_ ranked: RankedMenu) -> GameResult.Entry {
        GameResult.Entry(slug: ranked.menu.id, name: ranked.menu.name, emoji: ranked.menu.emoji,
                         imageURL: imageURL(for: ranked.menu), keywords: ranked.keywords)
    }

    /// A random menu; a device gets one it has not seen lately.
    package func randomMenu(device: String?, now: Date = Date()) async throws -> Menu {
        let deviceHash = device.map(SecureRandom.sha256Hex)
        let recent = try await history(of: deviceHash, now: now)
        var random = SystemRandomNumberGenerator()
        guard let menu = catalog.v1.randomMenu(recentlyShown: recent, using: &random) else {
            throw AppError.notFound("no_menus")
        }
        if let deviceHash { shownMenus.remember(menu.id, for: deviceHash, at: now) }
        return menu
    }

    // MARK: Solo

    package func solo(_ choice: PlayerChoice, device: String?, version: RecommenderVersion = .v1, now: Date = Date()) async throws -> GameResult {
        let deviceHash = device.map(SecureRandom.sha256Hex)
        let recent = try await history(of: deviceHash, now: now)
        var random = SystemRandomNumberGenerator()
        let ranked = catalog.recommender(version).rank([choice], limit: Self.resultSize, recentlyShown: recent, using: &random)
        if let deviceHash, let winner = ranked.first { shownMenus.remember(winner.menu.id, for: deviceHash, at: now) }
        return GameResult(menus: ranked.map(entry), playerCount: 1)
    }

    /// The device's shown menus, newest first: what the recommender keeps away from (`ShownMenus`).
    private func history(of deviceHash: String?, now: Date) async throws -> [String] {
        guard let deviceHash else { return [] }
        return try await shownMenus.recent(deviceHash, on: database, now: now)
    }

    // MARK: Groups

    /// A PIN of six digits that never starts with 0, from the system's cryptographic source.
    static func newPIN() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(Int.random(in: 100_000...999_999, using: &generator))
    }

    /// Opens a group hosted by this device. Expired groups are cleared first so their PINs can
    /// be drawn again; a collision with an open group draws another PIN.
    package func createGroup(hostToken: String, hostUserID: UUID?, now: Date = Date()) async throws -> MenuGroup {
        try await MenuGroup.query(on: database).filter(\.$lastActivityAt < now.addingTimeInterval(-Self.groupLifetime)).delete()
        for _ in 0..<20 {
            let group = MenuGroup(pin: Self.newPIN(), hostTokenHash: SecureRandom.sha256Hex(hostToken),
                                  hostUserID: hostUserID, recommender: .v1, now: now)
            do {
                try await group.create(on: database)
                groupStates.store(try snapshot(of: group, submissionCount: 0), observedAt: now)
                return group
            } catch let error as any DatabaseError where error.isConstraintFailure {
                continue
            }
        }
        throw AppError(.serviceUnavailable, "no_free_pin")
    }

    /// The open-or-closed group with this PIN, unless it expired. Anything not a PIN is unknown.
    package func group(pin rawPIN: String, now: Date = Date()) async throws -> MenuGroup? {
        guard let pin = Self.normalizedPIN(rawPIN) else { return nil }
        guard let group = try await MenuGroup.query(on: database).filter(\.$pin == pin).first() else { return nil }
        guard group.lastActivityAt > now.addingTimeInterval(-Self.groupLifetime) else { return nil }
        return group
    }

    func requireGroup(pin: String, now: Date = Date()) async throws -> MenuGroup {
        guard let group = try await group(pin: pin, now: now) else { throw AppError.notFound("group_not_found") }
        return group
    }

    static func normalizedPIN(_ raw: String) -> String? {
        let pin = raw.trimmingCharacters(in: .whitespaces)
        guard pin.count == 6, pin.allSatisfy(\.isASCII), pin.allSatisfy(\.isNumber), pin.first != "0" else { return nil }
        return pin
    }

    package enum SubmitOutcome { case recorded, closed }

    /// Records (or replaces) a player's answers. The transaction starts by touching the group row
    /// only while it is open, so a submission and the host's close are strictly ordered.
    package func submit(_ choice: PlayerChoice, to group: MenuGroup, playerToken: String, now: Date = Date()) async throws -> SubmitOutcome {
        let groupID = try group.requireID()
        let playerHash = SecureRandom.sha256Hex(playerToken)
        let stored = String(decoding: try JSONEncoder().encode(StoredChoice(gameAnswer: choice.answer, dislikedFoods: choice.disliked.sorted { $0.rawValue < $1.rawValue })), as: UTF8.self)
        let outcome: SubmitOutcome = try await database.transaction { transaction in
            guard try await touchOpenGroup(groupID, now: now, on: transaction) else { return .closed }
            if let existing = try await MenuGroupSubmission.query(on: transaction)
                .filter(\.$group.$id == groupID).filter(\.$playerTokenHash == playerHash).first() {
                existing.answer = stored
                existing.submittedAt = now
                try await existing.save(on: transaction)
            } else {
                try await MenuGroupSubmission(groupID: groupID, playerTokenHash: playerHash, answer: stored, submittedAt: now).create(on: transaction)
            }
            return .recorded
        }
        if outcome == .recorded { try await announceCount(of: group, activityAt: now) }
        return outcome
    }

    /// Withdraws a player's answers (the "restart" button). Nothing to withdraw is fine.
    package func cancel(in group: MenuGroup, playerToken: String, now: Date = Date()) async throws -> SubmitOutcome {
        let groupID = try group.requireID()
        let playerHash = SecureRandom.sha256Hex(playerToken)
        let outcome: SubmitOutcome = try await database.transaction { transaction in
            guard try await touchOpenGroup(groupID, now: now, on: transaction) else { return .closed }
            try await MenuGroupSubmission.query(on: transaction)
                .filter(\.$group.$id == groupID).filter(\.$playerTokenHash == playerHash).delete()
            return .recorded
        }
        if outcome == .recorded { try await announceCount(of: group, activityAt: now) }
        return outcome
    }

    package func status(of group: MenuGroup, device: String?) async throws -> GroupStatus {
        try snapshot(of: group, submissionCount: try await submissionCount(of: group)).status(device: device)
    }

    /// The waiting-room state for clients that poll it: from memory while fresh (see
    /// `MenuGroupStateCache`), else read and remembered. Nil for an unknown or expired PIN.
    func pollStatus(pin rawPIN: String, device: String?, now: Date = Date()) async throws -> GroupStatus? {
        guard let pin = Self.normalizedPIN(rawPIN) else { return nil }
        if let cached = groupStates.fresh(pin: pin, now: now) {
            guard cached.lastActivityAt > now.addingTimeInterval(-Self.groupLifetime) else { return nil }
            return cached.status(device: device)
        }
        let observedAt = Date()
        guard let group = try await group(pin: pin, now: now) else { return nil }
        let state = try snapshot(of: group, submissionCount: try await submissionCount(of: group))
        groupStates.store(state, observedAt: observedAt)
        return state.status(device: device)
    }

    private func submissionCount(of group: MenuGroup) async throws -> Int {
        try await MenuGroupSubmission.query(on: database).filter(\.$group.$id == group.requireID()).count()
    }

    private func snapshot(of group: MenuGroup, submissionCount: Int) throws -> MenuGroupStateCache.Snapshot {
        MenuGroupStateCache.Snapshot(id: try group.requireID(), pin: group.pin, hostTokenHash: group.hostTokenHash,
                                     isClosed: group.isClosed, lastActivityAt: group.lastActivityAt, submissionCount: submissionCount)
    }

    /// Whether this player's answers are in, for a group known by its PIN (one joined count).
    func hasSubmitted(_ playerToken: String, toGroupWithPIN pin: String) async throws -> Bool {
        let row = try await database.sql.raw("""
            SELECT COUNT(*) AS found FROM \(ident: MenuGroupSubmission.schema) s JOIN \(ident: MenuGroup.schema) g ON g.id = s.group_id
            WHERE g.pin = \(bind: pin) AND s.player_token_hash = \(bind: SecureRandom.sha256Hex(playerToken))
            """).first()
        return try (row?.decode(column: "found", as: Int.self) ?? 0) > 0
    }

    func hasSubmitted(_ playerToken: String, to group: MenuGroup) async throws -> Bool {
        try await MenuGroupSubmission.query(on: database).filter(\.$group.$id == group.requireID())
            .filter(\.$playerTokenHash == SecureRandom.sha256Hex(playerToken)).count() > 0
    }

    package func isHost(_ device: String, of group: MenuGroup) -> Bool {
        SecureRandom.constantTimeEquals(SecureRandom.sha256Hex(device), group.hostTokenHash)
    }

    /// Closes the game and freezes its results; closing again returns the same results.
    package func close(_ group: MenuGroup, now: Date = Date()) async throws -> GameResult {
        let groupID = try group.requireID()
        let (result, closedHere): (GameResult, Bool) = try await database.transaction { transaction in
            let sql = transaction.sql
            let closedNow = try await sql.update(MenuGroup.schema)
                .set("closed_at", to: now).set("last_activity_at", to: now)
                .where("id", .equal, groupID).where("closed_at", .is, SQLLiteral.null)
                .returning("id").all()
            guard let fresh = try await MenuGroup.find(groupID, on: transaction) else { throw AppError.notFound("group_not_found") }
            if closedNow.isEmpty, let frozen = fresh.result, let decoded = try? JSONDecoder().decode(GameResult.self, from: Data(frozen.utf8)) {
                return (decoded, false)
            }
            let choices = try await MenuGroupSubmission.query(on: transaction).filter(\.$group.$id == groupID).all()
                .compactMap { try? JSONDecoder().decode(StoredChoice.self, from: Data($0.answer.utf8)).choice }
            var random = SystemRandomNumberGenerator()
            let ranked = catalog.recommender(fresh.recommender).rank(choices, limit: Self.resultSize, using: &random)
            let result = GameResult(menus: ranked.map(entry), playerCount: choices.count)
            fresh.result = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
            try await fresh.save(on: transaction)
            return (result, true)
        }
        if closedHere { Counter(label: "whatweeat_menu_groups_closed_total").increment() }
        var closedState = try snapshot(of: group, submissionCount: result.playerCount)
        closedState.isClosed = true
        closedState.lastActivityAt = now
        groupStates.store(closedState, observedAt: now)
        await events.publish(#"{"type":"closed"}"#, to: Self.topic(group.pin))
        return result
    }

    /// The frozen results of a closed group; nil while it is still open.
    package func results(of group: MenuGroup) throws -> GameResult? {
        guard group.isClosed, let frozen = group.result else { return nil }
        return try JSONDecoder().decode(GameResult.self, from: Data(frozen.utf8))
    }

    package static func topic(_ pin: String) -> String { "menu-group:\(pin)" }

    /// After a submit or cancel: remember the new count and tell the live room.
    private func announceCount(of group: MenuGroup, activityAt: Date) async throws {
        let observedAt = Date()
        let count = try await submissionCount(of: group)
        var state = try snapshot(of: group, submissionCount: count)
        state.isClosed = false  // the write that just happened found it open
        state.lastActivityAt = activityAt
        groupStates.store(state, observedAt: observedAt)
        await events.publish(#"{"type":"submissionCount","submissionCount":\#(count)}"#, to: Self.topic(group.pin))
    }

    /// Marks activity on an open group; false when the group is closed (or gone).
    private func touchOpenGroup(_ id: UUID, now: Date, on transaction: any Database) async throws -> Bool {
        let sql = transaction.sql
        let rows = try await sql.update(MenuGroup.schema)
            .set("last_activity_at", to: now)
            .where("id", .equal, id).where("closed_at", .is, SQLLiteral.null)
            .returning("id").all()
        return !rows.isEmpty
    }
}

extension Request {
    package var menuGame: MenuGameService { MenuGameService(request: self) }
}
