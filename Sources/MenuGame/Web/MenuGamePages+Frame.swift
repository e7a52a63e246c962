import Accounts
import Foundation
import Platform
import Plot
import Vapor

/// The frame and building blocks of the menu-game pages: the tab bar, the nine cards, food tiles,
/// and the JSON the page's scripts read. The pages themselves are in the other `MenuGamePages` files.
extension MenuGamePages {
    package enum Tab: String, CaseIterable { case home, solo, together }

    static let stylesheet = "/css/menu-game.css"

    static func tabPath(_ tab: Tab) -> String {
        switch tab {
        case .home: return PlayPath.home()
        case .solo: return PlayPath.solo()
        case .together: return PlayPath.together()
        }
    }

    /// The frame of every menu-game page: its stylesheet and scripts, the settings link in the
    /// header, and the tab bar (hidden during a game so the player can concentrate).
    static func extras(_ req: Request, tab: Tab?, scripts: [String] = [], showTabs: Bool = true) -> PageExtras {
        PageExtras(
            stylesheets: [stylesheet],
            scripts: scripts,
            bodyClass: showTabs ? "menu-game with-tabs" : "menu-game",
            headerLinks: .a(.class("settings-link"), .href(PlayPath.settings()), .ariaLabel(req.t("menu_game.settings.title")),
                            .span(.ariaHidden(true), .text("⚙️"))),
            bottomBar: showTabs ? tabBar(req, current: tab) : .empty
        )
    }

    static func tabBar(_ req: Request, current: Tab?) -> Node<HTML.BodyContext> {
        let icons: [Tab: String] = [.home: "🏠", .solo: "🍱", .together: "👥"]
        return TabBar.render(label: req.t("menu_game.tabs.label"), classes: "menu-game-tabs", items: Tab.allCases.map { tab in
            TabBar.Item(path: tabPath(tab), emoji: icons[tab] ?? "", label: req.t("menu_game.tabs.\(tab.rawValue)"), isCurrent: tab == current)
        })
    }

    // MARK: Disliked foods

    static let dislikedEmoji: [Flavor: String] = [.spicy: "🌶️", .intestine: "🫕", .sashimi: "🍣", .seafood: "🦐", .meat: "🥩"]
    /// The order of the tiles, as in the app.
    static let dislikedOrder: [Flavor] = [.spicy, .intestine, .sashimi, .seafood, .meat]

    /// Checkbox tiles: a tap toggles, and they work with a keyboard and without scripts.
    /// Kept per language and choice (five flavors: 32 choices), as `PageFragments`.
    static func dislikedTiles(_ req: Request, selected: Set<Flavor>) -> Node<HTML.FormContext> {
        let choice = dislikedOrder.filter(selected.contains).map(\.rawValue).joined(separator: ",")
        return req.application.pageFragments.node("menu_game.disliked-tiles.\(choice)", language: req.language, version: 0) {
            renderedDislikedTiles(req, selected: selected)
        }
    }

    private static func renderedDislikedTiles(_ req: Request, selected: Set<Flavor>) -> Node<HTML.FormContext> {
        .fieldset(
            .class("food-tiles"),
            .element(named: "legend", nodes: [.class("visually-hidden"), .text(req.t("menu_game.disliked.title"))]),
            .forEach(dislikedOrder) { flavor in
                let id = "disliked-\(flavor.rawValue.lowercased())"
                return .div(
                    .class("food-tile"),
                    .selfClosedElement(named: "input", attributes: [
                        .type(.checkbox), .id(id), .name("disliked[]"), .value(flavor.rawValue),
                        selected.contains(flavor) ? .attribute(named: "checked", value: "checked") : .empty,
                    ]),
                    .label(
                        .for(id),
                        .span(.class("food-emoji"), .ariaHidden(true), .text(dislikedEmoji[flavor] ?? "")),
                        .span(.class("food-name"), .text(req.t("menu_game.disliked.\(flavor.rawValue.lowercased())")))
                    )
                )
            }
        )
    }

    // MARK: The nine cards

    struct Choice { package let value: String; package let emoji: String; package let key: String }

    static let yesNoEmoji: [Question: String] = [
        .hangover: "🍲", .greasy: "🍗", .health: "🥗", .alcohol: "🍻", .instant: "⏱️", .spicy: "🌶️", .rich: "💸",
    ]
    static let yesNoQuestions: [Question] = [.hangover, .greasy, .health, .alcohol, .instant, .spicy, .rich]
    static let mainChoices = [
        Choice(value: "rice", emoji: "🍚", key: "menu_game.main.rice"),
        Choice(value: "noodle", emoji: "🍜", key: "menu_game.main.noodle"),
        Choice(value: "soup", emoji: "🥣", key: "menu_game.main.soup"),
        Choice(value: "none", emoji: "🙅", key: "menu_game.main.none"),
    ]
    static let nationChoices: [Choice] = [
        (Nation.korean, "🥘"), (.western, "🍝"), (.japanese, "🍣"), (.chinese, "🥟"), (.convenient, "🍢"), (.exotic, "🌮"), (.etc, "🍽️"),
    ].map { Choice(value: $0.0.rawValue, emoji: $0.1, key: "menu_game.nation.\($0.0.rawValue.lowercased())") }

