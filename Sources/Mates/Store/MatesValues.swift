package import FluentKit
import Foundation
package import Platform

/// A person as others see them in mates: in nearby lists, requests and the match.
package struct MatePerson: Sendable {
    package let id: UUID
    package let nickname: String
    package let gender: String
    package let topics: [String]
    package let reputation: [Int]
    package let avatar: Int
    package let background: Int
    package var distanceMeters: Double?
    /// Where they search (people from the searching index).
    package var coordinate: Coordinate?
    /// Their JSON after the distance, as the searching index keeps it (`NearbyJSON.afterDistance`).
    var jsonAfterDistance: [UInt8]?

    package init(id: UUID, nickname: String, gender: String, topics: [String], reputation: [Int], avatar: Int,
                 background: Int, distanceMeters: Double? = nil, coordinate: Coordinate? = nil) {
        self.id = id
        self.nickname = nickname
        self.gender = gender
        self.topics = topics
        self.reputation = reputation
        self.avatar = avatar
        self.background = background
        self.distanceMeters = distanceMeters
        self.coordinate = coordinate
    }
}

/// What every mates request needs to know of its caller (read by the gate), and what `/nearby`
/// needs besides.
package struct MatesStanding: Sendable {
    package let id: UUID
    package let birthYear: Int?
    package let ageMin: Int
    package let ageMax: Int
    package let suspended: Bool
    /// Where they search, while they do: what they are shown is measured from there.
    var searchPosition: Coordinate? = nil

    var ageRange: ClosedRange<Int> { ageMin...max(ageMin, ageMax) }
}

/// What a person's own pages and answers show of their profile, as plain values. The pages read
/// it as one row on every view (`MatesService.profileSnapshot`): building the model, 27 fields by
/// reflection, was a fifth of a mates page. Writes still go through `MatesProfile`.
package struct MatesProfileSnapshot: Sendable, Equatable {
    package let id: UUID
    package let gender: String
    package let birthYear: Int?
    package let topics: [String]
    package let searchable: Bool
    package let ageMin: Int
    package let ageMax: Int
    package let avatar: Int
    package let background: Int
    /// The six reputation counters, `ReputationCategory` order.
    package let reputation: [Int]
    package let state: MatesState
    let queuedAt: Date?
    package let matchID: UUID?
    let verifiedChannel: String
    let verifiedMasked: String
    package let suspended: Bool
    package let searchBlockedUntil: Date?
    /// Reports made before this (an admin lifted a suspension) no longer count.
    let reportsClearedAt: Date?
    /// Where they search, while they do.
    let searchPosition: Coordinate?

    /// What the gate checks and `/nearby` measures from: the same row, so a mates request that
    /// shows one's own profile reads it once.
    package var standing: MatesStanding {
        MatesStanding(id: id, birthYear: birthYear, ageMin: ageMin, ageMax: ageMax, suspended: suspended, searchPosition: searchPosition)
    }
}

extension MatesProfile {
    /// What the person's own pages show of the row.
    var snapshot: MatesProfileSnapshot {
        MatesProfileSnapshot(id: id, gender: gender, birthYear: birthYear, topics: topics, searchable: searchable,
                             ageMin: ageMin, ageMax: ageMax, avatar: avatar, background: background, reputation: reputation,
                             state: matesState, queuedAt: queuedAt, matchID: matchID, verifiedChannel: verifiedChannel,
                             verifiedMasked: verifiedMasked, suspended: suspendedAt != nil, searchBlockedUntil: searchBlockedUntil, reportsClearedAt: reportsClearedAt,
                             searchPosition: MatesService.searchPosition(state: state, lat: lat, lon: lon))
    }
}

/// Where someone is, with the match and the person when matched, and the match that ended last
/// (whose review may still be due).
package struct MatesStateInfo: Sendable {
    package let state: MatesState
    package let match: MatchRow?
    package let partner: MatePerson?
    package let reviewed: Bool
    package let lastMatch: (match: MatchRow, partner: MatePerson?, reviewed: Bool)?
    package let searchBlockedUntil: Date?
    /// Lines of the current match I have not read.
    package var unreadCount = 0
}
