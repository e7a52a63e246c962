package import Fluent
import Foundation
import Platform
import SQLKit

/// The one owner of the group games' tables — `menu_groups`, `menu_group_submissions` and
/// `menu_group_members` (`MenuGroupStore+Members.swift`) — the
/// only code that reads or writes them, naming each column once (`GroupColumn`,
/// `SubmissionColumn`: the models' keys and every statement). Reads decode `GroupRow`s.
///
/// The waiting rooms in memory (`MenuGroupStateCache`) and the live rooms are told by the
/// service, which knows the count a write leaves and who listens; every write here says whether
/// it happened, so the service announces only what did.
struct MenuGroupStore {
    let database: any Database

    init(database: any Database) {
        self.database = database
    }

    typealias GroupColumn = GroupRow.CodingKeys

    enum SubmissionColumn: String, TableColumn {
        case id, groupID = "group_id", playerTokenHash = "player_token_hash", answer, submittedAt = "submitted_at", userID = "user_id"
    }

    /// A player's answers as first written: every column of `menu_group_submissions`.
    struct NewSubmission: Encodable {
        typealias CodingKeys = SubmissionColumn
        let id: UUID, groupID: UUID, playerTokenHash: String, answer: String, submittedAt: Date, userID: UUID?
    }

    var sql: any SQLDatabase { database.sql }
    private static var groups: SQLIdentifier { SQLIdentifier(MenuGroup.schema) }
    static var submissions: SQLIdentifier { SQLIdentifier(MenuGroupSubmission.schema) }

    private func selectGroups() -> SQLSelectBuilder {
        sql.select().columns(GroupColumn.all.map { SQLIdentifier($0) }).from(Self.groups)
    }

    // MARK: Groups

    /// Deletes the groups idle since before `cutoff` (their submissions go by cascade), so their
    /// PINs can be drawn again.
    /// Forgets the rooms that are over, so their PINs can be drawn again: a lobby nobody finished
    /// once idle since `lobbyCutoff`, any room once idle since `cutoff` (a result is kept that long).
    /// How many went.
    @discardableResult
    func deleteGroups(idleSince cutoff: Date, lobbiesIdleSince lobbyCutoff: Date) async throws -> Int {
        let lastActivity = SQLIdentifier(GroupColumn.lastActivityAt)
        return try await sql.delete(from: Self.groups)
            .where(lastActivity, .lessThan, SQLBind(cutoff))
            .orWhere { $0.where(SQLIdentifier(GroupColumn.closedAt), .is, SQLLiteral.null).where(lastActivity, .lessThan, SQLBind(lobbyCutoff)) }
            .returning(SQLIdentifier(GroupColumn.id)).all().count
    }

    /// How many rooms hold a PIN now (the PIN space's use, on `/metrics`).
    func roomCount() async throws -> Int {
        try await sql.count(Self.groups)
    }

    /// Writes a new open group; nil when its PIN is taken (draw another).
    func createGroup(pin: String, hostTokenHash: String, hostUserID: UUID?, recommender: RecommenderVersion, now: Date) async throws -> GroupRow? {
        let group = GroupRow(id: UUID(), pin: pin, hostTokenHash: hostTokenHash, hostUserID: hostUserID, recommender: recommender,
                             lastActivityAt: now, closedAt: nil, result: nil, createdAt: now.wholeMicroseconds)
        do {
            try await sql.insert(group, into: MenuGroup.schema)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            return nil
        }
        return group
    }

    /// The group with this PIN, however old.
    func group(pin: String) async throws -> GroupRow? {
        try await selectGroups().where(SQLIdentifier(GroupColumn.pin), .equal, SQLBind(pin)).first(decoding: GroupRow.self)
    }

    /// The group with this id.
    func group(id: UUID) async throws -> GroupRow? {
        try await selectGroups().where(SQLIdentifier(GroupColumn.id), .equal, SQLBind(id)).first(decoding: GroupRow.self)
    }

    // MARK: Submissions

