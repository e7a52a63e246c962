import Plot
import Vapor

/// `/map`: where the menu game's "find restaurants nearby" lands. Until the burger map is
/// served it is an empty state that keeps the search the visitor came with.
struct BurgerMapPages: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.get("map", use: map)
    }

    func map(req: Request) async throws -> Response {
        let query = (req.query[String.self, at: "q"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(40)
        return Layout.page(
            req, title: req.t("burger_map.title"),
            main: .section(
                .class("card empty-state"),
                .span(.class("intro-emoji"), .ariaHidden(true), .text("🗺️")),
                .h1(.text(req.t("burger_map.title"))),
                query.isEmpty ? .empty : .p(.class("search-term"), .text(req.t("burger_map.searching", ["query": String(query)]))),
                .p(.class("lead"), .text(req.t("burger_map.empty"))),
                .a(.class("button"), .href(PlayPath.home), .text(req.t("burger_map.back")))
            )
        )
    }
}
