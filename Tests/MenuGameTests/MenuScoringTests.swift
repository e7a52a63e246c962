@testable import MenuGame
import MenuGameApp
import WhatWeEatTesting
import XCTest

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