    static var cardCount: Int { yesNoQuestions.count + 2 }

    /// The stack of cards; the script shows three at a time and animates them.
    /// The same for every reader of a language: rendered once (`PageFragments`).
    static func cardStack(_ req: Request) -> Node<HTML.BodyContext> {
        req.application.pageFragments.node("menu_game.cardStack", language: req.language, version: 0) { cardStackMarkup(req) }
    }

    private static func cardStackMarkup(_ req: Request) -> Node<HTML.BodyContext> {
        var index = 0
        func step() -> Node<HTML.BodyContext> {
            index += 1
            return .p(.class("card-step"), .text(req.t("menu_game.game.step", ["n": String(index), "total": String(cardCount)])))
        }
        return .div(
            .class("card-stack"), .id("card-stack"), .ariaLive(.polite),
            .forEach(yesNoQuestions) { question in
                .section(
                    .class("game-card"), .data(named: "question", value: question.rawValue), .data(named: "kind", value: "yesno"),
                    .ariaLabelledBy("q-\(question.rawValue)"),
                    step(),
                    .span(.class("card-emoji"), .ariaHidden(true), .text(yesNoEmoji[question] ?? "")),
                    .h2(.id("q-\(question.rawValue)"), .text(req.t("menu_game.q.\(question.rawValue)"))),
                    .p(.class("card-hint"), .text(req.t("menu_game.q.\(question.rawValue).hint")))
                )
            },
            choiceCard(req, question: "main", choices: mainChoices, step: step()),
            choiceCard(req, question: "nation", choices: nationChoices, step: step())
        )
    }

    private static func choiceCard(_ req: Request, question: String, choices: [Choice], step: Node<HTML.BodyContext>) -> Node<HTML.BodyContext> {
        .section(
            .class("game-card choice-card"), .data(named: "question", value: question), .data(named: "kind", value: "choice"),
            .ariaLabelledBy("q-\(question)"),
            step,
            .h2(.id("q-\(question)"), .text(req.t("menu_game.q.\(question)"))),
            .p(.class("card-hint"), .text(req.t("menu_game.q.\(question).hint"))),
            .div(
                .class("choice-grid"), .role("group"), .ariaLabelledBy("q-\(question)"),
                .forEach(choices) { choice in
                    .button(
                        .type(.button), .class("choice-tile"), .attribute(named: "aria-pressed", value: "false"),
                        .attribute(named: "data-choice", value: choice.value),
                        .span(.class("choice-emoji"), .ariaHidden(true), .text(choice.emoji)),
                        .span(.text(req.t(choice.key)))
                    )
                }
            )
        )
    }

    /// Like / don't care / hate for the yes-no cards; "don't care" / "next" for the others.
    /// The same for every reader of a language: rendered once (`PageFragments`).
    static func answerBar(_ req: Request) -> Node<HTML.BodyContext> {
        req.application.pageFragments.node("menu_game.answerBar", language: req.language, version: 0) { answerBarMarkup(req) }
    }

    private static func answerBarMarkup(_ req: Request) -> Node<HTML.BodyContext> {
        .div(
            .class("answer-bar"),
            .div(
                .class("answer-buttons yesno-buttons"),
                answerButton(req, "no", "✕", "menu_game.game.hate"),
                answerButton(req, "skip", "〰", "menu_game.game.dont_care"),
                answerButton(req, "yes", "♥", "menu_game.game.like")
            ),
            .div(
                .class("answer-buttons choice-buttons"), .hidden(true),
                answerButton(req, "skip", "〰", "menu_game.game.dont_care"),
                answerButton(req, "next", "→", "menu_game.game.next")
            ),
            .button(.type(.button), .class("link-button previous-button"), .id("previous-card"), .attribute(named: "disabled"),
                    .text("↶ " + req.t("menu_game.game.previous")))
        )
    }

    private static func answerButton(_ req: Request, _ answer: String, _ symbol: String, _ key: String) -> Node<HTML.BodyContext> {
        .button(
            .type(.button), .class("answer-button answer-\(answer)"), .attribute(named: "data-answer", value: answer),
            .span(.class("answer-symbol"), .ariaHidden(true), .text(symbol)),
            .span(.class("answer-label"), .text(req.t(key)))
        )
    }

    /// The same for every reader of a language: rendered once (`PageFragments`).
    static func progressBar(_ req: Request) -> Node<HTML.BodyContext> {
        req.application.pageFragments.node("menu_game.progressBar", language: req.language, version: 0) { progressBarMarkup(req) }
    }

    private static func progressBarMarkup(_ req: Request) -> Node<HTML.BodyContext> {
        .div(
            .class("progress"), .id("game-progress"), .role("progressbar"),
            .attribute(named: "aria-label", value: req.t("menu_game.game.progress")),
            .attribute(named: "aria-valuemin", value: "0"), .attribute(named: "aria-valuemax", value: String(cardCount)),
            .attribute(named: "aria-valuenow", value: "0"),
            .div(.class("progress-fill"))
        )
    }

