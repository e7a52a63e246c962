import BenchmarkSupport
import Foundation
import MenuGame

// Where the original recommender (v0, a plain sum) is weak, and what v1 does there.
// Synthetic groups on the shipped catalog; every figure comes from this run.
// Satisfaction of a player with a menu: 0 = their worst edible menu, 1 = their best
// (their own score, rescaled over the menus the group can eat).

func satisfaction(_ choice: PlayerChoice, _ menu: Menu, edible: [Menu]) -> Double {
    let scores = edible.map { MenuScoring.score(choice.answer, for: $0) }
    let low = scores.min()!, high = scores.max()!
    return high == low ? 1 : Double(MenuScoring.score(choice.answer, for: menu) - low) / Double(high - low)
}

let catalog = try Synthetic.catalog()
var random = SeededGenerator(seed: 2026)
let groupsPerSize = 2_000
print("| group size | recommender | worst-off player's satisfaction (mean) | groups leaving someone below 0.5 | groups leaving someone at 0 (their worst) | average satisfaction |")
print("|---:|---|---:|---:|---:|---:|")
for size in [2, 4, 8] {
    var worst: [RecommenderVersion: [Double]] = [:], average: [RecommenderVersion: [Double]] = [:]
    for _ in 0..<groupsPerSize {
        let group = (0..<size).map { _ in Synthetic.player(using: &random) }
        let disliked = group.reduce(into: Set<Flavor>()) { $0.formUnion($1.disliked) }
        let edible = catalog.filter { $0.isEdible(avoiding: disliked) }
        guard edible.count > 1 else { continue }
        for version in RecommenderVersion.allCases {
            var generator = SeededGenerator(seed: random.next())
            guard let top = Recommender(version: version, menus: catalog).rank(group, limit: 1, using: &generator).first?.menu else { continue }
            let values = group.map { satisfaction($0, top, edible: edible) }
            worst[version, default: []].append(values.min()!)
            average[version, default: []].append(values.reduce(0, +) / Double(values.count))
        }
    }
    for version in RecommenderVersion.allCases {
        let w = worst[version]!, a = average[version]!
        let below = Double(w.filter { $0 < 0.5 }.count) / Double(w.count) * 100
        let zero = Double(w.filter { $0 == 0 }.count) / Double(w.count) * 100
        print("| \(size) | \(version.rawValue) | \(String(format: "%.3f", w.reduce(0, +) / Double(w.count))) | \(String(format: "%.1f%%", below)) | \(String(format: "%.1f%%", zero)) | \(String(format: "%.3f", a.reduce(0, +) / Double(a.count))) |")
    }
}

// Variety: one device, the same answers ten games in a row.
print()
print("| recommender | distinct winners in 10 consecutive solo games, same answers (mean of 500 devices) | random menus repeated within 10 draws (mean) |")
print("|---|---:|---:|")
for version in RecommenderVersion.allCases {
    let recommender = Recommender(version: version, menus: catalog)
    var distinct = 0.0, repeats = 0.0
    for _ in 0..<500 {
        let player = Synthetic.player(using: &random)
        var history: [String] = [], draws: [String] = []
        var generator = SeededGenerator(seed: random.next())
        for _ in 0..<10 {
            // v0 has no memory; v1 is given the device's history as the server does.
            let winner = recommender.rank([player], limit: 1, recentlyShown: version == .v1 ? history : [], using: &generator)[0].menu.id
            history.insert(winner, at: 0)
            let draw = recommender.randomMenu(recentlyShown: version == .v1 ? draws : [], using: &generator)!.id
            draws.insert(draw, at: 0)
        }
        distinct += Double(Set(history).count)
        repeats += Double(draws.count - Set(draws).count)
    }
    print("| \(version.rawValue) | \(String(format: "%.1f", distinct / 500)) | \(String(format: "%.2f", repeats / 500)) |")
}
