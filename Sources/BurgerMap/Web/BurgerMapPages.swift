import Accounts
import Foundation
import Platform
import Plot
import Vapor

/// The burger map in the browser (the LookForRealBurger app's screens): the map, feeds, a
/// place's page, a review's page, people's pages and writing a review. The server renders each
/// page's frame and what it is about (the place, the review, the person) from the service; the
/// scripts in `Public/js/burger-map/` load lists from `/api/v1/burger-map` and make the buttons
/// work, as the signed-in browser session (`browserAPIValues`). docs/BURGER_MAP.md describes them.
struct BurgerMapPages: RouteCollection {
    package enum Tab: String, CaseIterable {
        case map, feed, write, me

        package var path: String {
            switch self {
            case .map: return MapPath.map()
            case .feed: return MapPath.feed()
            case .write: return MapPath.write()
            case .me: return MapPath.me()
            }
        }

        package var emoji: String {
            switch self {
            case .map: return "🗺️"
            case .feed: return "📰"
            case .write: return "✍️"
            case .me: return "🙂"
            }
        }
    }

    /// Where the map opens without a search or a position.
    static let defaultCenter = MapLibrary.defaultCenter
    static let defaultZoom = 13
    static let api = "/api/v1/burger-map"

    func boot(routes: any RoutesBuilder) throws {
        routes.get(MapPath.map, use: mapPage)
        routes.get(MapPath.feed, use: feed)
        routes.get(MapPath.place, use: place)
        routes.get(MapPath.review, use: review)
        routes.get(MapPath.user, use: person)
        routes.grouped(SignInRequired()).get(MapPath.me, use: me)
        routes.grouped(SignInRequired()).get(MapPath.write, use: write)
    }

    // MARK: Frame

    /// A burger map page: the shared layout with the map's tab bar, its stylesheets and scripts,
    /// Leaflet when the page has a map, and the config block the scripts read.
    /// `postcodeSearch`: the page asks for an address (`PostcodeSearch`: its policy and script).
    /// A map page kept whole (`Layout.keptPage`): `make` runs only when it is not kept; `parts` are
    /// the reader's own (`Layout.readerPart`). A page of the map's content passes its version,
    /// `req.application.burgerMapCache.generation` read before what the page shows, and is kept
    /// for at most the API cache's lifetime, as the API's answers are.
    func kept(
        _ req: Request, content version: Int?, variant: String = "", parts: [String] = [], make: () throws -> Layout.PageParts
    ) async throws -> Response {
        let api = try await req.browserAPIViewer()
        return try Layout.keptPage(req, variant: variant, version: version ?? 0,
                                   lifetime: version == nil ? nil : req.application.burgerMapCache.lifetime,
                                   reader: Layout.ReaderParts(api: api, parts: parts), make: make)
    }

    /// What `kept` makes a map page of.
    func parts(
        _ req: Request, title: String, tab: Tab?, script: String, stylesheets: [String] = [], withMap: Bool = false,
        postcodeSearch: Bool = false, config: [String: Any] = [:], preview: LinkPreview? = nil, main: Node<HTML.BodyContext>
    ) -> Layout.PageParts {
        let library = req.application.mapLibrary
        var extras = PageExtras(
            stylesheets: ["/css/shared/services.css", "/css/burger-map.css"] + stylesheets,
            scripts: ["/js/burger-map/\(script).js"] + (postcodeSearch ? [PostcodeSearch.script] : []),
            vendorStylesheets: withMap ? library.stylesheets : [], vendorScripts: withMap ? library.scripts : [],
            bodyClass: "burger-map with-tabs", bottomBar: tabBar(req, current: tab), preview: preview
        )
        if withMap { extras.policy.insert(.map) }
        if postcodeSearch { extras.usePostcodeSearch(req) }
        return Layout.PageParts(title: title, extras: extras, script: ("burger_map.js.", config), main: main)
    }