    // MARK: Script configuration

    /// A menu-game page, kept whole (`Layout.keptPage`) when `keep`: per address, the device's
    /// disliked foods and whether it did the onboarding; the device's token is the reader's part
    /// `devicePart` (in the config). A page answering a form's error is made for its reader alone.
    /// `parts`: the page's own reader's parts, from 1 on (escaped for where they land).
    /// `variant`: what else the page shows that its address does not say (a group's id).
    static func page(_ req: Request, device: MenuGameDevice, keep: Bool, variant extra: String = "", parts: [String] = [],
                     make: () -> Layout.PageParts) -> Response {
        guard keep else {
            let parts = make()
            return Layout.page(req, title: parts.title, status: parts.status, extras: parts.extras, main: parts.main)
        }
        let variant = MenuGameDevice.cookieValue(device.disliked) + (device.isOnboarded ? "|onboarded" : "") + "|" + extra
        // The token lands inside the config's JSON string: a cookie may hold any printable character.
        return Layout.keptPage(req, variant: variant, version: 0, reader: Layout.ReaderParts(parts: [Layout.jsonStringContent(device.token)] + parts)) { make() }
    }

    /// A live room's page (the lobby, the waiting room) kept by what it shows
    /// (`Layout.keptPage(shown:)`): the group as read this request and the device's choices; the
    /// device's token (part 0) and `parts` (from 1) are this request's own.
    static func roomPage<Shown: Hashable & Sendable>(_ req: Request, device: MenuGameDevice, shown: Shown, parts: [String] = [],
                                                     make: (Shown) -> Layout.PageParts) -> Response {
        let variant = MenuGameDevice.cookieValue(device.disliked) + (device.isOnboarded ? "|onboarded" : "")
        return Layout.keptPage(req, variant: variant, shown: shown,
                               reader: Layout.ReaderParts(parts: [Layout.jsonStringContent(device.token)] + parts), make: make)
    }

    /// The reader's part of a kept menu-game page that holds the device's token.
    static let devicePart = 0

    /// Data for the page's scripts, as a JSON block (not executed, so the CSP allows it).
    static func config(_ req: Request, device: MenuGameDevice, extra: [String: Any] = [:]) -> Node<HTML.BodyContext> {
        var object: [String: Any] = [
            "device": req.rendersKeptPage ? Layout.readerPartMarker(devicePart) : device.token,
            "disliked": device.disliked.map(\.rawValue).sorted(),
            "publicURL": req.application.settings.publicURL,
            // The same for every reader of a language: encoded once.
            "strings": req.application.pageFragments.json("menu_game.strings", language: req.language) { scriptStrings(req) },
            "keywords": req.application.pageFragments.json("menu_game.keywords", language: req.language) { keywordLabels(req) },
        ]
        for (key, value) in extra { object[key] = value }
        return PageConfig.block(req, values: object)
    }

    /// Only the scripts' text, for a page open to everyone that makes no device (a shared menu).
    static func stringsConfig(_ req: Request, extra: [String: Any] = [:]) -> Node<HTML.BodyContext> {
        var values: [String: Any] = [
            "strings": req.application.pageFragments.json("menu_game.strings", language: req.language) { scriptStrings(req) },
        ]
        for (key, value) in extra { values[key] = value }
        return PageConfig.block(req, values: values)
    }

    /// Text the scripts show, in the page's language.
    static let scriptStringKeys = [
        "menu_game.result.next_rank", "menu_game.result.rank", "menu_game.result.players", "menu_game.result.share_text",
        "menu_game.result.copied", "menu_game.together.copied", "menu_game.together.wrong_pin", "menu_game.home.question",
        "menu_game.game.submitting", "menu_game.wait.live", "menu_game.wait.polling", "menu_game.nearby.our_map", "menu_game.result.find_nearby",
        "menu_game.nearby.ours", "menu_game.nearby.call", "menu_game.nearby.unavailable", "menu_game.nearby.map", "menu_game.nearby.here",
        "menu_game.nearby.locating", "menu_game.nearby.denied", "menu_game.nearby.failed", "menu_game.nearby.unsupported",
    ]

    static func scriptStrings(_ req: Request) -> [String: String] {
        Dictionary(uniqueKeysWithValues: (scriptStringKeys + roomStringKeys).map { ($0, req.t($0)) })
    }

    /// The results carry the original app's Korean keywords; pages show them in the reader's language.
    static func keywordLabels(_ req: Request) -> [String: String] {
        var labels: [String: String] = [:]
        for question in Question.yesNo {
            for side in [true, false] {
                guard let keyword = question.keyword(yes: side) else { continue }
                labels[keyword] = req.t("menu_game.keyword.\(question.rawValue).\(side ? "yes" : "no")")
            }
        }
        return labels
    }

    /// Long names get a smaller type size so they wrap instead of being cut (the app's 육회/육회비빔밥 bug).
    static func nameSizeClass(_ name: String) -> String {
        switch name.count {
        case ..<8: return "name-short"
        case ..<14: return "name-medium"
        default: return "name-long"
        }
    }
}
