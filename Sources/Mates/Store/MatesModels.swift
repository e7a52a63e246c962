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
