import Foundation
public import enum Platform.Language

/// Cuisine families, as the iOS app names them (`CONVENIENT` is 분식).
public enum Nation: String, Codable, Sendable, CaseIterable {
    case korean = "KOREAN", western = "WESTERN", japanese = "JAPANESE", chinese = "CHINESE"
    case convenient = "CONVENIENT", exotic = "EXOTIC", etc = "ETC"
}

/// Taste and ingredient tags. The last five are also the foods a player can dislike.
public enum Flavor: String, Codable, Sendable, CaseIterable {
    /// 시원 — a refreshing broth.
    case cool = "COOL"
    /// 얼큰 — a hot, spicy broth.
    case hot = "HOT"
    /// 느끼 — rich, oily.
    case greasy = "GREASY"
    /// 담백 — mild, clean.
    case bland = "BLAND"
    case spicy = "SPICY"
    /// 날것 — raw fish or meat.
    case sashimi = "SASHIMI"
    /// 내장 — offal.
    case intestine = "INTESTINE"
    case seafood = "SEAFOOD"
    case meat = "MEAT"

    /// What a player may say they cannot eat.
    public static let dislikeable: Set<Flavor> = [.spicy, .intestine, .sashimi, .seafood, .meat]
}

/// Price tier; a menu without one is an ordinary mid-priced meal.
public enum Expense: String, Codable, Sendable, CaseIterable {
    case cheap = "CHEAP", expensive1 = "EXPENSIVE1", expensive2 = "EXPENSIVE2"
}

/// One dish of the catalog, with everything the recommender looks at.
public struct Menu: Codable, Sendable, Equatable, Identifiable {
    public struct Names: Codable, Sendable, Equatable {
        public var ko: String
        public var en: String
        public var ja: String

        public init(ko: String, en: String, ja: String) {
            self.ko = ko
            self.en = en
            self.ja = ja
        }

        public subscript(language: Language) -> String {
            switch language {
            case .ko: return ko
            case .en: return en
            case .ja: return ja
            }
        }
    }

    public var id: String
    public var name: Names
    public var emoji: String
    public var nations: Set<Nation>
    public var flavors: Set<Flavor>
    public var rice: Bool
    public var noodle: Bool
    public var soup: Bool
    public var healthy: Bool
    public var instant: Bool
    public var alcohol: Bool
    public var expense: Expense?

    public init(
        id: String, name: Names, emoji: String, nations: Set<Nation>, flavors: Set<Flavor>,
        rice: Bool = false, noodle: Bool = false, soup: Bool = false, healthy: Bool = false,
        instant: Bool = false, alcohol: Bool = false, expense: Expense? = nil
    ) {
        self.id = id
        self.name = name
        self.emoji = emoji
        self.nations = nations
        self.flavors = flavors
        self.rice = rice
        self.noodle = noodle
        self.soup = soup
        self.healthy = healthy
        self.instant = instant
        self.alcohol = alcohol
        self.expense = expense
    }

    /// True when a player who dislikes any of `disliked` could be served this menu.
    public func isEdible(avoiding disliked: Set<Flavor>) -> Bool {
        flavors.isDisjoint(with: disliked)
    }
}