    func tabBar(_ req: Request, current: Tab?) -> Node<HTML.BodyContext> {
        TabBar.render(label: req.t("burger_map.tabs"), classes: "map-tabs", items: Tab.allCases.map { tab in
            TabBar.Item(path: tab.path, emoji: tab.emoji, label: req.t("burger_map.tab.\(tab.rawValue)"), isCurrent: tab == current)
        })
    }

    /// Encodes an API answer for the config block, so scripts start from what the page shows.
    func json(_ value: some Encodable) throws -> PageConfig.Encoded {
        try PageConfig.Encoded(value)
    }

    /// A link to log in that comes back here: what a signed-out visitor gets instead of a button.
    func loginLink(_ req: Request, id: String, classes: String, label: String) -> Node<HTML.BodyContext> {
        let back = req.url.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "/-"))) ?? MapPath.map()
        return .a(.id(id), .class(classes), .href(AccountPath.logIn() + "?next=\(back)"), .text(label))
    }

    // MARK: The map

    func mapPage(req: Request) async throws -> Response {
        // The same for every reader: kept per address (its query) and language.
        try await kept(req, content: nil) {
            let query = String((req.query[String.self, at: "q"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(40))
            let library = req.application.mapLibrary
            let mapConfig = library.configValue(center: Self.defaultCenter, zoom: Self.defaultZoom, extra: ["q": query])
            return parts(
                req, title: req.t("burger_map.title"), tab: .map, script: "map", stylesheets: ["/css/shared/map-stage.css", "/css/burger-map-map.css"],
                withMap: true, config: ["map": mapConfig],
                main: .group(
                    .h1(.class("visually-hidden"), .text(req.t("burger_map.title"))),
                    .form(
                        .id("map-search"), .class("map-search"), .action(MapPath.map()), .method(.get), .attribute(named: "role", value: "search"),
                        .label(.for("map-q"), .class("visually-hidden"), .text(req.t("burger_map.search.label"))),
                        .input(.type(.search), .id("map-q"), .name("q"), .value(query),
                               .placeholder(req.t("burger_map.search.placeholder")), .attribute(named: "maxlength", value: "40"),
                               .attribute(named: "enterkeyhint", value: "search")),
                        .button(.type(.submit), .class("button small"), .text(req.t("burger_map.search.submit")))
                    ),
                    query.isEmpty ? .empty : .p(.class("search-term"), .text(req.t("burger_map.searching", ["query": query]))),
                    .div(
                        .class("map-stage"),
                        .div(.id("map"), .class("map-canvas"), .ariaLabel(req.t("burger_map.map.label"))),
                        .div(
                            .class("map-controls"),
                            .button(.type(.button), .id("locate"), .class("map-control"), .text(req.t("burger_map.map.locate"))),
                            .button(.type(.button), .id("view-toggle"), .class("map-control"), .text(req.t("burger_map.map.show_list")))
                        )
                    ),
                    .p(.id("map-status"), .class("map-status"), .role("status")),
                    .ol(.id("place-list"), .class("place-list"), .attribute(named: "aria-label", value: req.t("burger_map.map.list_label"))),
                    .section(
                        .id("place-sheet"), .class("bottom-sheet"), .attribute(named: "hidden", value: "hidden"),
                        .ariaLabel(req.t("burger_map.map.sheet_label")),
                        .button(.type(.button), .id("sheet-close"), .class("sheet-close"), .ariaLabel(req.t("burger_map.map.close")), .text("×")),
                        .div(.id("sheet-body"))
                    ),
                    .a(.id("write-fab"), .class("fab"), .href(Tab.write.path), .ariaLabel(req.t("burger_map.tab.write")),
                       .span(.ariaHidden(true), .text("✍️")))
                )
            )
        }
    }

    // MARK: Feeds

    func feed(req: Request) async throws -> Response {
        // The lists load from the API; the page is the same for every reader signed in alike.
        try await kept(req, content: nil) { feedParts(req) }
    }

    private func feedParts(_ req: Request) -> Layout.PageParts {
        let following = req.query[String.self, at: "tab"] == "following"
        let signedIn = req.auth.has(User.self)
        let list: Node<HTML.BodyContext>
        if following && !signedIn {
            list = .div(
                .class("card empty-state"),
                .p(.text(req.t("burger_map.feed.login_to_follow"))),
                loginLink(req, id: "feed-login", classes: "button primary", label: req.t("nav.login"))
            )
        } else {
            list = .group(
                .ol(.id("feed-list"), .class("review-list"), .data(named: "source", value: following ? "\(Self.api)/feed" : "\(Self.api)/reviews")),
                .div(.id("feed-more"), .class("scroll-sentinel")),
                .p(.id("feed-empty"), .class("empty-note muted"), .attribute(named: "hidden", value: "hidden"),
                   .text(req.t(following ? "burger_map.feed.empty_following" : "burger_map.feed.empty")))
            )
        }
        return parts(
            req, title: req.t("burger_map.feed.title"), tab: .feed, script: "feed", stylesheets: ["/css/burger-map-review.css"],
            main: .group(
                .div(
                    .class("feed-heading"),
                    .h1(.text(req.t("burger_map.feed.title"))),
                    .button(.type(.button), .id("feed-refresh"), .class("button small"), .text(req.t("burger_map.feed.refresh")))
                ),
                .nav(
                    .class("feed-tabs"), .ariaLabel(req.t("burger_map.feed.tabs")),
                    .a(.id("tab-everyone"), .href(MapPath.feed()), following ? .empty : .ariaCurrent(), .text(req.t("burger_map.feed.everyone"))),
                    .a(.id("tab-following"), .href(MapPath.feed() + "?tab=following"), following ? .ariaCurrent() : .empty,
                       .text(req.t("burger_map.feed.following")))
                ),
                list
            )
        )
    }

    // MARK: A place

    func place(req: Request) async throws -> Response {
        // The version before the read: a change landing between them makes the next reader's page again.
        let version = req.application.burgerMapCache.generation
        let detail = PlaceDetailResponse(try await req.burgerMap.placeDetail(try req.placeID(), viewer: req.auth.get(User.self)?.id))
        let signedIn = req.auth.has(User.self)
        // The reader's own: whether each toggle is pressed, and their marks in the script's config.
        let mine = signedIn
            ? [String(detail.myMarks.contains("eaten")), String(detail.myMarks.contains("want")),
               "[" + detail.myMarks.map { "\"\($0)\"" }.joined(separator: ",") + "]"]
            : []
        return try await kept(req, content: version, parts: mine) {
            try placeParts(req, detail, signedIn: signedIn)
        }
    }

    private func placeParts(_ req: Request, _ detail: PlaceDetailResponse, signedIn: Bool) throws -> Layout.PageParts {
        let id = detail.id.uuidString.lowercased()
        func markToggle(_ kind: String, count: Int, pressedPart: Int) -> Node<HTML.BodyContext> {
            let label = req.t("burger_map.place.mark_\(kind)")
            guard signedIn else {
                return .a(.id("mark-\(kind)"), .class("mark-toggle"), .href(AccountPath.logIn() + "?next=" + MapPath.place(detail.id)),
                          .span(.class("mark-label"), .text(label)), .span(.class("count"), .text(String(count))))
            }
            return .button(.type(.button), .id("mark-\(kind)"), .class("mark-toggle"), .data(named: "kind", value: kind),
                           .attribute(named: "aria-pressed", value: Layout.readerPartMarker(pressedPart)),
                           .span(.class("mark-label"), .text(label)), .span(.class("count"), .text(String(count))))
        }
        let library = req.application.mapLibrary
        // "★ 4.3 · 리뷰 12개 · 서울 마포구 …" under the name where the link is pasted.
        let previewParts = [detail.averageRating.map { "★ " + String(format: "%.1f", $0) + " · " + req.t("burger_map.place.review_count", ["count": String(detail.reviewCount)]) },
                            detail.address.isEmpty ? nil : detail.address].compactMap { $0 }
        let previewLine = previewParts.isEmpty ? nil : previewParts.joined(separator: " · ")
        let placeJSON = try json(detail)
        return parts(
            req, title: detail.name, tab: nil, script: "place", stylesheets: ["/css/burger-map-review.css"], withMap: true,
            config: ["place": signedIn ? placeJSON.withReaderPart(2, asField: "myMarks") : placeJSON,
                     "map": library.configValue(center: (detail.lat, detail.lon), zoom: 16)],
            preview: LinkPreview(
                title: "🍔 " + detail.name,
                description: previewLine,
                image: detail.photoURL.flatMap(BurgerMapImages.rasterURL(ofPhotoURL:))),
            main: .group(
                .section(
                    .class("place-summary card"),
                    detail.photoURL.map { .img(.class("place-cover"), .src($0), .alt("")) } ?? .empty,
                    .h1(.id("place-name"), .text(detail.name)),
                    .p(.id("place-address"), .class("muted"), .text(detail.address.isEmpty ? req.t("burger_map.place.address_unknown") : detail.address)),
                    detail.phone.map { .p(.class("place-phone"), .a(.href("tel:\($0)"), .text($0))) } ?? .empty,
                    detail.verified ? .empty : .p(.id("place-unverified"), .class("caution"), .text(req.t("burger_map.place.unverified"))),
                    .p(.class("place-rating"), ratingLine(req, average: detail.averageRating, count: detail.reviewCount)),
                    .div(.class("mark-toggles"), markToggle("eaten", count: detail.eatenCount, pressedPart: 0),
                         markToggle("want", count: detail.wantCount, pressedPart: 1)),
                    .a(.id("write-here"), .class("button primary wide"), .href(MapPath.write() + "?place=\(id)"), .text(req.t("burger_map.place.write_here"))),
                    .div(.class("place-actions"),
                         .a(.id("place-directions"), .class("button"), .href(Self.directionsURL(name: detail.name, lat: detail.lat, lon: detail.lon)),
                            .attribute(named: "rel", value: "noopener"), .text("🧭 " + req.t("burger_map.place.directions"))),
                         ShareButton.node(req, path: MapPath.place(detail.id), title: detail.name, text: "🍔 " + detail.name))
                ),
                .div(.id("place-map"), .class("place-map"), .data(named: "lat", value: String(detail.lat)), .data(named: "lon", value: String(detail.lon)),
                     .ariaLabel(req.t("burger_map.map.label"))),
                .h2(.text(req.t("burger_map.place.reviews"))),
                .ol(.id("place-reviews"), .class("review-list"), .data(named: "source", value: "\(Self.api)/places/\(id)/reviews")),
                .div(.id("place-reviews-more"), .class("scroll-sentinel")),
                .p(.id("place-reviews-empty"), .class("empty-note muted"), .attribute(named: "hidden", value: "hidden"),
                   .text(req.t("burger_map.place.no_reviews")))
            )
        )
    }

    /// 카카오맵's directions to a place (its `link/to` address: the name, then the point; a comma
    /// in the name would end it), which opens the app on a phone that has it.
    static func directionsURL(name: String, lat: Double, lon: Double) -> String {
        let label = name.replacingOccurrences(of: ",", with: " ")
            .addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/", ",", "?", "#"])) ?? ""
        return "https://map.kakao.com/link/to/\(label),\(lat),\(lon)"
    }

    /// "★★★★☆ 4.3 · 리뷰 12개", or "no reviews yet".
    func ratingLine(_ req: Request, average: Double?, count: Int) -> Node<HTML.BodyContext> {
        guard let average else { return .span(.class("muted"), .text(req.t("burger_map.place.no_rating"))) }
        let formatted = String(format: "%.1f", average)
        return .group(
            stars(req, Int(average.rounded())),
            .span(.class("rating-value"), .text(formatted)),
            .span(.class("muted"), .text(" · " + req.t("burger_map.place.review_count", ["count": String(count)])))
        )
    }

    func stars(_ req: Request, _ rating: Int) -> Node<HTML.BodyContext> {
        let filled = max(0, min(5, rating))
        return .span(.class("stars"), .role("img"), .ariaLabel(req.t("burger_map.stars", ["rating": String(filled)])),
                     .text(String(repeating: "★", count: filled) + String(repeating: "☆", count: 5 - filled)))
    }
}
