import Accounts
import Fluent
import Foundation
import Platform
import SQLKit

/// The group's room (`menu_group_members`): who joined, in the order they came. A submission
/// joins its player too (`MenuGroupStore.submit`), so the seed app's players, who never open a
/// lobby, are in the room once they answer.
extension MenuGroupStore {
    enum MemberColumn: String, TableColumn {
        case id, groupID = "group_id", playerTokenHash = "player_token_hash", userID = "user_id", guestName = "guest_name", joinedAt = "joined_at"
        /// The 우리뭐먹지 app's FCM token and its Firebase project, for a player who joined with one:
        /// told through FCM when the result is in. Kept only as long as the room.
        case pushToken = "push_token", pushProject = "push_project"
    }

    /// Where a player's app takes pushes (its FCM token, in a Firebase project).
    struct PushAddress: Sendable, Equatable {
        let project: String
        let token: String
    }

    /// Someone entering the room as written: every column of `menu_group_members`.
    struct NewMember: Encodable {
        typealias CodingKeys = MemberColumn
        let id: UUID, groupID: UUID, playerTokenHash: String, userID: UUID?, guestName: String?, joinedAt: Date
        let pushToken: String?, pushProject: String?
    }

    static var members: SQLIdentifier { SQLIdentifier(MenuGroupMember.schema) }

    /// The most people a room lists. The game takes any number of answers (the seed app promises
    /// no head limit), but the room every page draws and every change announces stops here, so a
    /// script making devices cannot grow it without end. Counted before the insert, so newcomers
    /// racing each other may pass it by a few.
    static let roomCapacity = 200

    /// What entering the room did.
    enum RoomEntry: Equatable {
        /// A newcomer, or a known player with a new account or name: the room is told.
        case changed
        case unchanged
        /// A newcomer to a room of `roomCapacity`: not listed (their answers still count).
        case full
    }

    /// One person in the room as the store reads it: the account's current nickname and picture
    /// when signed in, and whether this player's answers are in.
    struct MemberRow: Sendable, Equatable {
        let id: UUID
        let playerTokenHash: String
        let person: AccountStore.JoinedPerson?
        let guestName: String?
        let joinedAt: Date
        let answered: Bool
    }

    /// Puts this player in the room of an open group, or brings their row up to date (the
    /// account they are signed in with now; a new guest name when one is given). `changed` when
    /// something changed — a newcomer or a new name — so the room is told only then; nil when
    /// the group is closed (or gone).
    func join(_ group: UUID, playerTokenHash: String, userID: UUID?, guestName: String?, now: Date) async throws -> RoomEntry? {
        try await database.writeTransaction { transaction in
            let store = MenuGroupStore(database: transaction)
            guard try await store.touchOpenGroup(group, now: now) else { return nil }
            return try await store.enterRoom(group, playerTokenHash: playerTokenHash, userID: userID, guestName: guestName, now: now)
        }
    }

    /// The writing half of `join`, for callers already inside a transaction that found the group
    /// open (a submission).
    func enterRoom(_ group: UUID, playerTokenHash: String, userID: UUID?, guestName: String?, push: PushAddress? = nil, now: Date) async throws -> RoomEntry {
        let existing = try await sql.select().columns(SQLIdentifier(MemberColumn.id), SQLIdentifier(MemberColumn.userID), SQLIdentifier(MemberColumn.guestName),
                                                      SQLIdentifier(MemberColumn.pushToken))
            .from(Self.members)
            .where(SQLIdentifier(MemberColumn.groupID), .equal, SQLBind(group))
            .where(SQLIdentifier(MemberColumn.playerTokenHash), .equal, SQLBind(playerTokenHash)).first()
        guard let existing else {
            guard try await memberCount(of: group) < Self.roomCapacity else { return .full }
            do {
                try await sql.insert(NewMember(id: UUID(), groupID: group, playerTokenHash: playerTokenHash, userID: userID, guestName: guestName,
                                               joinedAt: now, pushToken: push?.token, pushProject: push?.project), into: MenuGroupMember.schema)
                return .changed
            } catch let error as any DatabaseError where error.isConstraintFailure {
                return .unchanged  // the same device joining twice at once: the other request wrote it
            }
        }
        let memberID = try existing.decode(column: MemberColumn.id, as: UUID.self)
        // The app's push token, where it sent one (the room is not told: nobody sees it).
        if let push, try existing.decode(column: MemberColumn.pushToken, as: String?.self) != push.token {
            try await sql.update(Self.members).set(SQLIdentifier(MemberColumn.pushToken), to: SQLBind(push.token))
                .set(SQLIdentifier(MemberColumn.pushProject), to: SQLBind(push.project))
                .where(SQLIdentifier(MemberColumn.id), .equal, SQLBind(memberID)).run()
        }
        let knownUser = try existing.decode(column: MemberColumn.userID, as: UUID?.self)
        let knownName = try existing.decode(column: MemberColumn.guestName, as: String?.self)
        let newName = guestName ?? knownName
        // A device that signs out keeps its account's place; signing in (again) names it.
        let newUser = userID ?? knownUser
        guard newUser != knownUser || newName != knownName else { return .unchanged }
        try await sql.update(Self.members)
            .set(SQLIdentifier(MemberColumn.userID), to: SQLBind(newUser)).set(SQLIdentifier(MemberColumn.guestName), to: SQLBind(newName))
            .where(SQLIdentifier(MemberColumn.id), .equal, SQLBind(memberID)).run()
        return .changed
    }

