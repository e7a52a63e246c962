import Accounts
package import Fluent
package import Foundation
import Platform

/// A person's mates profile, keyed by their account id: the whole row of `mates_profiles`, read and
/// written only by `MatesStore`. Created when they confirm a code; holds what others see (gender,
/// age, topics, look, reputation) and where they are in finding a mate (`state`, the queue
/// position, the current match). A write names the columns it changes (`MatesStore.save(_:columns:)`):
/// searches, matches and reports move the others meanwhile.
package struct MatesProfile: Codable, Sendable, Equatable {
    package static let schema = "mates_profiles"
    typealias CodingKeys = MatesStore.ProfileColumn

    package let id: UUID
    package var gender: String
    package var birthYear: Int?
    /// JSON array of strings.
    package var topicsJSON: String
    package var searchable: Bool
    package var ageMin: Int
    package var ageMax: Int
    package var avatar: Int
    package var background: Int
    /// The six reputation counters, `ReputationCategory` order.
    package var rep0: Int
    package var rep1: Int
    package var rep2: Int
    package var rep3: Int
    package var rep4: Int
    package var rep5: Int

    package var state: String
    package var lat: Double?
    package var lon: Double?
    /// JSON array: what they are searching for now.
    package var queueTopicsJSON: String?
    package var queuedAt: Date?
    package var matchID: UUID?

    package var verifiedChannel: String
    /// SHA-256 of the normalized destination: one phone number or address verifies one account.
    package var verifiedDestinationHash: String
    package var verifiedMasked: String
    package var suspendedAt: Date?
    /// Reports made before this no longer count toward a suspension (an admin lifted one).
    package var reportsClearedAt: Date?
    package var searchBlockedUntil: Date?
    package var createdAt: Date?
    package var updatedAt: Date?

    /// A new person's profile: nothing chosen yet, idle, verified through `channel`.
    init(newFor user: UUID, channel: VerificationChannel, destinationHash: String, masked: String) {
        id = user
        gender = MatesGender.unspecified.rawValue
        birthYear = nil
        topicsJSON = "[]"
        searchable = true
        ageMin = MatesRules.defaultAgeRange.lowerBound
        ageMax = MatesRules.defaultAgeRange.upperBound
        avatar = 0
        background = 0
        (rep0, rep1, rep2, rep3, rep4, rep5) = (0, 0, 0, 0, 0, 0)
        state = MatesState.idle.rawValue
        verifiedChannel = channel.rawValue
        verifiedDestinationHash = destinationHash
        verifiedMasked = masked
    }

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
