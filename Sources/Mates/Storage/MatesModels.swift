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

    @ID(custom: Column.id.fieldKey, generatedBy: .user) var id: UUID?
    @Field(key: Column.gender.fieldKey) var gender: String
    @OptionalField(key: Column.birthYear.fieldKey) var birthYear: Int?
    /// JSON array of strings.
    @Field(key: Column.topics.fieldKey) var topicsJSON: String
    @Field(key: Column.searchable.fieldKey) var searchable: Bool
    @Field(key: Column.ageMin.fieldKey) var ageMin: Int
    @Field(key: Column.ageMax.fieldKey) var ageMax: Int
    @Field(key: Column.avatar.fieldKey) var avatar: Int
    @Field(key: Column.background.fieldKey) var background: Int
    /// The six reputation counters, `ReputationCategory` order.
    @Field(key: Column.rep0.fieldKey) var rep0: Int
    @Field(key: Column.rep1.fieldKey) var rep1: Int
    @Field(key: Column.rep2.fieldKey) var rep2: Int
    @Field(key: Column.rep3.fieldKey) var rep3: Int
    @Field(key: Column.rep4.fieldKey) var rep4: Int
    @Field(key: Column.rep5.fieldKey) var rep5: Int

    @Field(key: Column.state.fieldKey) var state: String
    @OptionalField(key: Column.lat.fieldKey) var lat: Double?
    @OptionalField(key: Column.lon.fieldKey) var lon: Double?
    /// JSON array: what they are searching for now.
    @OptionalField(key: Column.queueTopics.fieldKey) var queueTopicsJSON: String?
    @OptionalField(key: Column.queuedAt.fieldKey) var queuedAt: Date?
    @OptionalField(key: Column.matchID.fieldKey) var matchID: UUID?

    @Field(key: Column.verifiedChannel.fieldKey) var verifiedChannel: String
    /// SHA-256 of the normalized destination: one phone number or address verifies one account.
    @Field(key: Column.verifiedDestinationHash.fieldKey) var verifiedDestinationHash: String
    @Field(key: Column.verifiedMasked.fieldKey) var verifiedMasked: String
    @OptionalField(key: Column.suspendedAt.fieldKey) var suspendedAt: Date?
    /// Reports made before this no longer count toward a suspension (an admin lifted one).
    @OptionalField(key: Column.reportsClearedAt.fieldKey) var reportsClearedAt: Date?
    @OptionalField(key: Column.searchBlockedUntil.fieldKey) var searchBlockedUntil: Date?
    @Timestamp(key: Column.createdAt.fieldKey, on: .create, format: .microseconds) var createdAt: Date?
    @Timestamp(key: Column.updatedAt.fieldKey, on: .update, format: .microseconds) var updatedAt: Date?

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
    @Field(key: MatesStore.MatchColumn.userA.fieldKey) var userA: UUID
    /// The one who accepted.
    @Field(key: MatesStore.MatchColumn.userB.fieldKey) var userB: UUID
    @OptionalField(key: MatesStore.MatchColumn.endedAt.fieldKey) var endedAt: Date?
    @OptionalField(key: MatesStore.MatchColumn.endedBy.fieldKey) var endedBy: UUID?
    /// `finished`, `dodged` or `suspended`.
    @OptionalField(key: MatesStore.MatchColumn.endReason.fieldKey) var endReason: String?
    /// Read markers: the time of the newest message each side has read.
    @OptionalField(key: MatesStore.MatchColumn.aReadAt.fieldKey) var aReadAt: Date?
    @OptionalField(key: MatesStore.MatchColumn.bReadAt.fieldKey) var bReadAt: Date?
    @Timestamp(key: MatesStore.MatchColumn.createdAt.fieldKey, on: .create, format: .microseconds) var createdAt: Date?

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
    @Field(key: Column.from.fieldKey) var fromID: UUID
    @Field(key: Column.to.fieldKey) var toID: UUID
    @Timestamp(key: Column.createdAt.fieldKey, on: .create, format: .microseconds) var createdAt: Date?

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
    @Field(key: MatesStore.MessageColumn.matchID.fieldKey) var matchID: UUID
    @OptionalField(key: MatesStore.MessageColumn.senderID.fieldKey) var senderID: UUID?
    @Field(key: MatesStore.MessageColumn.kind.fieldKey) var kind: String
    @Field(key: MatesStore.MessageColumn.text.fieldKey) var text: String
    @OptionalField(key: MatesStore.MessageColumn.pin.fieldKey) var pin: String?
    @Field(key: MatesStore.MessageColumn.createdAt.fieldKey) var createdAt: Date

    init() {}
}