    /// The room's players who joined from the app with a push token, but the host's device: each
    /// member's id with where its app takes pushes.
    func pushAddresses(of group: UUID, exceptPlayer hostTokenHash: String) async throws -> [(member: UUID, address: PushAddress)] {
        try await sql.select().column(SQLIdentifier(MemberColumn.id)).column(SQLIdentifier(MemberColumn.pushToken))
            .column(SQLIdentifier(MemberColumn.pushProject)).from(Self.members)
            .where(SQLIdentifier(MemberColumn.groupID), .equal, SQLBind(group))
            .where(SQLIdentifier(MemberColumn.playerTokenHash), .notEqual, SQLBind(hostTokenHash))
            .where(SQLIdentifier(MemberColumn.pushToken), .isNot, SQLLiteral.null).where(SQLIdentifier(MemberColumn.pushProject), .isNot, SQLLiteral.null)
            .orderBy(MemberColumn.joinedAt).all().map { row in
                (try row.decode(column: MemberColumn.id, as: UUID.self),
                 PushAddress(project: try row.decode(column: MemberColumn.pushProject, as: String.self), token: try row.decode(column: MemberColumn.pushToken, as: String.self)))
            }
    }

    /// FCM said a member's token is gone: forgotten, unless it changed meanwhile.
    func forgetPushToken(ofMember member: UUID, ifStill token: String) async throws {
        try await sql.update(Self.members).set(SQLIdentifier(MemberColumn.pushToken), to: SQLLiteral.null)
            .where(SQLIdentifier(MemberColumn.id), .equal, SQLBind(member)).where(SQLIdentifier(MemberColumn.pushToken), .equal, SQLBind(token)).run()
    }

    /// How many people the room lists.
    func memberCount(of group: UUID) async throws -> Int {
        try await sql.count(Self.members) { $0.where(SQLIdentifier(MemberColumn.groupID), .equal, SQLBind(group)) }
    }

    /// Everyone in the room, in the order they joined, with whether they have answered.
    func members(of group: UUID) async throws -> [MemberRow] {
        let member = { (column: MemberColumn) in SQLColumn(column, table: MenuGroupMember.schema) }
        let rows = try await sql.select()
            .columns(MemberColumn.allCases.map { member($0) })
            .from(Self.members)
            .joiningPerson("member", on: member(.userID), keepingOrphans: true)
            .where(member(.groupID), .equal, SQLBind(group))
            .orderBy(member(.joinedAt)).orderBy(member(.id))
            .all()
        let answered = Set(try await sql.select().column(SQLIdentifier(SubmissionColumn.playerTokenHash)).from(Self.submissions)
            .where(SQLIdentifier(SubmissionColumn.groupID), .equal, SQLBind(group))
            .all(decodingColumn: SubmissionColumn.playerTokenHash, as: String.self))
        return try rows.map { row in
            let tokenHash = try row.decode(column: MemberColumn.playerTokenHash, as: String.self)
            return MemberRow(id: try row.decode(column: MemberColumn.id, as: UUID.self), playerTokenHash: tokenHash,
                             person: try AccountStore.person("member", id: try row.decode(column: MemberColumn.userID, as: UUID?.self), in: row),
                             guestName: try row.decode(column: MemberColumn.guestName, as: String?.self),
                             joinedAt: try row.decode(column: MemberColumn.joinedAt, as: Date.self),
                             answered: answered.contains(tokenHash))
        }
    }

    /// The accounts in the room, answered or not: each is told of the result.
    func memberAccounts(of group: UUID) async throws -> [UUID] {
        try await sql.select().distinct().column(SQLIdentifier(MemberColumn.userID)).from(Self.members)
            .where(SQLIdentifier(MemberColumn.groupID), .equal, SQLBind(group))
            .where(SQLIdentifier(MemberColumn.userID), .isNot, SQLLiteral.null)
            .all(decodingColumn: MemberColumn.userID, as: UUID.self)
    }
}
