import Accounts
package import Fluent
import Metrics
import Notifications
package import Platform
import SQLKit
package import Vapor

/// The results of a game as clients see them, frozen when a group closes.
package struct GameResult: Codable, Sendable, Equatable {
    package struct Entry: Codable, Sendable, Equatable {
        package let slug: String
        package let name: Menu.Names
        package let emoji: String
        package let imageURL: String
        package let keywords: [String]
    }
    package let menus: [Entry]
    package let playerCount: Int
}

/// A group's waiting-room state for one device.
package struct GroupStatus: Sendable, Hashable {
    package let pin: String
    package let submissionCount: Int
    package let isHost: Bool
    package let isClosed: Bool
    package let expiresAt: Date
    /// Who is in the room, in the order they joined, and whether each has answered.
    package let members: [GroupMember]
    /// This device's entry in `members`; nil before it joined.
    package let you: UUID?

    /// Whether joining again would change nothing: this device is in the room, under this account
    /// if it is signed in (a device that signed out keeps its account's place).
    func hasInRoom(account: UUID?) -> Bool {
        guard let you, let entry = members.first(where: { $0.id == you }) else { return false }
        return account == nil || entry.userID == account
    }

    /// Whether this device is not in the room and would not be added: it lists as many as it can.
    var roomIsFullWithoutYou: Bool { you == nil && members.count >= MenuGroupStore.roomCapacity }
}

