import Foundation
import Platform

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
    package var searchPosition: Coordinate? = nil

    package var ageRange: ClosedRange<Int> { ageMin...max(ageMin, ageMax) }
}

/// Where someone is, with the match and the person when matched, and the match that ended last
/// (whose review may still be due).
package struct MatesStateInfo: Sendable {
    package let state: MatesState
    package let match: MatesMatch?
    package let partner: MatePerson?
    package let reviewed: Bool
    package let lastMatch: (match: MatesMatch, partner: MatePerson?, reviewed: Bool)?
    package let searchBlockedUntil: Date?
}
