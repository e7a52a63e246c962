@testable import MenuGame
import MenuGameApp
import Platform
import WhatWeEatTesting
import XCTest

/// Recommender `v0` (the original) and `v1` (the default).
final class RecommenderTests: XCTestCase {
    typealias M = MenuScoringTests

    func testV0SumsPlayersAndBreaksTiesByCatalogOrder() {
        let menus = [M.kimchiStew, M.sushi, M.menu("twin-a"), M.menu("twin-b")]
        var random = SplitMix64(seed: 1)
        let ranked = Recommender(version: .v0, menus: menus)
            .rank([PlayerChoice(answer: M.player), PlayerChoice(answer: M.player)], limit: 4, using: &random)
        XCTAssertEqual(ranked.map(\.menu.id), ["kimchi-jjigae", "twin-a", "twin-b", "sushi"])
        XCTAssertEqual(ranked.first?.score, 18)
        XCTAssertEqual(ranked.first?.keywords.count, 3)
    }

    func testNoPlayerIsServedWhatTheyDislike() {
        let menus = [M.kimchiStew, M.sushi, M.menu("gopchang", [.intestine, .meat]), M.menu("salad", healthy: true)]
        for version in RecommenderVersion.allCases {
            var random = SplitMix64(seed: 7)
            let ranked = Recommender(version: version, menus: menus).rank([
                PlayerChoice(answer: M.player, disliked: [.meat]),
                PlayerChoice(answer: M.player, disliked: [.sashimi]),
            ], limit: 5, using: &random)
            XCTAssertEqual(ranked.map(\.menu.id), ["salad"], "\(version)")
        }
    }

    /// Three players want greasy drinking food; the fourth wants the opposite. `v0` adds up to
    /// the fourth player's worst menu; `v1` finds the menu everyone finds good.
    func testV1DoesNotLeaveOnePlayerBadlyUnhappy() {
        let samgyeopsal = M.menu("samgyeopsal", [.meat, .greasy], alcohol: true, expense: .expensive1)
        let bibimbap = M.menu("bibimbap", rice: true, healthy: true)
        let salad = M.menu("salad", nations: [.western], healthy: true, instant: true)
        let compromise = M.menu("compromise", rice: true, healthy: true, alcohol: true, expense: .expensive1)
        let menus = [samgyeopsal, bibimbap, salad, compromise]
        let partyGoer = PlayerChoice(answer: GameAnswer(greasy: true, health: false, alcohol: true, rich: true))
        let dieter = PlayerChoice(answer: GameAnswer(greasy: false, health: true, alcohol: false, rich: false, rice: true))
        let group = [partyGoer, partyGoer, partyGoer, dieter]

        var random = SplitMix64(seed: 3)
        let v0 = Recommender(version: .v0, menus: menus).rank(group, limit: 1, using: &random)
        let v1 = Recommender(version: .v1, menus: menus).rank(group, limit: 1, using: &random)
        XCTAssertEqual(v0.first?.menu.id, "samgyeopsal", "sum: 3 × 4 − 5 = 7 beats 3 × 1 + 0 = 3")
        XCTAssertEqual(v1.first?.menu.id, "compromise")
        // The dieter's place for v1's pick: 0 on their own scale is their worst, 1 their best.
        let dieterScores = menus.map { MenuScoring.score(dieter.answer, for: $0) }
        let satisfaction = Double(MenuScoring.score(dieter.answer, for: compromise) - dieterScores.min()!) / Double(dieterScores.max()! - dieterScores.min()!)
        XCTAssertGreaterThan(satisfaction, 0.5)
    }

    func testV1BreaksTiesDifferently() {
        let menus = [M.menu("twin-a"), M.menu("twin-b"), M.menu("twin-c")]
        let recommender = Recommender(version: .v1, menus: menus)
        var winners = Set<String>()
        for seed in 0..<40 {
            var random = SplitMix64(seed: UInt64(seed))
            winners.insert(recommender.rank([PlayerChoice(answer: GameAnswer())], limit: 1, using: &random)[0].menu.id)
        }
        XCTAssertEqual(winners, ["twin-a", "twin-b", "twin-c"])
        var random = SplitMix64(seed: 0)
        let v0 = Recommender(version: .v0, menus: menus)
        XCTAssertEqual(v0.rank([PlayerChoice(answer: GameAnswer())], limit: 1, using: &random)[0].menu.id, "twin-a")
    }

    func testV1SoloGamesDoNotRepeatTheRecentWinners() {
        let menus = (0..<8).map { M.menu("m\($0)", rice: $0 % 2 == 0, healthy: $0 < 4) }
        let recommender = Recommender(version: .v1, menus: menus)
        let answer = PlayerChoice(answer: GameAnswer(health: true, rice: true))
        var history: [String] = []
        var random = SplitMix64(seed: 11)
        for _ in 0..<12 {
            let winner = recommender.rank([answer], limit: 1, recentlyShown: history, using: &random)[0].menu.id
            XCTAssertFalse(history.prefix(3).contains(winner), "\(winner) won again within three games: \(history)")
            history.insert(winner, at: 0)
        }
        // Without a history, the same answers give the same best menu (m0 or m2: healthy rice).
        XCTAssertTrue(["m0", "m2"].contains(recommender.rank([answer], limit: 1, using: &random)[0].menu.id))
    }

    func testRandomMenuAvoidsWhatTheDeviceSawLately() {
        let menus = (0..<5).map { M.menu("m\($0)") }
        let recommender = Recommender(version: .v1, menus: menus)
        var random = SplitMix64(seed: 5)
        for _ in 0..<50 {
            let pick = recommender.randomMenu(recentlyShown: ["m0", "m1", "m2", "m3"], using: &random)
            XCTAssertEqual(pick?.id, "m4")
        }
        XCTAssertNotNil(recommender.randomMenu(recentlyShown: menus.map(\.id), using: &random), "when all were seen, any will do")
    }
}

/// A small seeded generator, so tests of random tie-breaks are repeatable.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
