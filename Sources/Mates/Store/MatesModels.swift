import Accounts
package import Fluent
package import Foundation
import Platform

/// A person's mates profile, keyed by their account id; read and written only by `MatesStore`. Created when they confirm a code;
/// holds what others see (gender, age, topics, look, reputation) and where they are in finding
/// a mate (`state`, the queue position, the current match).
package final class MatesProfile: Model, @unchecked Sendable {
    package static let schema = "mates_profiles"
    /// Its columns are named by its store.
    typealias Column = MatesStore.ProfileColumn

    @ID(custom: Column.id.fieldKey, generatedBy: .user) package var id: UUID?
    @Field(key: Column.gender.fieldKey) package var gender: String
    @OptionalField(key: Column.birthYear.fieldKey) package var birthYear: Int?
    /// JSON array of strings.
    @Field(key: Column.topics.fieldKey) package var topicsJSON: String
    @Field(key: Column.searchable.fieldKey) package var searchable: Bool
    @Field(key: Column.ageMin.fieldKey) package var ageMin: Int
    @Field(key: Column.ageMax.fieldKey) package var ageMax: Int
    @Field(key: Column.avatar.fieldKey) package var avatar: Int
    @Field(key: Column.background.fieldKey) package var background: Int
    /// The six reputation counters, `ReputationCategory` order.
    @Field(key: Column.rep0.fieldKey) package var rep0: Int
    @Field(key: Column.rep1.fieldKey) package var rep1: Int
    @Field(key: Column.rep2.fieldKey) package var rep2: Int
    @Field(key: Column.rep3.fieldKey) package var rep3: Int
    @Field(key: Column.rep4.fieldKey) package var rep4: Int
    @Field(key: Column.rep5.fieldKey) package var rep5: Int

    @Field(key: Column.state.fieldKey) package var state: String
    @OptionalField(key: Column.lat.fieldKey) package var lat: Double?
    @OptionalField(key: Column.lon.fieldKey) package var lon: Double?
    /// JSON array: what they are searching for now.
    @OptionalField(key: Column.queueTopics.fieldKey) package var queueTopicsJSON: String?
    @OptionalField(key: Column.queuedAt.fieldKey) package var queuedAt: Date?
    @OptionalField(key: Column.matchID.fieldKey) package var matchID: UUID?

    @Field(key: Column.verifiedChannel.fieldKey) package var verifiedChannel: String
    /// SHA-256 of the normalized destination: one phone number or address verifies one account.
    @Field(key: Column.verifiedDestinationHash.fieldKey) package var verifiedDestinationHash: String
    @Field(key: Column.verifiedMasked.fieldKey) package var verifiedMasked: String
    @OptionalField(key: Column.suspendedAt.fieldKey) package var suspendedAt: Date?
    /// Reports made before this no longer count toward a suspension (an admin lifted one).
    @OptionalField(key: Column.reportsClearedAt.fieldKey) package var reportsClearedAt: Date?
    @OptionalField(key: Column.searchBlockedUntil.fieldKey) package var searchBlockedUntil: Date?
    @Timestamp(key: Column.createdAt.fieldKey, on: .create, format: .microseconds) package var createdAt: Date?
    @Timestamp(key: Column.updatedAt.fieldKey, on: .update, format: .microseconds) package var updatedAt: Date?

    package init() {}

    package var topics: [String] { Self.decodeList(topicsJSON) }
    package var queueTopics: [String] { Self.decodeList(queueTopicsJSON ?? "[]") }
    package var reputation: [Int] { [rep0, rep1, rep2, rep3, rep4, rep5] }
    package var matesState: MatesState { MatesState(rawValue: state) ?? .idle }
    package var ageRange: ClosedRange<Int> { ageMin...max(ageMin, ageMax) }

    static func decodeList(_ json: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(json.utf8))) ?? []
    }

    static func encodeList(_ list: [String]) -> String {
        (try? String(decoding: JSONEncoder().encode(list), as: UTF8.self)) ?? "[]"
    }
}

/// "Let's meet": from one person searching to another, as `MatesStore` writes and reads it (the
/// whole row of `mates_requests`). Gone when either stops searching or is matched.
package struct MatesRequest: Codable, Sendable, Equatable {
    package static let schema = "mates_requests"
    typealias CodingKeys = MatesStore.RequestsColumn

    package let id: UUID
    package let fromID: UUID
    package let toID: UUID
    package let createdAt: Date
}
