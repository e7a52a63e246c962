import XCTest
@testable import WhatWeEatServer

/// The original scoring rules (`v0`), one by one, and cases computed by hand.
final class MenuScoringTests: XCTestCase {
    static func menu(
        _ id: String, _ flavors: Set<Flavor> = [], nations: Set<Nation> = [.korean], rice: Bool = false,
        noodle: Bool = false, soup: Bool = false, healthy: Bool = false, instant: Bool = false,
        alcohol: Bool = false, expense: Expense? = nil
    ) -> Menu {
        Menu(id: id, name: .init(ko: id, en: id, ja: id), emoji: "🍽️", nations: nations, flavors: flavors, rice: rice,
             noodle: noodle, soup: soup, healthy: healthy, instant: instant, alcohol: alcohol, expense: expense)
    }

    func score(_ question: Question, _ answer: Bool?, _ menu: Menu) -> Int {
        MenuScoring.score(question, answer: answer, for: menu)
    }

    func testHangoverCountsCoolAndHotBroths() {
        let both = Self.menu("both", [.cool, .hot]), cool = Self.menu("cool", [.cool]), hot = Self.menu("hot", [.hot]), neither = Self.menu("none")
        XCTAssertEqual([score(.hangover, true, both), score(.hangover, false, both)], [2, -2])
        XCTAssertEqual([score(.hangover, true, cool), score(.hangover, false, cool)], [1, -1])
        XCTAssertEqual([score(.hangover, true, hot), score(.hangover, false, hot)], [1, -1])
        XCTAssertEqual([score(.hangover, true, neither), score(.hangover, false, neither)], [0, 0])
        XCTAssertEqual(score(.hangover, nil, both), 0, "don't care scores nothing")
    }

    func testGreasyOnlyMovesGreasyMenus() {
        XCTAssertEqual([score(.greasy, true, Self.menu("g", [.greasy])), score(.greasy, false, Self.menu("g", [.greasy]))], [1, -1])
        XCTAssertEqual([score(.greasy, true, Self.menu("b", [.bland])), score(.greasy, false, Self.menu("b", [.bland]))], [0, 0])
    }

    func testFlagQuestionsRewardAMatchAndPunishAMismatch() {
        let flagged = Self.menu("f", rice: true, noodle: true, soup: true, healthy: true, instant: true, alcohol: true)
        let plain = Self.menu("p")
        for question in [Question.health, .alcohol, .instant, .rice, .noodle, .soup] {
            XCTAssertEqual(score(question, true, flagged), 1, "\(question) yes, menu has it")
            XCTAssertEqual(score(question, false, flagged), -1, "\(question) no, menu has it")
            XCTAssertEqual(score(question, true, plain), -1, "\(question) yes, menu lacks it")
            XCTAssertEqual(score(question, false, plain), 1, "\(question) no, menu lacks it")
        }
    }

    func testSpicy() {
        XCTAssertEqual([score(.spicy, true, Self.menu("s", [.spicy])), score(.spicy, false, Self.menu("s", [.spicy]))], [1, -1])
        XCTAssertEqual([score(.spicy, true, Self.menu("m")), score(.spicy, false, Self.menu("m"))], [-1, 1])
    }

    func testRichFollowsThePriceTier() {
        XCTAssertEqual([score(.rich, true, Self.menu("e2", expense: .expensive2)), score(.rich, false, Self.menu("e2", expense: .expensive2))], [2, -2])
        XCTAssertEqual([score(.rich, true, Self.menu("e1", expense: .expensive1)), score(.rich, false, Self.menu("e1", expense: .expensive1))], [1, -1])
        XCTAssertEqual([score(.rich, true, Self.menu("mid")), score(.rich, false, Self.menu("mid"))], [-1, 1])
        XCTAssertEqual([score(.rich, true, Self.menu("c", expense: .cheap)), score(.rich, false, Self.menu("c", expense: .cheap))], [0, 0])
    }

    func testNationsAddOnePerChosenCuisine() {
        let fusion = Self.menu("fusion", nations: [.korean, .japanese])
        XCTAssertEqual(MenuScoring.score(GameAnswer(nation: [.korean, .japanese, .chinese]), for: fusion), 2)
        XCTAssertEqual(MenuScoring.score(GameAnswer(nation: [.western]), for: fusion), 0)
        XCTAssertEqual(MenuScoring.score(GameAnswer(), for: fusion), 0, "no cuisine chosen = don't care")
    }

    /// 김치찌개 and 초밥 for one player, every question answered but `instant`.
    static let kimchiStew = menu("kimchi-jjigae", [.hot, .spicy, .meat], rice: true, soup: true, alcohol: true)
    static let sushi = menu("sushi", [.sashimi, .seafood, .bland], nations: [.japanese], rice: true, healthy: true, expense: .expensive1)
    static let player = GameAnswer(hangover: true, greasy: false, health: false, alcohol: true, instant: nil, spicy: true,
                                   rich: false, rice: true, noodle: false, soup: true, nation: [.korean, .japanese])

    func testHandComputedTotals() {
        // 김치찌개: hangover +1 (HOT), greasy 0, health +1, alcohol +1, spicy +1, rich +1, rice +1, noodle +1, soup +1, nation +1.
        XCTAssertEqual(MenuScoring.score(Self.player, for: Self.kimchiStew), 9)
        // 초밥: hangover 0, greasy 0, health −1, alcohol −1, spicy −1, rich −1, rice +1, noodle +1, soup −1, nation +1.
        XCTAssertEqual(MenuScoring.score(Self.player, for: Self.sushi), -2)
    }

    func testKeywordsAreTheStrongestSidesInQuestionOrder() {
        // Eight sides score +1 for 김치찌개; ties keep the cards' order.
        XCTAssertEqual(MenuScoring.keywords(for: Self.kimchiStew, answers: [Self.player]), ["해장", "맛 있으면 0 칼로리", "안주"])
        // With two players wanting a hangover cure, that side is stronger than any other.
        let rich = GameAnswer(rich: true)
        let stew = Self.menu("haejang", [.cool, .hot], soup: true, expense: .expensive2)
        XCTAssertEqual(MenuScoring.keywords(for: stew, answers: [GameAnswer(hangover: true), GameAnswer(hangover: true), rich]),
                       ["해장", "돈 걱정 없음", "국"], "hangover 4, rich 2, then the menu's own traits")
    }

    func testKeywordsAlwaysNumberThree() {
        let plain = Self.menu("plain")
        XCTAssertEqual(MenuScoring.keywords(for: plain, answers: [GameAnswer()]), ["밥 X", "면 X", "국 X"])
        XCTAssertEqual(MenuScoring.keywords(for: Self.sushi, answers: [GameAnswer()]).count, 3)
    }
}

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