    /// Records (or replaces) a player's answers. The transaction starts by touching the group row
    /// only while it is open, so a submission and the host's close are strictly ordered; false
    /// when the group was closed (or gone).
    func submit(answer: String, to group: UUID, playerTokenHash: String, userID: UUID?, push: PushAddress? = nil, now: Date) async throws -> Bool {
        try await database.writeTransaction { transaction in
            let store = MenuGroupStore(database: transaction)
            guard try await store.touchOpenGroup(group, now: now) else { return false }
            let replaced = try await transaction.sql.update(Self.submissions)
                .set(SQLIdentifier(SubmissionColumn.answer), to: SQLBind(answer)).set(SQLIdentifier(SubmissionColumn.submittedAt), to: SQLBind(now))
                .set(SQLIdentifier(SubmissionColumn.userID), to: SQLBind(userID))
                .where(SQLIdentifier(SubmissionColumn.groupID), .equal, SQLBind(group))
                .where(SQLIdentifier(SubmissionColumn.playerTokenHash), .equal, SQLBind(playerTokenHash))
                .returning(SQLIdentifier(SubmissionColumn.id)).all()
            if replaced.isEmpty {
                try await transaction.sql.insert(NewSubmission(id: UUID(), groupID: group, playerTokenHash: playerTokenHash, answer: answer,
                                                               submittedAt: now, userID: userID), into: MenuGroupSubmission.schema)
            }
            _ = try await store.enterRoom(group, playerTokenHash: playerTokenHash, userID: userID, guestName: nil, push: push, now: now)
            return true
        }
    }

    /// Withdraws a player's answers (nothing to withdraw is fine); false when the group was closed.
    func withdraw(from group: UUID, playerTokenHash: String, now: Date) async throws -> Bool {
        try await database.writeTransaction { transaction in
            let store = MenuGroupStore(database: transaction)
            guard try await store.touchOpenGroup(group, now: now) else { return false }
            try await transaction.sql.delete(from: Self.submissions)
                .where(SQLIdentifier(SubmissionColumn.groupID), .equal, SQLBind(group))
                .where(SQLIdentifier(SubmissionColumn.playerTokenHash), .equal, SQLBind(playerTokenHash)).run()
            return true
        }
    }

    func submissionCount(of group: UUID) async throws -> Int {
        try await sql.count(Self.submissions) { $0.where(SQLIdentifier(SubmissionColumn.groupID), .equal, SQLBind(group)) }
    }

    /// Whether this player's answers are in, for a group known by its PIN (one joined count).
    func hasSubmitted(playerTokenHash: String, toGroupWithPIN pin: String) async throws -> Bool {
        // Written out: the group game page asks on every view.
        try await sql.raw("""
            SELECT COUNT(*) AS found FROM \(Self.submissions) s JOIN \(Self.groups) g ON g.\(ident: GroupColumn.id) = s.\(ident: SubmissionColumn.groupID)
            WHERE g.\(ident: GroupColumn.pin) = \(bind: pin) AND s.\(ident: SubmissionColumn.playerTokenHash) = \(bind: playerTokenHash)
            """).first(decodingColumn: "found", as: Int.self) ?? 0 > 0
    }

    /// Whether this player's answers are in.
    func hasSubmitted(playerTokenHash: String, to group: UUID) async throws -> Bool {
        try await sql.select().column(SQLIdentifier(SubmissionColumn.id)).from(Self.submissions)
            .where(SQLIdentifier(SubmissionColumn.groupID), .equal, SQLBind(group))
            .where(SQLIdentifier(SubmissionColumn.playerTokenHash), .equal, SQLBind(playerTokenHash)).limit(1).first() != nil
    }

    // MARK: Closing

    /// Closes an open group; `closedHere` false when it was closed already. Either way returns the
    /// group as it now stands. No answer can change after this: a submission touches open groups only.
    func close(_ group: UUID, now: Date) async throws -> (group: GroupRow, closedHere: Bool) {
        let closedNow = try await sql.update(Self.groups)
            .set(SQLIdentifier(GroupColumn.closedAt), to: SQLBind(now)).set(SQLIdentifier(GroupColumn.lastActivityAt), to: SQLBind(now))
            .where(SQLIdentifier(GroupColumn.id), .equal, SQLBind(group)).where(SQLIdentifier(GroupColumn.closedAt), .is, SQLLiteral.null)
            .returning(SQLIdentifier(GroupColumn.id)).all()
        guard let fresh = try await self.group(id: group) else { throw AppError.notFound("group_not_found") }
        return (fresh, !closedNow.isEmpty)
    }