/// One side's review of the other after a match ended; once per side.
final class MatesReview: Model, @unchecked Sendable {
    static let schema = "mates_reviews"

    @ID(key: .id) var id: UUID?
    @Field(key: MatesStore.ReviewColumn.matchID.fieldKey) var matchID: UUID
    @Field(key: MatesStore.ReviewColumn.reviewerID.fieldKey) var reviewerID: UUID
    @Field(key: MatesStore.ReviewColumn.revieweeID.fieldKey) var revieweeID: UUID
    /// "1,0,1,0,0,0": the picks, `ReputationCategory` order.
    @Field(key: MatesStore.ReviewColumn.picks.fieldKey) var picks: String
    @Field(key: MatesStore.ReviewColumn.comment.fieldKey) var comment: String
    @Timestamp(key: MatesStore.ReviewColumn.createdAt.fieldKey, on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}

final class MatesReport: Model, @unchecked Sendable {
    static let schema = "mates_reports"

    @ID(key: .id) var id: UUID?
    @Field(key: MatesStore.ReportColumn.reporterID.fieldKey) var reporterID: UUID
    @Field(key: MatesStore.ReportColumn.reportedID.fieldKey) var reportedID: UUID
    /// Comma-separated `ReportCategory` values.
    @Field(key: MatesStore.ReportColumn.categories.fieldKey) var categories: String
    @Field(key: MatesStore.ReportColumn.comment.fieldKey) var comment: String
    @Timestamp(key: MatesStore.ReportColumn.createdAt.fieldKey, on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}

/// A match left early; counted for `DodgePenalty`.
final class MatesDodge: Model, @unchecked Sendable {
    static let schema = "mates_dodges"

    @ID(key: .id) var id: UUID?
    @Field(key: MatesStore.DodgeColumn.userID.fieldKey) var userID: UUID
    @Field(key: MatesStore.DodgeColumn.matchID.fieldKey) var matchID: UUID
    @Field(key: MatesStore.DodgeColumn.createdAt.fieldKey) var createdAt: Date

    init() {}
}

/// A code sent to a phone number or email address; only its hash is kept.
final class MatesVerificationCode: Model, @unchecked Sendable {
    static let schema = "mates_verification_codes"

    @ID(key: .id) var id: UUID?
    @Field(key: MatesStore.CodeColumn.userID.fieldKey) var userID: UUID
    @Field(key: MatesStore.CodeColumn.channel.fieldKey) var channel: String
    /// SHA-256 of the normalized destination: what sends are counted by.
    @Field(key: MatesStore.CodeColumn.destinationHash.fieldKey) var destinationHash: String
    @Field(key: MatesStore.CodeColumn.masked.fieldKey) var masked: String
    @Field(key: MatesStore.CodeColumn.clientAddress.fieldKey) var clientAddress: String
    @Field(key: MatesStore.CodeColumn.codeHash.fieldKey) var codeHash: String
    @Field(key: MatesStore.CodeColumn.attempts.fieldKey) var attempts: Int
    @Field(key: MatesStore.CodeColumn.expiresAt.fieldKey) var expiresAt: Date
    @OptionalField(key: MatesStore.CodeColumn.usedAt.fieldKey) var usedAt: Date?
    @Field(key: MatesStore.CodeColumn.createdAt.fieldKey) var createdAt: Date

    init() {}
}

/// An App Store transaction honoured: the item it bought. The transaction id is unique, so a
/// replayed transaction grants nothing twice.
final class MatesPurchase: Model, @unchecked Sendable {
    static let schema = "mates_purchases"

    @ID(key: .id) var id: UUID?
    @Field(key: MatesStore.PurchaseColumn.userID.fieldKey) var userID: UUID
    @Field(key: MatesStore.PurchaseColumn.transactionID.fieldKey) var transactionID: String
    @Field(key: MatesStore.PurchaseColumn.productID.fieldKey) var productID: String
    @Field(key: MatesStore.PurchaseColumn.itemKind.fieldKey) var itemKind: String
    @Field(key: MatesStore.PurchaseColumn.itemIndex.fieldKey) var itemIndex: Int
    @Field(key: MatesStore.PurchaseColumn.environment.fieldKey) var environment: String
    @Timestamp(key: MatesStore.PurchaseColumn.createdAt.fieldKey, on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}