/// Every rule of solo games, random menus and group games, for the native API, the iOS app's
/// routes and the web pages alike.
package struct MenuGameService {
    static let groupLifetime: TimeInterval = 24 * 3600
    /// A lobby nobody finished gives its PIN back after this long without activity.
    static let lobbyLifetime: TimeInterval = 3 * 3600
    /// The PINs there are: six digits, never starting with 0.
    static let pinSpace = 900_000
    static let resultSize = 5

    /// The request's database, made when a rule needs it: a poll answered from memory never does,
    /// and making it (`Request.db`, with its logger) was 3 % of such a poll.
    package var database: any Database { databaseSource() }
    private let databaseSource: @Sendable () -> any Database
    package let catalog: MenuCatalog.Snapshot
    /// The clock, the bus and the memories (`MenuGameEnvironment`): every act reads `now` once.
    let environment: MenuGameEnvironment
    let application: Application
    package var events: any EventBus { environment.events }
    var groupStates: MenuGroupStateCache { environment.groupStates }
    package var publicURL: String { environment.publicURL }
    var shownMenus: ShownMenus { environment.shownMenus }
    var savedDislikesMemory: PersonMemory<Set<Flavor>?> { environment.savedDislikes }
    /// The group games' tables.
    var groups: MenuGroupStore { MenuGroupStore(database: database) }

    package init(request: Request) {
        // One look-up of what configure made (`MenuGameEnvironment`): every poll makes a service, and
        // reading each part (and a copy of all the settings) on its own was 4 % of a poll.
        let environment = request.application.menuGameEnvironment
        self.databaseSource = { request.db }
        self.application = request.application
        self.environment = environment
        self.catalog = environment.catalog.snapshot
    }

    // MARK: Menus

    package func imageURL(for menu: Menu) -> String {
        catalog.imageURLs[menu.id] ?? "\(publicURL)/images/menus/\(menu.id).svg"
    }

    /// The menu's picture for clients that cannot draw SVG (the 우리뭐먹지 app draws with
    /// `UIImage(data:)`): the JPEG card, unless the menu names a picture of its own that is not SVG.
    package func rasterImageURL(for menu: Menu) -> String {
        rasterImageURL(slug: menu.id, named: imageURL(for: menu))
    }

    /// The same for a result's entry, whose picture was named when the game closed.
    package func rasterImageURL(for entry: GameResult.Entry) -> String {
        rasterImageURL(slug: entry.slug, named: entry.imageURL)
    }

    private func rasterImageURL(slug: String, named: String) -> String {
        named.lowercased().hasSuffix(".svg") ? "\(publicURL)/images/menus/\(slug).jpg" : named
    }

    package func entry(_ ranked: RankedMenu) -> GameResult.Entry {
        GameResult.Entry(slug: ranked.menu.id, name: ranked.menu.name, emoji: ranked.menu.emoji,
                         imageURL: imageURL(for: ranked.menu), keywords: ranked.keywords)
    }

    /// A random menu; a device gets one it has not seen lately.
    package func randomMenu(device: String?) async throws -> Menu {
        let now = environment.now()
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

    package func solo(_ choice: PlayerChoice, device: String?, version: RecommenderVersion = .v1) async throws -> GameResult {
        let now = environment.now()
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
    package func createGroup(hostToken: String, hostUserID: UUID?) async throws -> GroupRow {
        let now = environment.now()
        try await Self.pruneRooms(groups, now: now)
        for _ in 0..<20 {
            guard let group = try await groups.createGroup(pin: Self.newPIN(), hostTokenHash: SecureRandom.sha256Hex(hostToken),
                                                           hostUserID: hostUserID, recommender: .v1, now: now) else { continue }
            // The host is the room's first member.
            _ = try await groups.join(group.id, playerTokenHash: group.hostTokenHash, userID: hostUserID, guestName: nil, now: now)
            groupStates.store(try await freshSnapshot(of: group), observedAt: now)
            return group
        }
        throw AppError(.serviceUnavailable, "no_free_pin")
    }

    /// Forgets the rooms that are over (`MenuGroupStore.deleteGroups`) and shows how much of the PIN
    /// space the rest hold (`whatweeat_menu_game_rooms`, `whatweeat_menu_game_pin_space_used_ratio`):
    /// a space filling up is an operator's alert before it is everyone's `no_free_pin`. How many went.
    @discardableResult
    static func pruneRooms(_ groups: MenuGroupStore, now: Date) async throws -> Int {
        let gone = try await groups.deleteGroups(idleSince: now.addingTimeInterval(-Self.groupLifetime),
                                                 lobbiesIdleSince: now.addingTimeInterval(-Self.lobbyLifetime))
        let rooms = try await groups.roomCount()
        Gauge(label: "whatweeat_menu_game_rooms").record(rooms)
        Gauge(label: "whatweeat_menu_game_pin_space_used_ratio").record(Double(rooms) / Double(Self.pinSpace))
        return gone
    }

    /// The open-or-closed group with this PIN, unless it expired. Anything not a PIN is unknown.
    package func group(pin: String) async throws -> GroupRow? {
        try await group(pin: pin, now: environment.now())
    }

    private func group(pin rawPIN: String, now: Date) async throws -> GroupRow? {
        guard let pin = Self.normalizedPIN(rawPIN) else { return nil }
        // A closed game's result is read on every view and never changes (`FrozenGroups`).
        let frozen = environment.frozenGroups
        if let kept = frozen.group(pin: pin, alive: Self.groupLifetime, now: now) { return kept }
        let generation = frozen.generation
        guard let group = try await groups.group(pin: pin) else { return nil }
        guard group.lastActivityAt > now.addingTimeInterval(-(group.closedAt == nil ? Self.lobbyLifetime : Self.groupLifetime)) else { return nil }
        frozen.keep(group, readAt: generation)
        return group
    }

    func requireGroup(pin: String) async throws -> GroupRow {
        guard let group = try await group(pin: pin) else { throw AppError.notFound("group_not_found") }
        return group
    }

    static func normalizedPIN(_ raw: String) -> String? {
        // Bytes first: every poll reads its PIN, and the Character checks were 1.5 % of a poll.
        let bytes = raw.utf8
        if bytes.count == 6, bytes.first != UInt8(ascii: "0"), bytes.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return raw
        }
        let pin = raw.trimmingCharacters(in: .whitespaces)
        guard pin.count == 6, pin.allSatisfy(\.isASCII), pin.allSatisfy(\.isNumber), pin.first != "0" else { return nil }
        return pin
    }

    package enum SubmitOutcome { case recorded, closed }

    /// Records (or replaces) a player's answers; `closed` when the host closed the game first.
    /// `account`: the signed-in player, who is told of the result when the host closes.
    /// `pushProject`: the Firebase project of the app whose FCM token `playerToken` is (the
    /// 우리뭐먹지 app's routes), so the player is told when the result is in.
    package func submit(_ choice: PlayerChoice, to group: GroupRow, playerToken: String, account: UUID? = nil, pushProject: String? = nil) async throws -> SubmitOutcome {
        let now = environment.now()
        let stored = String(decoding: try JSONEncoder().encode(StoredChoice(gameAnswer: choice.answer, dislikedFoods: choice.disliked.sorted { $0.rawValue < $1.rawValue })), as: UTF8.self)
        let push = pushProject.map { MenuGroupStore.PushAddress(project: $0, token: playerToken) }
        guard try await groups.submit(answer: stored, to: group.id, playerTokenHash: SecureRandom.sha256Hex(playerToken), userID: account, push: push,
                                      now: now) else { return .closed }
        try await announceRoom(of: group, activityAt: now)
        return .recorded
    }

    /// Withdraws a player's answers (the "restart" button). Nothing to withdraw is fine.
    package func cancel(in group: GroupRow, playerToken: String) async throws -> SubmitOutcome {
        let now = environment.now()
        guard try await groups.withdraw(from: group.id, playerTokenHash: SecureRandom.sha256Hex(playerToken), now: now) else { return .closed }
        try await announceRoom(of: group, activityAt: now)
        return .recorded
    }

    package func status(of group: GroupRow, device: String?) async throws -> GroupStatus {
        try await freshSnapshot(of: group).status(device: device)
    }

    /// The waiting-room state for clients that poll it: from memory while fresh (see
    /// `MenuGroupStateCache`), else read and remembered. Nil for an unknown or expired PIN.
    func pollStatus(pin rawPIN: String, device: String?) async throws -> GroupStatus? {
        guard let pin = Self.normalizedPIN(rawPIN) else { return nil }
        let now = environment.now()
        if let cached = groupStates.fresh(pin: pin, now: now) {
            guard cached.lastActivityAt > now.addingTimeInterval(-Self.groupLifetime) else { return nil }
            return cached.status(device: device)
        }
        // When the read starts: the state is at least as new as this (a second reading, for the
        // read's own time counts against its freshness).
        let observedAt = environment.now()
        guard let group = try await group(pin: pin, now: now) else { return nil }
        let state = try await freshSnapshot(of: group)
        groupStates.store(state, observedAt: observedAt)
        return state.status(device: device)
    }

    /// Whether this player's answers are in, for a group known by its PIN (one joined count).
    func hasSubmitted(_ playerToken: String, toGroupWithPIN pin: String) async throws -> Bool {
        try await groups.hasSubmitted(playerTokenHash: SecureRandom.sha256Hex(playerToken), toGroupWithPIN: pin)
    }

    func hasSubmitted(_ playerToken: String, to group: GroupRow) async throws -> Bool {
        try await groups.hasSubmitted(playerTokenHash: SecureRandom.sha256Hex(playerToken), to: group.id)
    }

    package func isHost(_ device: String, of group: GroupRow) -> Bool {
        SecureRandom.constantTimeEquals(SecureRandom.sha256Hex(device), group.hostTokenHash)
    }

    /// Closes the game and freezes its results; closing again returns the same results. Members
    /// signed in (but `closedBy`), answered or not, find the result in their inbox (and a push).
    package func close(_ group: GroupRow, closedBy: UUID? = nil) async throws -> GameResult {
        let now = environment.now()
        var (closed, closedHere) = try await groups.close(group.id, now: now)
        if closed.result == nil {
            let choices = try await groups.answers(of: group.id).compactMap { try? JSONDecoder().decode(StoredChoice.self, from: Data($0.utf8)).choice }
            var random = SystemRandomNumberGenerator()
            let ranked = catalog.recommender(closed.recommender).rank(choices, limit: Self.resultSize, using: &random)
            let result = GameResult(menus: ranked.map(entry), playerCount: choices.count)
            closed = try await groups.freezeResult(String(decoding: try JSONEncoder().encode(result), as: UTF8.self), of: group.id)
        }
        guard let result = try results(of: closed) else { throw AppError.notFound("group_not_found") }
        if closedHere {
            Counter(label: "whatweeat_menu_groups_closed_total").increment()
            await tellMembers(closed, closedBy: closedBy)
            await tellAppPlayers(closed)
        }
        var closedState = snapshot(of: group, submissionCount: result.playerCount, members: try await roster(of: group))
        closedState.isClosed = true
        closedState.lastActivityAt = now
        groupStates.store(closedState, observedAt: now)
        await events.publish(#"{"type":"closed"}"#, to: Self.topic(group.pin))
        return result
    }

    static let groupClosedKind = "group_closed"

    /// The app's source of push addresses: a room's players (forgotten when FCM says so).
    static let appPushSource = "menu_game"

    /// Every player who answered from the 우리뭐먹지 app with a push token, but the host's device,
    /// is told through FCM that the result is in (seed 000's "Firebase를 통한 Push Notification"),
    /// with the PIN for the app. A failure is logged: the game is closed either way.
    private func tellAppPlayers(_ group: GroupRow) async {
        do {
            let translator = application.translator
            for (member, address) in try await groups.pushAddresses(of: group.id, exceptPlayer: group.hostTokenHash) {
                let device = AppDevice(source: Self.appPushSource, reference: member.uuidString, project: address.project, token: address.token)
                try await AppPushes.send(title: translator.text("service.menu_game.name", .ko), body: translator.text("menu_game.push.result_ready", .ko),
                                         data: ["kind": Self.groupClosedKind, "pin": group.pin], collapseKey: "group-\(group.pin)", timeToLive: 3600,
                                         to: device, app: application, on: database)
            }
        } catch {
            application.logger.warning("the app's players were not told of the result", metadata: ["group": "\(group.id)", "error": "\(error)"])
        }
    }

    /// One inbox entry per member account but the one who closed; its page marks it read. A failure
    /// is logged: the game is closed either way, and the live room has been told.
    private func tellMembers(_ group: GroupRow, closedBy: UUID?) async {
        do {
            var members = Set(try await groups.answeringAccounts(of: group.id) + groups.memberAccounts(of: group.id))
            if let host = group.hostUserID { members.insert(host) }
            if let closedBy { members.remove(closedBy) }
            let inbox = NotificationStore(database: database, application: application)
            for member in members.sorted(by: { $0.uuidString < $1.uuidString }) {
                try await inbox.post(NotificationDraft(recipient: member, actor: closedBy, service: "menu-game", kind: Self.groupClosedKind,
                                                       subjectID: group.id, link: PlayPath.groupResult(group.pin)))
            }
        } catch {
            application.logger.warning("a group's members were not told of its result", metadata: ["group": "\(group.id)", "error": "\(error)"])
        }
    }

    /// The person has seen the group's result: its inbox entry is read.
    func resultSeen(_ group: GroupRow, by user: UUID) async throws {
        try await NotificationStore(database: database, application: application).markRead(for: user, kind: Self.groupClosedKind, subject: group.id)
    }

    /// The frozen results of a closed group; nil while it is still open.
    package func results(of group: GroupRow) throws -> GameResult? {
        guard group.isClosed, let frozen = group.result else { return nil }
        return try JSONDecoder().decode(GameResult.self, from: Data(frozen.utf8))
    }

    package static func topic(_ pin: String) -> String { "menu-group:\(pin)" }
}

extension Request {
    package var menuGame: MenuGameService { MenuGameService(request: self) }
}
