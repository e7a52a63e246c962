import Accounts
import Fluent
import Foundation
import Platform

/// A person's mates profile, keyed by their account id; read and written only by `MatesStore`. Created when they confirm a code;
/// holds what others see (gender, age, topics, look, reputation) and where they are in finding
/// a mate (`state`, the queue position, the current match).
final class MatesProfile: Model, @unchecked Sendable {
    static let schema = "mates_profiles"
    /// Its columns are named by its store.
    typealias Column = MatesStore.ProfileColumn

    @ID(custom: .string(Column.id), generatedBy: .user) var id: UUID?
    @Field(key: .string(Column.gender)) var gender: String
    @OptionalField(key: .string(Column.birthYear)) var birthYear: Int?
    /// JSON array of strings.
    @Field(key: .string(Column.topics)) var topicsJSON: String
    @Field(key: .string(Column.searchable)) var searchable: Bool
    @Field(key: .string(Column.ageMin)) var ageMin: Int
    @Field(key: .string(Column.ageMax)) var ageMax: Int
    @Field(key: .string(Column.avatar)) var avatar: Int
    @Field(key: .string(Column.background)) var background: Int
    /// The six reputation counters, `ReputationCategory` order.
    @Field(key: .string(Column.reputation[0])) var rep0: Int
    @Field(key: .string(Column.reputation[1])) var rep1: Int
    @Field(key: .string(Column.reputation[2])) var rep2: Int
    @Field(key: .string(Column.reputation[3])) var rep3: Int
    @Field(key: .string(Column.reputation[4])) var rep4: Int
    @Field(key: .string(Column.reputation[5])) var rep5: Int

    @Field(key: .string(Column.state)) var state: String
    @OptionalField(key: .string(Column.lat)) var lat: Double?
    @OptionalField(key: .string(Column.lon)) var lon: Double?
    /// JSON array: what they are searching for now.
    @OptionalField(key: .string(Column.queueTopics)) var queueTopicsJSON: String?
    @OptionalField(key: .string(Column.queuedAt)) var queuedAt: Date?
    @OptionalField(key: .string(Column.matchID)) var matchID: UUID?

    @Field(key: .string(Column.verifiedChannel)) var verifiedChannel: String
    /// SHA-256 of the normalized destination: one phone number or address verifies one account.
    @Field(key: .string(Column.verifiedDestinationHash)) var verifiedDestinationHash: String
    @Field(key: .string(Column.verifiedMasked)) var verifiedMasked: String
    @OptionalField(key: .string(Column.suspendedAt)) var suspendedAt: Date?
    /// Reports made before this no longer count toward a suspension (an admin lifted one).
    @OptionalField(key: .string(Column.reportsClearedAt)) var reportsClearedAt: Date?
    @OptionalField(key: .string(Column.searchBlockedUntil)) var searchBlockedUntil: Date?
    @Timestamp(key: .string(Column.createdAt), on: .create, format: .microseconds) var createdAt: Date?
    @Timestamp(key: .string(Column.updatedAt), on: .update, format: .microseconds) var updatedAt: Date?

    init() {}

    var topics: [String] { Self.decodeList(topicsJSON) }
    var queueTopics: [String] { Self.decodeList(queueTopicsJSON ?? "[]") }
    var reputation: [Int] { [rep0, rep1, rep2, rep3, rep4, rep5] }
    var matesState: MatesState { MatesState(rawValue: state) ?? .idle }
    var ageRange: ClosedRange<Int> { ageMin...max(ageMin, ageMax) }

    static func decodeList(_ json: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(json.utf8))) ?? []
    }

    static func encodeList(_ list: [String]) -> String {
        (try? String(decoding: JSONEncoder().encode(list), as: UTF8.self)) ?? "[]"
    }
}

/// Two people matched: from the accept until one of them finishes or dodges. The chat belongs to it.
final class MatesMatch: Model, @unchecked Sendable {
    static let schema = "mates_matches"

    @ID(key: .id) var id: UUID?
    /// The one who asked.
    @Field(key: .string(MatesStore.MatchColumn.userA)) var userA: UUID
    /// The one who accepted.
    @Field(key: .string(MatesStore.MatchColumn.userB)) var userB: UUID
    @OptionalField(key: .string(MatesStore.MatchColumn.endedAt)) var endedAt: Date?
    @OptionalField(key: .string(MatesStore.MatchColumn.endedBy)) var endedBy: UUID?
    /// `finished`, `dodged` or `suspended`.
    @OptionalField(key: .string(MatesStore.MatchColumn.endReason)) var endReason: String?
    /// Read markers: the time of the newest message each side has read.
    @OptionalField(key: .string(MatesStore.MatchColumn.aReadAt)) var aReadAt: Date?
    @OptionalField(key: .string(MatesStore.MatchColumn.bReadAt)) var bReadAt: Date?
    @Timestamp(key: .string(MatesStore.MatchColumn.createdAt), on: .create, format: .microseconds) var createdAt: Date?

    init() {}

    init(id: UUID = UUID(), asker: UUID, accepter: UUID) {
        self.id = id
        self.userA = asker
        self.userB = accepter
    }
}

/// "Let's meet": from one person searching to another; read and written only by `MatesStore`.
/// Gone when either stops searching or is matched.
final class MatesRequest: Model, @unchecked Sendable {
    static let schema = "mates_requests"
    /// Its columns are named by its store.
    typealias Column = MatesStore.RequestsColumn