    /// The answers of a group, each as submitted, in the order they came.
    func answers(of group: UUID) async throws -> [String] {
        try await sql.select().column(SQLIdentifier(SubmissionColumn.answer)).from(Self.submissions)
            .where(SQLIdentifier(SubmissionColumn.groupID), .equal, SQLBind(group)).orderBy(SubmissionColumn.submittedAt)
            .all(decodingColumn: SubmissionColumn.answer, as: String.self)
    }

    /// The accounts that answered in a group (signed-in players; one each however many devices).
    func answeringAccounts(of group: UUID) async throws -> [UUID] {
        try await sql.select().distinct().column(SQLIdentifier(SubmissionColumn.userID)).from(Self.submissions)
            .where(SQLIdentifier(SubmissionColumn.groupID), .equal, SQLBind(group))
            .where(SQLIdentifier(SubmissionColumn.userID), .isNot, SQLLiteral.null)
            .all(decodingColumn: SubmissionColumn.userID, as: UUID.self)
    }

    /// Freezes a closed group's result unless one is frozen already (two closes racing: the first
    /// stands); returns the group as it now stands.
    func freezeResult(_ result: String, of group: UUID) async throws -> GroupRow {
        try await sql.update(Self.groups).set(SQLIdentifier(GroupColumn.result), to: SQLBind(result))
            .where(SQLIdentifier(GroupColumn.id), .equal, SQLBind(group)).where(SQLIdentifier(GroupColumn.closedAt), .isNot, SQLLiteral.null)
            .where(SQLIdentifier(GroupColumn.result), .is, SQLLiteral.null).run()
        guard let frozen = try await self.group(id: group) else { throw AppError.notFound("group_not_found") }
        return frozen
    }

    /// Marks activity on an open group; false when the group is closed (or gone).
    func touchOpenGroup(_ id: UUID, now: Date) async throws -> Bool {
        let touched = try await sql.update(Self.groups).set(SQLIdentifier(GroupColumn.lastActivityAt), to: SQLBind(now))
            .where(SQLIdentifier(GroupColumn.id), .equal, SQLBind(id)).where(SQLIdentifier(GroupColumn.closedAt), .is, SQLLiteral.null)
            .returning(SQLIdentifier(GroupColumn.id)).all()
        return !touched.isEmpty
    }
}

/// A group game as the store reads it (`MenuGroupStoreTests` checks it against `MenuGroup`).
package struct GroupRow: Codable, Sendable, Equatable {
    package let id: UUID
    /// Six digits, never starting with 0; unique among stored groups.
    package let pin: String
    /// SHA-256 of the host's device token.
    let hostTokenHash: String
    let hostUserID: UUID?
    let recommender: RecommenderVersion
    let lastActivityAt: Date
    let closedAt: Date?
    /// The results, frozen when the game closes, so every later call sees the same menus.
    package let result: String?
    package let createdAt: Date?

    enum CodingKeys: String, TableColumn {
        case id, pin, recommender, result
        case hostTokenHash = "host_token_hash", hostUserID = "host_user_id", lastActivityAt = "last_activity_at"
        case closedAt = "closed_at", createdAt = "created_at"
        static let all = [id, pin, hostTokenHash, hostUserID, recommender, lastActivityAt, closedAt, result, createdAt]
    }

    init(id: UUID, pin: String, hostTokenHash: String, hostUserID: UUID?, recommender: RecommenderVersion, lastActivityAt: Date,
         closedAt: Date?, result: String?, createdAt: Date?) {
        self.id = id
        self.pin = pin
        self.hostTokenHash = hostTokenHash
        self.hostUserID = hostUserID
        self.recommender = recommender
        self.lastActivityAt = lastActivityAt
        self.closedAt = closedAt
        self.result = result
        self.createdAt = createdAt
    }

    package var isClosed: Bool { closedAt != nil }
}
