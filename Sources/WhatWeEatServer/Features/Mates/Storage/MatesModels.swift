import Fluent
import Foundation

/// A person's mates profile, keyed by their account id. Created when they confirm a code;
/// holds what others see (gender, age, topics, look, reputation) and where they are in finding
/// a mate (`state`, the queue position, the current match).
final class MatesProfile: Model, @unchecked Sendable {
    static let schema = "mates_profiles"

    @ID(custom: "id", generatedBy: .user) var id: UUID?
    @Field(key: "gender") var gender: String
    @OptionalField(key: "birth_year") var birthYear: Int?
    /// JSON array of strings.
    @Field(key: "topics") var topicsJSON: String
    @Field(key: "searchable") var searchable: Bool
    @Field(key: "age_min") var ageMin: Int
    @Field(key: "age_max") var ageMax: Int
    @Field(key: "avatar") var avatar: Int
    @Field(key: "background") var background: Int
    /// The six reputation counters, `ReputationCategory` order.
    @Field(key: "rep_0") var rep0: Int
    @Field(key: "rep_1") var rep1: Int
    @Field(key: "rep_2") var rep2: Int
    @Field(key: "rep_3") var rep3: Int
    @Field(key: "rep_4") var rep4: Int
    @Field(key: "rep_5") var rep5: Int

    @Field(key: "state") var state: String
    @OptionalField(key: "lat") var lat: Double?
    @OptionalField(key: "lon") var lon: Double?
    /// JSON array: what they are searching for now.
    @OptionalField(key: "queue_topics") var queueTopicsJSON: String?
    @OptionalField(key: "queued_at") var queuedAt: Date?
    @OptionalField(key: "match_id") var matchID: UUID?

    @Field(key: "verified_channel") var verifiedChannel: String
    /// SHA-256 of the normalized destination: one phone number or address verifies one account.
    @Field(key: "verified_destination_hash") var verifiedDestinationHash: String
    @Field(key: "verified_masked") var verifiedMasked: String
    @OptionalField(key: "suspended_at") var suspendedAt: Date?
    /// Reports made before this no longer count toward a suspension (an admin lifted one).
    @OptionalField(key: "reports_cleared_at") var reportsClearedAt: Date?
    @OptionalField(key: "search_blocked_until") var searchBlockedUntil: Date?
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update, format: .microseconds) var updatedAt: Date?

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
    @Field(key: "user_a") var userA: UUID
    /// The one who accepted.
    @Field(key: "user_b") var userB: UUID
    @OptionalField(key: "ended_at") var endedAt: Date?
    @OptionalField(key: "ended_by") var endedBy: UUID?
    /// `finished`, `dodged` or `suspended`.
    @OptionalField(key: "end_reason") var endReason: String?
    /// Read markers: the time of the newest message each side has read.
    @OptionalField(key: "a_read_at") var aReadAt: Date?
    @OptionalField(key: "b_read_at") var bReadAt: Date?
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

    init() {}

    init(id: UUID = UUID(), asker: UUID, accepter: UUID) {
        self.id = id
        self.userA = asker
        self.userB = accepter
    }

    func includes(_ user: UUID) -> Bool { userA == user || userB == user }
    func partner(of user: UUID) -> UUID { userA == user ? userB : userA }
    func readAt(of user: UUID) -> Date? { userA == user ? aReadAt : bReadAt }
}

/// "Let's meet": from one person searching to another. Gone when either stops searching or is matched.
final class MatesRequest: Model, @unchecked Sendable {
    static let schema = "mates_requests"

    @ID(key: .id) var id: UUID?
    @Field(key: "from_id") var fromID: UUID
    @Field(key: "to_id") var toID: UUID
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

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
    @Field(key: "match_id") var matchID: UUID
    @OptionalField(key: "sender_id") var senderID: UUID?
    @Field(key: "kind") var kind: String
    @Field(key: "text") var text: String
    @OptionalField(key: "pin") var pin: String?
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// One side's review of the other after a match ended; once per side.
final class MatesReview: Model, @unchecked Sendable {
    static let schema = "mates_reviews"

    @ID(key: .id) var id: UUID?
    @Field(key: "match_id") var matchID: UUID
    @Field(key: "reviewer_id") var reviewerID: UUID
    @Field(key: "reviewee_id") var revieweeID: UUID
    /// "1,0,1,0,0,0": the picks, `ReputationCategory` order.
    @Field(key: "picks") var picks: String
    @Field(key: "comment") var comment: String
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}

final class MatesReport: Model, @unchecked Sendable {
    static let schema = "mates_reports"

    @ID(key: .id) var id: UUID?
    @Field(key: "reporter_id") var reporterID: UUID
    @Field(key: "reported_id") var reportedID: UUID
    /// Comma-separated `ReportCategory` values.
    @Field(key: "categories") var categories: String
    @Field(key: "comment") var comment: String
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}

/// A match left early; counted for `DodgePenalty`.
final class MatesDodge: Model, @unchecked Sendable {
    static let schema = "mates_dodges"

    @ID(key: .id) var id: UUID?
    @Field(key: "user_id") var userID: UUID
    @Field(key: "match_id") var matchID: UUID
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// A code sent to a phone number or email address; only its hash is kept.
final class MatesVerificationCode: Model, @unchecked Sendable {
    static let schema = "mates_verification_codes"

    @ID(key: .id) var id: UUID?
    @Field(key: "user_id") var userID: UUID
    @Field(key: "channel") var channel: String
    /// SHA-256 of the normalized destination: what sends are counted by.
    @Field(key: "destination_hash") var destinationHash: String
    @Field(key: "masked") var masked: String
    @Field(key: "client_address") var clientAddress: String
    @Field(key: "code_hash") var codeHash: String
    @Field(key: "attempts") var attempts: Int
    @Field(key: "expires_at") var expiresAt: Date
    @OptionalField(key: "used_at") var usedAt: Date?
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// An App Store transaction honoured: the item it bought. The transaction id is unique, so a
/// replayed transaction grants nothing twice.
final class MatesPurchase: Model, @unchecked Sendable {
    static let schema = "mates_purchases"

    @ID(key: .id) var id: UUID?
    @Field(key: "user_id") var userID: UUID
    @Field(key: "transaction_id") var transactionID: String
    @Field(key: "product_id") var productID: String
    @Field(key: "item_kind") var itemKind: String
    @Field(key: "item_index") var itemIndex: Int
    @Field(key: "environment") var environment: String
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

    init() {}
}
