import Foundation

/// The original app's scoring rules (recommender `v0`), as per-question scores.
///
/// Every rule gives a "no" answer exactly the negative of a "yes" answer's score (for example a
/// SPICY menu: yes +1, no −1; a non-spicy menu: yes −1, no +1), so a player's score for a menu is
/// Σ answer-sign × yes-score over the answered questions, plus one point per chosen cuisine the
/// menu belongs to. "Don't care" scores 0.
public enum MenuScoring {
    /// What a "yes" to `question` scores for `menu`.
    public static func yesScore(_ question: Question, for menu: Menu) -> Int {
        func matching(_ flag: Bool) -> Int { flag ? 1 : -1 }
        switch question {
        case .hangover:
            let cool = menu.flavors.contains(.cool), hot = menu.flavors.contains(.hot)
            return cool && hot ? 2 : (cool || hot ? 1 : 0)
        case .greasy: return menu.flavors.contains(.greasy) ? 1 : 0
        case .health: return matching(menu.healthy)
        case .alcohol: return matching(menu.alcohol)
        case .instant: return matching(menu.instant)
        case .spicy: return matching(menu.flavors.contains(.spicy))
        case .rich:
            switch menu.expense {
            case .expensive2: return 2
            case .expensive1: return 1
            case .cheap: return 0
            case nil: return -1
            }
        case .rice: return matching(menu.rice)
        case .noodle: return matching(menu.noodle)
        case .soup: return matching(menu.soup)
        case .nation: return 0
        }
    }

    /// What one answer to one question scores for a menu (`nil` = don't care = 0).
    public static func score(_ question: Question, answer: Bool?, for menu: Menu) -> Int {
        guard let answer else { return 0 }
        let yes = yesScore(question, for: menu)
        return answer ? yes : -yes
    }

    /// One player's whole score for a menu.
    public static func score(_ answer: GameAnswer, for menu: Menu) -> Int {
        var total = answer.nation.intersection(menu.nations).count
        for question in Question.yesNo {
            total += score(question, answer: answer.answer(to: question), for: menu)
        }
        return total
    }

    /// The three keywords that explain a menu for these players: the question sides (yes or no)
    /// with the highest positive summed score, strongest first. When fewer than three sides
    /// speak for the menu, the menu's own traits fill the rest, so every result has three.
    public static func keywords(for menu: Menu, answers: [GameAnswer], count: Int = 3) -> [String] {
        var strengths: [(keyword: String, strength: Int, order: Int)] = []
        for (order, question) in Question.yesNo.enumerated() {
            for side in [true, false] {
                let strength = answers.reduce(0) { sum, answer in
                    answer.answer(to: question) == side ? sum + score(question, answer: side, for: menu) : sum
                }
                if strength > 0, let keyword = question.keyword(yes: side) {
                    strengths.append((keyword, strength, order * 2 + (side ? 0 : 1)))
                }
            }
        }
        var chosen = strengths.sorted { ($0.strength, -$0.order) > ($1.strength, -$1.order) }.map(\.keyword)
        for trait in traitKeywords(menu) where chosen.count < count && !chosen.contains(trait) {
            chosen.append(trait)
        }
        return Array(chosen.prefix(count))
    }

    /// Keywords that describe the menu itself, most telling first.
    static func traitKeywords(_ menu: Menu) -> [String] {
        var traits: [String] = []
        if menu.flavors.contains(.cool) || menu.flavors.contains(.hot) { traits.append("해장") }
        if menu.flavors.contains(.spicy) { traits.append("매콤") }
        if menu.flavors.contains(.greasy) { traits.append("기름칠") }
        if menu.flavors.contains(.bland) { traits.append("담백") }
        if menu.healthy { traits.append("건강식") }
        if menu.alcohol { traits.append("안주") }
        if menu.instant { traits.append("간편") }
        switch menu.expense {
        case .expensive1, .expensive2: traits.append("돈 걱정 없음")
        case .cheap: traits.append("가성비")
        case nil: break
        }
        // What the menu is comes before what it is not; rice, noodle and soup each add one of
        // the two, so there are always at least three traits.
        let mains: [(has: Bool, yes: String, no: String)] = [(menu.rice, "밥", "밥 X"), (menu.noodle, "면", "면 X"), (menu.soup, "국", "국 X")]
        traits += mains.filter(\.has).map(\.yes)
        traits += mains.filter { !$0.has }.map(\.no)
        return traits
    }
}
