import Fluent
import Vapor

/// A menu as the native API shows it.
struct MenuResponse: Content {
    let id: String
    let name: Menu.Names
    /// The name in the request's language.
    let displayName: String
    let emoji: String
    let imageURL: String
    let nations: [Nation]
    let flavors: [Flavor]
    let rice: Bool
    let noodle: Bool
    let soup: Bool
    let healthy: Bool
    let instant: Bool
    let alcohol: Bool
    @NullEncoded var expense: Expense?

    init(_ menu: Menu, imageURL: String, language: Language) {
        id = menu.id
        name = menu.name
        displayName = menu.name[language]
        emoji = menu.emoji
        self.imageURL = imageURL
        nations = menu.nations.sorted { $0.rawValue < $1.rawValue }
        flavors = menu.flavors.sorted { $0.rawValue < $1.rawValue }
        rice = menu.rice
        noodle = menu.noodle
        soup = menu.soup
        healthy = menu.healthy
        instant = menu.instant
        alcohol = menu.alcohol
        expense = menu.expense
    }
}

/// Results as the native API shows them.
struct ResultResponse: Content {
    struct Item: Content {
        let rank: Int
        let id: String
        let name: Menu.Names
        let displayName: String
        let emoji: String
        let imageURL: String
        let keywords: [String]
    }
    let menus: [Item]
    let playerCount: Int

    init(_ result: GameResult, language: Language) {
        menus = result.menus.enumerated().map { index, entry in
            Item(rank: index + 1, id: entry.slug, name: entry.name, displayName: entry.name[language],
                 emoji: entry.emoji, imageURL: entry.imageURL, keywords: entry.keywords)
        }
        playerCount = result.playerCount
    }
}

struct GroupStatusResponse: Content {
    let pin: String
    let submissionCount: Int
    let isHost: Bool
    let isClosed: Bool
    let expiresAt: Date

    init(_ status: GroupStatus) {
        pin = status.pin
        submissionCount = status.submissionCount
        isHost = status.isHost
        isClosed = status.isClosed
        expiresAt = status.expiresAt
    }
}

/// A player's answers as the native API takes them.
struct SubmissionBody: Content {
    let gameAnswer: GameAnswer
    let dislikedFoods: [Flavor]?

    /// Only the five dislikeable foods may be named.
    func choice() throws -> PlayerChoice {
        let disliked = Set(dislikedFoods ?? [])
        guard disliked.isSubset(of: Flavor.dislikeable) else {
            throw AppError.invalid("invalid_disliked_food", ["allowed": Flavor.dislikeable.map(\.rawValue).sorted().joined(separator: ", ")])
        }
        return PlayerChoice(answer: gameAnswer, disliked: disliked)
    }
}
