import Foundation
import MenuGame

/// Repeatable random data for the benchmarks (seeded, so every run sees the same groups).
public struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

public enum Synthetic {
    /// The shipped catalog (`Resources/catalogs/menus.json` of the main package).
    public static func catalog() throws -> [Menu] {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("Resources/catalogs/menus.json"))
        return try JSONDecoder().decode([Menu].self, from: data)
    }

    /// `count` menus: the catalog, then variations of it with shuffled traits.
    public static func menus(_ count: Int, using random: inout SeededGenerator) throws -> [Menu] {
        let base = try catalog()
        return (0..<count).map { index in
            var menu = base[index % base.count]
            guard index >= base.count else { return menu }
            menu.id += "-\(index)"
            menu.rice = Bool.random(using: &random)
            menu.noodle = !menu.rice && Bool.random(using: &random)
            menu.healthy = Double.random(in: 0..<1, using: &random) < 0.2
            menu.alcohol = Bool.random(using: &random)
            menu.expense = [nil, .cheap, .expensive1, .expensive2].randomElement(using: &random)!
            return menu
        }
    }

    /// A player as people answer: each yes/no card yes, no or don't care; zero to two cuisines;
    /// each dislikeable food disliked one time in ten.
    public static func player(using random: inout SeededGenerator) -> PlayerChoice {
        func card() -> Bool? {
            let roll = Double.random(in: 0..<1, using: &random)
            return roll < 0.35 ? true : (roll < 0.7 ? false : nil)
        }
        let answer = GameAnswer(hangover: card(), greasy: card(), health: card(), alcohol: card(), instant: card(),
                                spicy: card(), rich: card(), rice: card(), noodle: card(), soup: card(),
                                nation: Set(Nation.allCases.shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random))))
        let disliked = Set(Flavor.dislikeable.filter { _ in Double.random(in: 0..<1, using: &random) < 0.1 })
        return PlayerChoice(answer: answer, disliked: disliked)
    }
}
