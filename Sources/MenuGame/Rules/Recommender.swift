import Foundation

/// Which recommender ranks menus. `v1` is the default; `v0` is the original app's rule, kept so
/// its behaviour stays testable and comparable.
public enum RecommenderVersion: String, Codable, Sendable, CaseIterable {
    case v0, v1
}

/// Ranks the catalog for a solo player or a group.
public struct Recommender: Sendable {
    public let version: RecommenderVersion
    /// Pre-computed yes-scores per menu, in the order of `Question.yesNo`.
    private let table: ScoreTable

    public init(version: RecommenderVersion, menus: [Menu]) {
        self.version = version
        self.table = ScoreTable(menus: menus)
    }

    public var menus: [Menu] { table.menus }

    /// The best `limit` menus for these players, each with three keywords.
    ///
    /// - `recentlyShown`: menu ids this device saw lately, most recent first (solo games); `v1`
    ///   demotes them so one device does not get the same winner game after game.
    /// - `random`: breaks ties in `v1`; `v0` always breaks them by catalog order, as the original did.
    public func rank<R: RandomNumberGenerator>(
        _ players: [PlayerChoice], limit: Int, recentlyShown: [String] = [], using random: inout R
    ) -> [RankedMenu] {
        guard !players.isEmpty else { return [] }
        let disliked = players.reduce(into: Set<Flavor>()) { $0.formUnion($1.disliked) }
        let edible = table.indices(edibleAvoiding: disliked)
        guard !edible.isEmpty else { return [] }
        let scores = table.playerScores(players.map(\.answer), menus: edible)

        let values: [Double]
        switch version {
        case .v0:
            values = (0..<edible.count).map { column in Double(scores.reduce(0) { $0 + $1[column] }) }
        case .v1:
            values = FairShare.values(playerScores: scores, recentlyShown: recentlyShown.isEmpty ? [:] : recencyPenalties(recentlyShown, edible: edible))
        }

        // Order: value, then a tie-breaker (catalog order for v0, random for v1).
        let tieBreakers: [UInt64] = version == .v0
            ? edible.map { UInt64($0) }
            : edible.map { _ in random.next() }
        let order = (0..<edible.count).sorted { a, b in
            if values[a] != values[b] { return values[a] > values[b] }
            return tieBreakers[a] < tieBreakers[b]
        }
        let answers = players.map(\.answer)
        return order.prefix(limit).map { column in
            let menu = table.menus[edible[column]]
            return RankedMenu(menu: menu, score: values[column], keywords: MenuScoring.keywords(for: menu, answers: answers))
        }
    }

    /// A menu for the "random menu" card: uniformly among menus this device has not seen lately
    /// (`v1`), or among all (`v0`).
    public func randomMenu<R: RandomNumberGenerator>(recentlyShown: [String], using random: inout R) -> Menu? {
        guard !table.menus.isEmpty else { return nil }
        if version == .v1 {
            let recent = Set(recentlyShown)
            let fresh = table.menus.filter { !recent.contains($0.id) }
            if let menu = fresh.randomElement(using: &random) { return menu }
        }
        return table.menus.randomElement(using: &random)
    }

    /// Penalties by column. The device's last few winners step aside completely (they drop
    /// below every other menu); older ones lose a little, fading with age.
    private func recencyPenalties(_ recent: [String], edible: [Int]) -> [Int: Double] {
        var columnByID: [String: Int] = [:]
        for (column, index) in edible.enumerated() { columnByID[table.menus[index].id] = column }
        var penalties: [Int: Double] = [:]
        for (age, id) in recent.prefix(FairShare.historyLength).enumerated() {
            guard let column = columnByID[id], penalties[column] == nil else { continue }
            penalties[column] = age < FairShare.excludedRecentWinners
                ? FairShare.maximumValue
                : FairShare.fadingPenalty * Double(FairShare.historyLength - age) / Double(FairShare.historyLength)
        }
        return penalties
    }
}

