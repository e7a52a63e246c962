import Accounts
package import Foundation
import Media
import Platform
import Vapor

/// Someone in a group's room as every client sees them: the account's nickname and picture, or
/// a guest by the name they chose or their number among the guests ("Guest 2").
package struct GroupMember: Sendable, Hashable, Codable {
    package let id: UUID
    /// Whose device this is: matched to tell a page which member is "you"; never sent.
    let playerTokenHash: String
    /// The account, when signed in: a page knows from memory that its viewer is in already; never sent.
    let userID: UUID?
    /// The account's nickname or the guest's chosen name; nil for a guest who chose none.
    package let name: String?
    package let isGuest: Bool
    /// The guest's place among the guests, in the order they joined (1, 2, …); nil for accounts.
    package let guestNumber: Int?
    package let profileImageURL: String?
    package let isHost: Bool
    package let answered: Bool

    enum CodingKeys: String, CodingKey { case id, name, isGuest, guestNumber, profileImageURL, isHost, answered }

    init(id: UUID, playerTokenHash: String, userID: UUID?, name: String?, isGuest: Bool, guestNumber: Int?, profileImageURL: String?,
         isHost: Bool, answered: Bool) {
        self.id = id
        self.playerTokenHash = playerTokenHash
        self.userID = userID
        self.name = name
        self.isGuest = isGuest
        self.guestNumber = guestNumber
        self.profileImageURL = profileImageURL
        self.isHost = isHost
        self.answered = answered
    }

    /// A member as a client received it (tests, the Swift client): whose device it is stays unknown.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try container.decode(UUID.self, forKey: .id), playerTokenHash: "", userID: nil,
                  name: try container.decodeIfPresent(String.self, forKey: .name), isGuest: try container.decode(Bool.self, forKey: .isGuest),
                  guestNumber: try container.decodeIfPresent(Int.self, forKey: .guestNumber),
                  profileImageURL: try container.decodeIfPresent(String.self, forKey: .profileImageURL),
                  isHost: try container.decode(Bool.self, forKey: .isHost), answered: try container.decode(Bool.self, forKey: .answered))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(isGuest, forKey: .isGuest)
        try container.encode(guestNumber, forKey: .guestNumber)
        try container.encode(profileImageURL, forKey: .profileImageURL)
        try container.encode(isHost, forKey: .isHost)
        try container.encode(answered, forKey: .answered)
    }

    /// The name a page shows: a guest who chose none is "Guest N" in the reader's language.
    package func displayName(_ translate: (String, [String: String]) -> String) -> String {
        name ?? translate("menu_game.room.guest", ["number": String(guestNumber ?? 0)])
    }
}

/// What a live room hears after someone joins, answers or withdraws (the type is the one the
/// socket always sent for a new count; `members` came later). A room too big to send whole says
/// only `membersChanged`, and the pages read the room with `GET groups/:pin`.
struct RoomChange: Encodable {
    let type = "submissionCount"
    let submissionCount: Int
    let members: [GroupMember]?
    let membersChanged = true

    /// The largest message sent with its members: PostgreSQL's NOTIFY carries under 8,000 bytes,
    /// and the event bus's envelope escapes every quote of it once more.
    static let wholeRoomLimit = 5_000

    /// The change as the live room hears it: whole when it fits, else without the members.
    static func message(submissionCount: Int, members: [GroupMember]) throws -> String {
        let whole = try JSONEncoder().encode(RoomChange(submissionCount: submissionCount, members: members))
        if whole.count <= wholeRoomLimit { return String(decoding: whole, as: UTF8.self) }
        return String(decoding: try JSONEncoder().encode(RoomChange(submissionCount: submissionCount, members: nil)), as: UTF8.self)
    }
}

/// The group's room: who joined, who answered, and telling the live room.
extension MenuGameService {
    static let guestNameLimit = 20

    /// A guest's chosen name, trimmed and with runs of spaces made one: 1 to 20 characters within
    /// 80 bytes (it is shown to the whole room) and no control characters. Nil stays nil (the name
    /// is kept).
    static func guestName(_ raw: String?) throws -> String? {
        guard let raw else { return nil }
        let name = raw.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !name.isEmpty, name.fits(characters: guestNameLimit, bytes: guestNameLimit * 4, codePoints: guestNameLimit * 4), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }) else {
            throw AppError.invalid("invalid_guest_name", ["max": String(guestNameLimit)])
        }
        return name
    }

    package enum JoinOutcome { case entered, closed, roomFull }

    /// Puts this player in the room (opening the lobby or the game), or brings their entry up to
    /// date: the account they now use, a new guest name. The room hears of newcomers and new names.
    /// `roomFull`: a newcomer to a room of `MenuGroupStore.roomCapacity`, who may still answer.
    package func join(_ group: GroupRow, playerToken: String, account: UUID?, guestName: String? = nil) async throws -> JoinOutcome {
        let now = environment.now()
        switch try await groups.join(group.id, playerTokenHash: SecureRandom.sha256Hex(playerToken), userID: account,
                                     guestName: try Self.guestName(guestName), now: now) {
        case nil: return .closed
        case .full: return .roomFull
        case .unchanged: return .entered
        case .changed:
            try await announceRoom(of: group, activityAt: now)
            return .entered
        }
    }

    /// The most people a room lists (the game itself takes any number of answers).
    package static var roomCapacity: Int { MenuGroupStore.roomCapacity }

    /// The room as pages and clients show it.
    func roster(of group: GroupRow) async throws -> [GroupMember] {
        var guests = 0
        return try await groups.members(of: group.id).map { row in
            let guestNumber: Int? = row.person == nil ? { guests += 1; return guests }() : nil
            return GroupMember(id: row.id, playerTokenHash: row.playerTokenHash, userID: row.person?.id, name: row.person?.nickname ?? row.guestName,
                               isGuest: row.person == nil, guestNumber: guestNumber,
                               profileImageURL: row.person?.profileImageKey.map(application.files.urlPath(for:)),
                               isHost: SecureRandom.constantTimeEquals(row.playerTokenHash, group.hostTokenHash), answered: row.answered)
        }
    }

    /// After a join, submit or cancel: remember the room as it now is and tell the live room.
    func announceRoom(of group: GroupRow, activityAt: Date) async throws {
        let observedAt = environment.now()
        let count = try await groups.submissionCount(of: group.id)
        let members = try await roster(of: group)
        var state = snapshot(of: group, submissionCount: count, members: members)
        state.isClosed = false  // the write that just happened found it open
        state.lastActivityAt = activityAt
        groupStates.store(state, observedAt: observedAt)
        await events.publish(try RoomChange.message(submissionCount: count, members: members), to: Self.topic(group.pin))
    }

    func snapshot(of group: GroupRow, submissionCount: Int, members: [GroupMember]) -> MenuGroupStateCache.Snapshot {
        MenuGroupStateCache.Snapshot(id: group.id, pin: group.pin, hostTokenHash: group.hostTokenHash, isClosed: group.isClosed,
                                     lastActivityAt: group.lastActivityAt, submissionCount: submissionCount, members: members)
    }

    /// The group's state read now (no memory): its count and its room.
    func freshSnapshot(of group: GroupRow) async throws -> MenuGroupStateCache.Snapshot {
        snapshot(of: group, submissionCount: try await groups.submissionCount(of: group.id), members: try await roster(of: group))
    }
}
