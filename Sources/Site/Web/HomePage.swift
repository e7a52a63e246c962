package import Platform
package import Plot
package import Vapor

/// `/`: a card for each feature that is a service (`Feature.homeCard`). A card links to its
/// service once that service's pages are served.
package struct HomePage: RouteCollection {
    package let cards: [HomeCard]

    package init(cards: [HomeCard]) {
        self.cards = cards.sorted { $0.position < $1.position }
    }

    /// Registers the collection and keeps the cards where the welcome finds them.
    package static func register(_ cards: [HomeCard], on routes: any RoutesBuilder, app: Application) throws {
        app.homeCards = cards
        try routes.register(collection: HomePage(cards: cards))
    }

    package func boot(routes: any RoutesBuilder) throws {
        routes.get(use: home)
    }

    /// The hero and the cards are the same for everyone in a language (the cards are fixed at
    /// start): rendered once per language and kept.
    package func home(req: Request) async throws -> Response {
        let notice = req.query[String.self, at: "notice"] == "withdrawn" ? req.t("home.withdrawn") : nil
        let fragments = req.application.pageFragments
        return Layout.page(
            req, title: req.t("home.title"),
            extras: PageExtras(preview: LinkPreview(title: "\(req.t("app.name")) — \(req.t("home.headline"))", description: req.t("home.lead"), path: "/")),
            main: .group(
                fragments.node("home.hero", language: req.language, version: 0) {
                    Node<HTML.BodyContext>.section(
                        .class("hero"),
                        .h1(.text(req.t("home.headline"))),
                        .p(.class("lead"), .text(req.t("home.lead")))
                    )
                },
                notice.map { .p(.class("notice"), .role("status"), .text($0)) } ?? .empty,
                fragments.node("home.cards", language: req.language, version: 0) { cardList(req) }
            )
        )
    }

    private func cardList(_ req: Request) -> Node<HTML.BodyContext> {
        .ul(
            .class("service-grid"),
            .forEach(cards) { service in
                let name = req.t("service.\(service.key).name")
                // The heading's link covers the whole card (see .service-card a::after in app.css).
                return .li(
                    .class(service.path == nil ? "service-card soon" : "service-card"),
                    .span(.class("service-emoji"), .attribute(named: "aria-hidden", value: "true"), .text(service.emoji)),
                    .h2(service.path.map { .a(.href($0), .text(name)) } ?? .text(name)),
                    .p(.text(req.t("service.\(service.key).summary"))),
                    service.path == nil ? .span(.class("badge muted"), .text(req.t("home.coming_soon"))) : .empty
                )
            }
        )
    }
}