/// The `v1` rule. Each player's scores are rescaled to their own range over the edible menus
/// (their favourite 1, their least favourite 0), so every player weighs the same however many
/// questions they answered. A menu's value is the group's mean satisfaction plus the
/// satisfaction of its least-satisfied player: a menu that delights most but leaves one
/// player at the bottom of their list loses to one everybody finds good.
enum FairShare {
    /// Weight of the least-satisfied player against the group's mean.
    static let leastMiseryWeight = 1.0
    /// Values run from 0 to 1 + leastMiseryWeight.
    static let maximumValue = 1 + leastMiseryWeight
    /// How many of a device's latest winners cannot win again (unless nothing else is edible).
    static let excludedRecentWinners = 3
    /// The largest demotion of an older winner, fading to 0 at the end of the history.
    static let fadingPenalty = 0.3
    /// How many recent winners a device remembers.
    static let historyLength = 10

    static func values(playerScores: [[Int]], recentlyShown penalties: [Int: Double]) -> [Double] {
        let menuCount = playerScores.first?.count ?? 0
        var sum = [Double](repeating: 0, count: menuCount)
        var least = [Double](repeating: .infinity, count: menuCount)
        for scores in playerScores {
            guard let low = scores.min(), let high = scores.max() else { continue }
            let range = Double(high - low)
            for column in 0..<menuCount {
                // A player to whom everything is equal is equally happy with anything.
                let satisfaction = range == 0 ? 1 : Double(scores[column] - low) / range
                sum[column] += satisfaction
                least[column] = min(least[column], satisfaction)
            }
        }
        let players = Double(playerScores.count)
        return (0..<menuCount).map { column in
            sum[column] / players + leastMiseryWeight * least[column] - (penalties[column] ?? 0)
        }
    }
}

/// Menus as rows of small integers, so scoring 100 players × 500 menus is a tight loop.
struct ScoreTable: Sendable {
    let menus: [Menu]
    /// `yes[menu][question]` for the ten yes/no questions.
    private let yes: [[Int8]]
    /// Bit set of each menu's nations (bit = `Nation.allCases` index).
    private let nationBits: [UInt8]
    private let flavorBits: [UInt16]

    init(menus: [Menu]) {
        self.menus = menus
        self.yes = menus.map { menu in Question.yesNo.map { Int8(MenuScoring.yesScore($0, for: menu)) } }
        self.nationBits = menus.map { Self.bits($0.nations, in: Nation.allCases) }
        self.flavorBits = menus.map { UInt16(Self.bits16($0.flavors, in: Flavor.allCases)) }
    }

    func indices(edibleAvoiding disliked: Set<Flavor>) -> [Int] {
        let mask = Self.bits16(disliked, in: Flavor.allCases)
        return flavorBits.indices.filter { flavorBits[$0] & mask == 0 }
    }

    /// `result[player][column]`: each player's score for each listed menu.
    func playerScores(_ answers: [GameAnswer], menus columns: [Int]) -> [[Int]] {
        answers.map { answer in
            let signs: [Int8] = Question.yesNo.map { question in
                switch answer.answer(to: question) {
                case true?: return 1
                case false?: return -1
                case nil: return 0
                }
            }
            let chosenNations = Self.bits(answer.nation, in: Nation.allCases)
            return columns.map { index in
                let row = yes[index]
                var total = (chosenNations & nationBits[index]).nonzeroBitCount
                for question in 0..<signs.count { total += Int(signs[question]) * Int(row[question]) }
                return total
            }
        }
    }

    private static func bits<T: Hashable>(_ set: Set<T>, in all: [T]) -> UInt8 {
        var result: UInt8 = 0
        for (index, value) in all.enumerated() where set.contains(value) { result |= 1 << index }
        return result
    }

    private static func bits16<T: Hashable>(_ set: Set<T>, in all: [T]) -> UInt16 {
        var result: UInt16 = 0
        for (index, value) in all.enumerated() where set.contains(value) { result |= 1 << index }
        return result
    }
}
