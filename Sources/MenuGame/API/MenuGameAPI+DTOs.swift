import Accounts
import Fluent
import Platform
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
    package struct Item: Content {
        package let rank: Int
        package let id: String
        package let name: Menu.Names
        let displayName: String
        package let emoji: String
        package let imageURL: String
        package let keywords: [String]
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
    /// Who is in the room (the host first), each with whether they have answered.
    let members: [GroupMember]
    /// The asking device's entry in `members`; null before it joined.
    @NullEncoded var you: UUID?

    init(_ status: GroupStatus) {
        pin = status.pin
        submissionCount = status.submissionCount
        isHost = status.isHost
        isClosed = status.isClosed
        expiresAt = status.expiresAt
        members = status.members
        you = status.you
    }
}

/// `PUT groups/:pin/member`: an empty body enters the room; `guestName` names a guest.
struct JoinBody: Content {
    let guestName: String?
}

/// The live socket's first message: `{"type":"state"}` and the room as `GET groups/:pin` tells it
/// to this device.
struct LiveState: Encodable {
    let status: GroupStatusResponse

    private enum Key: String, CodingKey { case type }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode("state", forKey: .type)
        try status.encode(to: encoder)
    }
}

/// A player's answers as the native API takes them.
package struct SubmissionBody: Content {
    package let gameAnswer: GameAnswer
    package let dislikedFoods: [Flavor]?

    /// Only the five dislikeable foods may be named.
    package func choice() throws -> PlayerChoice {
        let disliked = Set(dislikedFoods ?? [])
        guard disliked.isSubset(of: Flavor.dislikeable) else {
            throw AppError.invalid("invalid_disliked_food", ["allowed": Flavor.dislikeable.map(\.rawValue).sorted().joined(separator: ", ")])
        }
        return PlayerChoice(answer: gameAnswer, disliked: disliked)
    }

    package init(gameAnswer: GameAnswer, dislikedFoods: [Flavor]?) {
        self.gameAnswer = gameAnswer
        self.dislikedFoods = dislikedFoods
    }
}

extension MenuGameAPI {
    /// What admins send to add or change a menu.
    struct MenuInput: Content {
        var id: String?
        var name: Menu.Names?
        var emoji: String?
        var nations: [Nation]?
        var flavors: [Flavor]?
        var rice: Bool?
        var noodle: Bool?
        var soup: Bool?
        var healthy: Bool?
        var instant: Bool?
        var alcohol: Bool?
        var expense: Expense?
        var imageURL: String?
    }
}

extension MenuGameAPI.MenuInput {
    /// A new menu from the fields sent; id, name, emoji and nations are required.
    func newMenu() throws -> Menu {
        Menu(id: try id.required("id"), name: try name.required("name"), emoji: try emoji.required("emoji"),
             nations: Set(try nations.required("nations")), flavors: Set(flavors ?? []),
             rice: rice ?? false, noodle: noodle ?? false, soup: soup ?? false,
             healthy: healthy ?? false, instant: instant ?? false, alcohol: alcohol ?? false, expense: expense)
    }

    /// The fields sent, written over a menu; a menu's id never changes.
    func apply(to menu: inout Menu) throws {
        if let id, id != menu.id { throw AppError.invalid("menu_id_immutable") }
        if let name { menu.name = name }
        if let emoji { menu.emoji = emoji }
        if let nations { menu.nations = Set(nations) }
        if let flavors { menu.flavors = Set(flavors) }
        if let rice { menu.rice = rice }
        if let noodle { menu.noodle = noodle }
        if let soup { menu.soup = soup }
        if let healthy { menu.healthy = healthy }
        if let instant { menu.instant = instant }
        if let alcohol { menu.alcohol = alcohol }
        if expense != nil { menu.expense = expense }
    }
}

/// `GET /api/v1/menu-game/menus/{menu}/nearby`.
struct NearbyResponse: Content {
    struct Links: Content {
        let kakaoMap: String
        let naverMap: String
    }
    let menu: String
    /// The menu's name in the reader's language.
    let name: String
    let places: [NearbyPlace]
    /// `ok`, `off` (no Kakao key), `busy` (the network's look-ups are spent for a minute), `unavailable`.
    let kakao: NearbyKakao
    /// The map apps' searches for the menu, for what the list does not hold.
    let links: Links
}