    @ID(key: .id) var id: UUID?
    @Field(key: .string(Column.from)) var fromID: UUID
    @Field(key: .string(Column.to)) var toID: UUID
    @Timestamp(key: .string(Column.createdAt), on: .create, format: .microseconds) var createdAt: Date?

    init() {}

    init(from: UUID, to: UUID) {
        self.fromID = from
        self.toID = to
    }
}

/// A chat line of a match. `kind` is `text`, or `menu_game` for the line the server writes when
/// the pair starts a menu game (its `pin` beside the text).
final class MatesMessage: Model, @unchecked Sendable {
    static let schema = "mates_messages"

    @ID(key: .id) var id: UUID?
    @Field(key: .string(MatesStore.MessageColumn.matchID)) var matchID: UUID
    @OptionalField(key: .string(MatesStore.MessageColumn.senderID)) var senderID: UUID?
    @Field(key: .string(MatesStore.MessageColumn.kind)) var kind: String
    @Field(key: .string(MatesStore.MessageColumn.text)) var text: String
    @OptionalField(key: .string(MatesStore.MessageColumn.pin)) var pin: String?
    @Field(key: .string(MatesStore.MessageColumn.createdAt)) var createdAt: Date

    init() {}
}

/// One side's review of the other after a match ended; once per side.
final class MatesReview: Model, @unchecked Sendable {
    static let schema = "mates_reviews"

    @ID(key: .id) var id: UUID?
    @Field(key: .string(MatesStore.ReviewColumn.matchID)) var matchID: UUID
    @Field(key: .string(MatesStore.ReviewColumn.reviewerID)) var reviewerID: UUID
    @Field(key: .string(MatesStore.ReviewColumn.revieweeID)) var revieweeID: UUID
    /// "1,0,1,0,0,0": the picks, `ReputationCategory` order.
    @Field(key: .string(MatesStore.ReviewColumn.picks)) var picks: String
    @Field(key: .string(MatesStore.ReviewColumn.comment)) var comment: String
    @Timestamp(key: .string(MatesStore.ReviewColumn.createdAt), on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}

final class MatesReport: Model, @unchecked Sendable {
    static let schema = "mates_reports"

    @ID(key: .id) var id: UUID?
    @Field(key: .string(MatesStore.ReportColumn.reporterID)) var reporterID: UUID
    @Field(key: .string(MatesStore.ReportColumn.reportedID)) var reportedID: UUID
    /// Comma-separated `ReportCategory` values.
    @Field(key: .string(MatesStore.ReportColumn.categories)) var categories: String
    @Field(key: .string(MatesStore.ReportColumn.comment)) var comment: String
    @Timestamp(key: .string(MatesStore.ReportColumn.createdAt), on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}

/// A match left early; counted for `DodgePenalty`.
final class MatesDodge: Model, @unchecked Sendable {
    static let schema = "mates_dodges"

    @ID(key: .id) var id: UUID?
    @Field(key: .string(MatesStore.DodgeColumn.userID)) var userID: UUID
    @Field(key: .string(MatesStore.DodgeColumn.matchID)) var matchID: UUID
    @Field(key: .string(MatesStore.DodgeColumn.createdAt)) var createdAt: Date

    init() {}
}

/// A code sent to a phone number or email address; only its hash is kept.
final class MatesVerificationCode: Model, @unchecked Sendable {
    static let schema = "mates_verification_codes"

    @ID(key: .id) var id: UUID?
    @Field(key: .string(MatesStore.CodeColumn.userID)) var userID: UUID
    @Field(key: .string(MatesStore.CodeColumn.channel)) var channel: String
    /// SHA-256 of the normalized destination: what sends are counted by.
    @Field(key: .string(MatesStore.CodeColumn.destinationHash)) var destinationHash: String
    @Field(key: .string(MatesStore.CodeColumn.masked)) var masked: String
    @Field(key: .string(MatesStore.CodeColumn.clientAddress)) var clientAddress: String
    @Field(key: .string(MatesStore.CodeColumn.codeHash)) var codeHash: String
    @Field(key: .string(MatesStore.CodeColumn.attempts)) var attempts: Int
    @Field(key: .string(MatesStore.CodeColumn.expiresAt)) var expiresAt: Date
    @OptionalField(key: .string(MatesStore.CodeColumn.usedAt)) var usedAt: Date?
    @Field(key: .string(MatesStore.CodeColumn.createdAt)) var createdAt: Date

    init() {}
}

/// An App Store transaction honoured: the item it bought. The transaction id is unique, so a
/// replayed transaction grants nothing twice.
final class MatesPurchase: Model, @unchecked Sendable {
    static let schema = "mates_purchases"

    @ID(key: .id) var id: UUID?
    @Field(key: .string(MatesStore.PurchaseColumn.userID)) var userID: UUID
    @Field(key: .string(MatesStore.PurchaseColumn.transactionID)) var transactionID: String
    @Field(key: .string(MatesStore.PurchaseColumn.productID)) var productID: String
    @Field(key: .string(MatesStore.PurchaseColumn.itemKind)) var itemKind: String
    @Field(key: .string(MatesStore.PurchaseColumn.itemIndex)) var itemIndex: Int
    @Field(key: .string(MatesStore.PurchaseColumn.environment)) var environment: String
    @Timestamp(key: .string(MatesStore.PurchaseColumn.createdAt), on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}
