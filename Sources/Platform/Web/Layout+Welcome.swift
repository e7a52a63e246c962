package import Plot
package import Vapor

extension Layout {
    /// The welcome a new account sees once, on the page where it signed up (`?welcome=1`, which
    /// `Layout.page` puts above that page's own content): the services, each a link.
    package static func welcome(_ req: Request) -> Node<HTML.BodyContext> {
        let cards = req.application.homeCards.filter { $0.path != nil }.sorted { $0.position < $1.position }
        return .section(
            .class("card welcome"), .id("welcome"), .role("status"),
            .h2(.text(req.t("welcome.title", ["nickname": req.storage[WebViewerKey.self]?.nickname ?? ""]))),
            .p(.text(req.t("welcome.lead"))),
            .ul(.class("welcome-services"), .forEach(cards) { card in
                .li(.a(.href(card.path ?? "/"), .span(.ariaHidden(true), .text(card.emoji + " ")), .text(req.t("service.\(card.key).name"))))
            })
        )
    }
}

extension Application {
    private struct HomeCardsKey: StorageKey { typealias Value = [HomeCard] }

    /// The services' cards (`Feature.homeCard`), as the home page lists them.
    package var homeCards: [HomeCard] {
        get { storage[HomeCardsKey.self] ?? [] }
        set { storage[HomeCardsKey.self] = newValue }
    }
}
