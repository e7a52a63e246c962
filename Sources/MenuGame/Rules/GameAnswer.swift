import Foundation

/// The seven yes/no cards and the two multiple-choice cards, in the order the game shows them.
public enum Question: String, Codable, Sendable, CaseIterable {
    case hangover, greasy, health, alcohol, instant, spicy, rich, rice, noodle, soup, nation

    /// The keyword a menu earns when this question speaks for it: `yes` when the players who said
    /// yes made it score, `no` when the players who said no did. Nations earn no keyword.
    public func keyword(yes: Bool) -> String? {
        switch self {
        case .hangover: return yes ? "해장" : "해장 X"
        case .greasy: return yes ? "기름칠" : "담백"
        case .health: return yes ? "건강식" : "맛 있으면 0 칼로리"
        case .alcohol: return yes ? "안주" : "안주 X"
        case .instant: return yes ? "간편" : "여유 있는"
        case .spicy: return yes ? "매콤" : "매콤 X"
        case .rich: return yes ? "돈 걱정 없음" : "가성비"
        case .rice: return yes ? "밥" : "밥 X"
        case .noodle: return yes ? "면" : "면 X"
        case .soup: return yes ? "국" : "국 X"
        case .nation: return nil
        }
    }

    /// The seven yes/no questions and the three "main" flags; `nation` is scored separately.
    public static let yesNo: [Question] = [.hangover, .greasy, .health, .alcohol, .instant, .spicy, .rich, .rice, .noodle, .soup]
}

/// One player's answers. `nil` means "don't care" (the iOS app omits the field).
/// "None of these" on the main card arrives as rice, noodle and soup all `false`.
public struct GameAnswer: Codable, Sendable, Equatable {
    public var hangover: Bool?
    public var greasy: Bool?
    public var health: Bool?
    public var alcohol: Bool?
    public var instant: Bool?
    public var spicy: Bool?
    public var rich: Bool?
    public var rice: Bool?
    public var noodle: Bool?
    public var soup: Bool?
    /// Chosen cuisines; empty means "don't care".
    public var nation: Set<Nation>

    public init(
        hangover: Bool? = nil, greasy: Bool? = nil, health: Bool? = nil, alcohol: Bool? = nil,
        instant: Bool? = nil, spicy: Bool? = nil, rich: Bool? = nil, rice: Bool? = nil,
        noodle: Bool? = nil, soup: Bool? = nil, nation: Set<Nation> = []
    ) {
        self.hangover = hangover
        self.greasy = greasy
        self.health = health
        self.alcohol = alcohol
        self.instant = instant
        self.spicy = spicy
        self.rich = rich
        self.rice = rice
        self.noodle = noodle
        self.soup = soup
        self.nation = nation
    }

    package enum CodingKeys: String, CodingKey {
        case hangover, greasy, health, alcohol, instant, spicy, rich, rice, noodle, soup, nation
    }

    /// Absent and null both mean "don't care", as the iOS app's encoder omits nil fields.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        hangover = try container.decodeIfPresent(Bool.self, forKey: .hangover)
        greasy = try container.decodeIfPresent(Bool.self, forKey: .greasy)
        health = try container.decodeIfPresent(Bool.self, forKey: .health)
        alcohol = try container.decodeIfPresent(Bool.self, forKey: .alcohol)
        instant = try container.decodeIfPresent(Bool.self, forKey: .instant)
        spicy = try container.decodeIfPresent(Bool.self, forKey: .spicy)
        rich = try container.decodeIfPresent(Bool.self, forKey: .rich)
        rice = try container.decodeIfPresent(Bool.self, forKey: .rice)
        noodle = try container.decodeIfPresent(Bool.self, forKey: .noodle)
        soup = try container.decodeIfPresent(Bool.self, forKey: .soup)
        nation = Set(try container.decodeIfPresent([Nation].self, forKey: .nation) ?? [])
    }

    public func answer(to question: Question) -> Bool? {
        switch question {
        case .hangover: return hangover
        case .greasy: return greasy
        case .health: return health
        case .alcohol: return alcohol
        case .instant: return instant
        case .spicy: return spicy
        case .rich: return rich
        case .rice: return rice
        case .noodle: return noodle
        case .soup: return soup
        case .nation: return nil
        }
    }
}

/// A player's whole submission: answers plus the foods they cannot eat.
public struct PlayerChoice: Sendable, Equatable {
    public var answer: GameAnswer
    public var disliked: Set<Flavor>

    public init(answer: GameAnswer, disliked: Set<Flavor> = []) {
        self.answer = answer
        self.disliked = disliked
    }
}

/// A recommended menu with the three keywords that explain it.
public struct RankedMenu: Sendable, Equatable {
    public let menu: Menu
    public let score: Double
    public let keywords: [String]
}
