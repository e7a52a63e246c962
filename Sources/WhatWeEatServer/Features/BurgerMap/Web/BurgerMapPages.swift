import Foundation
import Plot
import Vapor

/// The burger map in the browser (the LookForRealBurger app's screens): the map, feeds, a
/// place's page, a review's page, people's pages and writing a review. The server renders each
/// page's frame and what it is about (the place, the review, the person) from the service; the
/// scripts in `Public/js/burger-map/` load lists from `/api/v1/burger-map` and make the buttons
/// work, as the signed-in browser session (`browserAPIValues`). docs/BURGER_MAP.md describes them.
struct BurgerMapPages: RouteCollection {
    enum Tab: String, CaseIterable {
        case map, feed, write, me

        var path: String {
            switch self {
            case .map: return "/map"
            case .feed: return "/map/feed"
            case .write: return "/map/write"
            case .me: return "/map/me"
            }
        }

        var emoji: String {
            switch self {
            case .map: return "🗺️"
            case .feed: return "📰"
            case .write: return "✍️"
            case .me: return "🙂"
            }
        }
    }

    /// Where the map opens without a search or a position: Seoul City Hall.
    static let defaultCenter = (lat: 37.5665, lon: 126.9780)
    static let defaultZoom = 13
    static let api = "/api/v1/burger-map"

    func boot(routes: any RoutesBuilder) throws {
        let map = routes.grouped("map")
        map.get(use: mapPage)
        map.get("feed", use: feed)
        map.get("places", ":place", use: place)
        map.get("reviews", ":review", use: review)
        map.get("users", ":user", use: person)
        map.grouped(SignInRequired()).get("me", use: me)
        map.grouped(SignInRequired()).get("write", use: write)
    }

    // MARK: Frame

    /// A burger map page: the shared layout with the map's tab bar, its stylesheets and scripts,
    /// Leaflet when the page has a map, and the config block the scripts read.
    func page(
        _ req: Request, title: String, tab: Tab?, script: String, stylesheets: [String] = [], withMap: Bool = false,
        config: [String: Any] = [:], main: Node<HTML.BodyContext>
    ) async throws -> Response {
        let library = req.application.mapLibrary
        var values = try await req.browserAPIValues()
        for (key, value) in config { values[key] = value }
        return Layout.page(
            req, title: title,
            extras: PageExtras(
                stylesheets: ["/css/burger-map.css"] + stylesheets, scripts: ["/js/burger-map/\(script).js"],
                vendorStylesheets: withMap ? library.stylesheets : [], vendorScripts: withMap ? library.scripts : [],
                bodyClass: "burger-map with-tabs", bottomBar: tabBar(req, current: tab)
            ),
            main: .group(
                main,
                .p(.class("page-status"), .id("page-status"), .role("status")),
                PageConfig.block(req, stringPrefixes: ["burger_map.js."], values: values)
            )
        )
    }

    func tabBar(_ req: Request, current: Tab?) -> Node<HTML.BodyContext> {
        .nav(
            .class("tab-bar map-tabs"), .ariaLabel(req.t("burger_map.tabs")),
            .forEach(Tab.allCases) { tab in
                .a(
                    .href(tab.path), tab == current ? .ariaCurrent() : .empty,
                    .span(.class("tab-icon"), .ariaHidden(true), .text(tab.emoji)),
                    .span(.class("tab-label"), .text(req.t("burger_map.tab.\(tab.rawValue)")))
                )
            }
        )
    }

    /// Encodes an API answer for the config block, so scripts start from what the page shows.
    func json(_ value: some Encodable) throws -> PageConfig.Encoded {
        try PageConfig.Encoded(value)
    }

    /// A link to log in that comes back here: what a signed-out visitor gets instead of a button.
    func loginLink(_ req: Request, id: String, classes: String, label: String) -> Node<HTML.BodyContext> {
        let back = req.url.path.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "/-"))) ?? "/map"
        return .a(.id(id), .class(classes), .href("/login?next=\(back)"), .text(label))
    }

    // MARK: The map

    func mapPage(req: Request) async throws -> Response {
        let query = String((req.query[String.self, at: "q"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(40))
        let library = req.application.mapLibrary
        let mapConfig = library.configValue(center: Self.defaultCenter, zoom: Self.defaultZoom, extra: ["q": query])
        return try await page(
            req, title: req.t("burger_map.title"), tab: .map, script: "map", stylesheets: ["/css/burger-map-map.css"],
            withMap: true, config: ["map": mapConfig],
            main: .group(
                .h1(.class("visually-hidden"), .text(req.t("burger_map.title"))),
                .form(
                    .id("map-search"), .class("map-search"), .action("/map"), .method(.get), .attribute(named: "role", value: "search"),
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

    // MARK: Feeds

    func feed(req: Request) async throws -> Response {
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
        return try await page(
            req, title: req.t("burger_map.feed.title"), tab: .feed, script: "feed", stylesheets: ["/css/burger-map-review.css"],
            main: .group(
                .div(
                    .class("feed-heading"),
                    .h1(.text(req.t("burger_map.feed.title"))),
                    .button(.type(.button), .id("feed-refresh"), .class("button small"), .text(req.t("burger_map.feed.refresh")))
                ),
                .nav(
                    .class("feed-tabs"), .ariaLabel(req.t("burger_map.feed.tabs")),
                    .a(.id("tab-everyone"), .href("/map/feed"), following ? .empty : .ariaCurrent(), .text(req.t("burger_map.feed.everyone"))),
                    .a(.id("tab-following"), .href("/map/feed?tab=following"), following ? .ariaCurrent() : .empty,
                       .text(req.t("burger_map.feed.following")))
                ),
                list
            )
        )
    }

    // MARK: A place

    func place(req: Request) async throws -> Response {
        let detail = PlaceDetailResponse(try await req.burgerMap.placeDetail(try req.placeID(), viewer: req.auth.get(User.self)?.id))
        let id = detail.id.uuidString.lowercased()
        let signedIn = req.auth.has(User.self)
        func markToggle(_ kind: String, count: Int) -> Node<HTML.BodyContext> {
            let label = req.t("burger_map.place.mark_\(kind)")
            guard signedIn else {
                return .a(.id("mark-\(kind)"), .class("mark-toggle"), .href("/login?next=\(BurgerMapLinks.place(detail.id))"),
                          .span(.class("mark-label"), .text(label)), .span(.class("count"), .text(String(count))))
            }
            return .button(.type(.button), .id("mark-\(kind)"), .class("mark-toggle"), .data(named: "kind", value: kind),
                           .ariaPressed(detail.myMarks.contains(kind)),
                           .span(.class("mark-label"), .text(label)), .span(.class("count"), .text(String(count))))
        }
        let library = req.application.mapLibrary
        return try await page(
            req, title: detail.name, tab: nil, script: "place", stylesheets: ["/css/burger-map-review.css"], withMap: true,
            config: ["place": try json(detail),
                     "map": library.configValue(center: (detail.lat, detail.lon), zoom: 16)],
            main: .group(
                .section(
                    .class("place-summary card"),
                    detail.photoURL.map { .img(.class("place-cover"), .src($0), .alt("")) } ?? .empty,
                    .h1(.id("place-name"), .text(detail.name)),
                    .p(.id("place-address"), .class("muted"), .text(detail.address)),
                    detail.phone.map { .p(.class("place-phone"), .a(.href("tel:\($0)"), .text($0))) } ?? .empty,
                    .p(.class("place-rating"), ratingLine(req, average: detail.averageRating, count: detail.reviewCount)),
                    .div(.class("mark-toggles"), markToggle("eaten", count: detail.eatenCount), markToggle("want", count: detail.wantCount)),
                    .a(.id("write-here"), .class("button primary wide"), .href("/map/write?place=\(id)"), .text(req.t("burger_map.place.write_here")))
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

    // MARK: A review

    func review(req: Request) async throws -> Response {
        let actor = req.mapActor()
        let review = ReviewResponse(try await req.burgerMap.review(try req.reviewID(), viewer: actor), files: req.application.files)
        return try await page(
            req, title: review.title, tab: nil, script: "review", stylesheets: ["/css/burger-map-review.css"],
            config: ["review": try json(review)],
            main: .article(
                .id("review"), .class("review-page"), .data(named: "id", value: review.id.uuidString.lowercased()),
                review.hidden ? .p(.class("notice"), .role("status"), .text(req.t("burger_map.review.hidden_notice"))) : .empty,
                photoPager(req, review),
                reviewBody(req, review, actor: actor),
                reportDialog(req),
                comments(req, review, signedIn: actor != nil)
            )
        )
    }

    func photoPager(_ req: Request, _ review: ReviewResponse) -> Node<HTML.BodyContext> {
        let photos: Node<HTML.BodyContext> = .ul(
            .id("review-photos"), .class("photo-pager"), .attribute(named: "tabindex", value: "0"),
            .attribute(named: "aria-label", value: req.t("burger_map.review.photos", ["count": String(review.photos.count)])),
            .forEach(review.photos.enumerated()) { index, photo in
                .li(.img(.src(photo.url), .alt(req.t("burger_map.review.photo_alt", ["number": String(index + 1), "title": review.title])),
                         .attribute(named: "width", value: String(photo.width)), .attribute(named: "height", value: String(photo.height))))
            }
        )
        guard review.photos.count > 1 else { return photos }
        let dots: Node<HTML.BodyContext> = .ol(
            .class("photo-dots"), .attribute(named: "aria-hidden", value: "true"),
            .forEach(review.photos.indices) { index in .li(index == 0 ? .class("current") : .empty) }
        )
        return .group(photos, dots)
    }

    /// Like or bookmark: a toggle with its count, or a login link for a visitor.
    func reaction(_ req: Request, _ review: ReviewResponse, _ kind: String, pressed: Bool, count: Int, emoji: String, signedIn: Bool) -> Node<HTML.BodyContext> {
        let label = req.t("burger_map.review.\(kind)")
        guard signedIn else {
            return .a(.id("\(kind)-button"), .class("reaction"), .href("/login?next=\(BurgerMapLinks.review(review.id))"),
                      .span(.ariaHidden(true), .text(emoji)), .span(.class("reaction-label"), .text(label)), .span(.class("count"), .text(String(count))))
        }
        return .button(.type(.button), .id("\(kind)-button"), .class("reaction"), .ariaPressed(pressed),
                       .span(.ariaHidden(true), .text(emoji)), .span(.class("reaction-label"), .text(label)), .span(.class("count"), .text(String(count))))
    }

    func reviewBody(_ req: Request, _ review: ReviewResponse, actor: MapActor?) -> Node<HTML.BodyContext> {
        let mine = actor?.id == review.author.id
        let avatar: Node<HTML.AnchorContext> = review.author.profileImageURL.map { .img(.class("avatar small"), .src($0), .alt("")) }
            ?? .span(.class("avatar small placeholder"), .ariaHidden(true), .text(String(review.author.nickname.prefix(1))))
        let author: Node<HTML.BodyContext> = .a(
            .id("review-author"), .class("review-author"), .href(BurgerMapLinks.user(review.author.id)), avatar, .text(review.author.nickname)
        )
        let time: Node<HTML.BodyContext> = .element(named: "time", nodes: [
            .datetime(ISO8601DateFormatter().string(from: review.createdAt)),
            .text(NotificationsPages.dateFormatter(req).string(from: review.createdAt)),
        ])
        let report: Node<HTML.BodyContext> = actor != nil && !mine
            ? .button(.type(.button), .id("report-button"), .class("link-button"), .text(req.t("burger_map.review.report"))) : .empty
        let delete: Node<HTML.BodyContext> = mine || actor?.isAdmin == true
            ? .button(.type(.button), .id("delete-review"), .class("link-button danger"), .text(req.t("burger_map.review.delete"))) : .empty
        return .div(
            .class("review-body"),
            .a(.id("review-place"), .class("review-place"), .href(BurgerMapLinks.place(review.place.id)), .text("📍 " + review.place.name)),
            .h1(.id("review-title"), .text(review.title)),
            .p(.class("review-stars"), stars(req, review.rating)),
            .p(.id("review-text"), .class("review-text"), .text(review.text)),
            .p(.class("review-meta"), author, time),
            .div(
                .class("reactions"),
                reaction(req, review, "like", pressed: review.likedByMe, count: review.likeCount, emoji: "❤️", signedIn: actor != nil),
                reaction(req, review, "bookmark", pressed: review.bookmarkedByMe, count: review.bookmarkCount, emoji: "🔖", signedIn: actor != nil),
                report, delete
            )
        )
    }

    func comments(_ req: Request, _ review: ReviewResponse, signedIn: Bool) -> Node<HTML.BodyContext> {
        let id = review.id.uuidString.lowercased()
        let form: Node<HTML.BodyContext> = signedIn
            ? .form(
                .id("comment-form"), .class("comment-form"), .attribute(named: "novalidate", value: "novalidate"),
                .label(.for("comment-text"), .class("visually-hidden"), .text(req.t("burger_map.review.comment_label"))),
                .textarea(.id("comment-text"), .name("text"), .attribute(named: "maxlength", value: "500"), .attribute(named: "rows", value: "2"),
                          .placeholder(req.t("burger_map.review.comment_placeholder")), .attribute(named: "aria-describedby", value: "comment-error")),
                .div(
                    .class("comment-actions"),
                    .span(.id("comment-counter"), .class("counter muted"), .text("0 / 500")),
                    .button(.type(.submit), .class("button small"), .text(req.t("burger_map.review.comment_submit")))
                ),
                .p(.id("comment-error"), .class("field-error"), .role("alert"))
            )
            : .p(loginLink(req, id: "comment-login", classes: "button wide", label: req.t("burger_map.review.login_to_comment")))
        return .section(
            .class("comments"), .ariaLabelledBy("comments-heading"),
            .h2(.id("comments-heading"), .text(req.t("burger_map.review.comments", ["count": String(review.commentCount)]))),
            form,
            .ol(.id("comments"), .class("comment-list"), .data(named: "source", value: "\(Self.api)/reviews/\(id)/comments")),
            .div(.id("comments-more"), .class("scroll-sentinel"))
        )
    }

    func reportDialog(_ req: Request) -> Node<HTML.BodyContext> {
        .element(named: "dialog", nodes: [
            .id("report-dialog"), .class("report-dialog"), .ariaLabelledBy("report-heading"),
            .form(
                .id("report-form"), .attribute(named: "method", value: "dialog"), .class("stack"),
                .h2(.id("report-heading"), .text(req.t("burger_map.review.report_title"))),
                .label(.for("report-reason"), .text(req.t("burger_map.review.report_reason"))),
                .textarea(.id("report-reason"), .name("reason"), .attribute(named: "maxlength", value: "500"), .attribute(named: "rows", value: "3")),
                .p(.id("report-error"), .class("field-error"), .role("alert")),
                .div(
                    .class("dialog-actions"),
                    .button(.type(.button), .id("report-cancel"), .class("button"), .text(req.t("burger_map.review.cancel"))),
                    .button(.type(.submit), .id("report-submit"), .class("button primary"), .text(req.t("burger_map.review.report_submit")))
                )
            ),
        ])
    }

    // MARK: People

    enum ProfileTab: String, CaseIterable {
        case reviews, followers, following, likes, bookmarks, eaten, want

        /// The lists only the person themselves sees.
        var isPrivate: Bool { ![.reviews, .followers, .following].contains(self) }

        var kind: String {
            switch self {
            case .reviews, .likes, .bookmarks: return "reviews"
            case .followers, .following: return "people"
            case .eaten, .want: return "places"
            }
        }

        func source(user id: String) -> String {
            let api = BurgerMapPages.api
            switch self {
            case .reviews, .followers, .following: return "\(api)/users/\(id)/\(rawValue)"
            case .likes, .bookmarks: return "\(api)/me/\(rawValue)"
            case .eaten, .want: return "\(api)/me/marks?kind=\(rawValue)"
            }
        }
    }

    func me(req: Request) async throws -> Response {
        Layout.redirect(to: BurgerMapLinks.user(try req.requireUser().requireID()))
    }

    func person(req: Request) async throws -> Response {
        let viewer = req.auth.get(User.self)?.id
        let profile = MapProfileResponse(try await req.burgerMap.profile(of: try req.userIDParameter(), viewer: viewer), files: req.application.files)
        let id = profile.id.uuidString.lowercased()
        let isMe = viewer == profile.id
        let tabs = ProfileTab.allCases.filter { isMe || !$0.isPrivate }
        let requested = req.query[String.self, at: "tab"].flatMap(ProfileTab.init(rawValue:))
        let tab = requested.flatMap { tabs.contains($0) ? $0 : nil } ?? .reviews
        func count(_ id: String, _ key: String, _ value: Int, tab: ProfileTab?) -> Node<HTML.BodyContext> {
            let label = req.t("burger_map.profile.\(key)")
            guard let tab else { return .div(.class("profile-count"), .strong(.id(id), .text(String(value))), .span(.text(label))) }
            return .a(.class("profile-count"), .href("\(BurgerMapLinks.user(profile.id))?tab=\(tab.rawValue)"),
                      .strong(.id(id), .text(String(value))), .span(.text(label)))
        }
        let followButton: Node<HTML.BodyContext>
        if isMe {
            followButton = .a(.id("edit-profile"), .class("button"), .href("/me"), .text(req.t("burger_map.profile.edit")))
        } else if viewer == nil {
            followButton = loginLink(req, id: "follow-button", classes: "button primary", label: req.t("burger_map.profile.follow"))
        } else {
            followButton = .button(
                .type(.button), .id("follow-button"), .class(profile.followedByMe ? "button" : "button primary"), .ariaPressed(profile.followedByMe),
                .text(req.t(profile.followedByMe ? "burger_map.profile.unfollow" : "burger_map.profile.follow"))
            )
        }
        return try await page(
            req, title: profile.nickname, tab: isMe ? .me : nil, script: "profile", stylesheets: ["/css/burger-map-review.css"],
            config: ["profile": try json(profile), "tab": tab.rawValue],
            main: .group(
                .section(
                    .class("profile-header card"),
                    profile.profileImageURL.map { .img(.class("avatar large"), .src($0), .alt("")) }
                        ?? .span(.class("avatar large placeholder"), .ariaHidden(true), .text(String(profile.nickname.prefix(1)))),
                    .h1(.id("profile-name"), .text(profile.nickname)),
                    .div(
                        .class("profile-counts"),
                        count("review-count", "reviews", profile.reviewCount, tab: .reviews),
                        count("follower-count", "followers", profile.followerCount, tab: .followers),
                        count("following-count", "following", profile.followingCount, tab: .following),
                        count("eaten-count", "eaten", profile.eatenCount, tab: isMe ? .eaten : nil)
                    ),
                    followButton
                ),
                .nav(
                    .class("profile-tabs"), .ariaLabel(req.t("burger_map.profile.tabs")),
                    .forEach(tabs) { item in
                        .a(.href("\(BurgerMapLinks.user(profile.id))?tab=\(item.rawValue)"), .data(named: "tab", value: item.rawValue),
                           item == tab ? .ariaCurrent() : .empty, .text(req.t("burger_map.profile.tab.\(item.rawValue)")))
                    }
                ),
                .ol(.id("profile-list"), .class(tab.kind == "reviews" ? "review-list" : "row-list"),
                    .data(named: "source", value: tab.source(user: id)), .data(named: "kind", value: tab.kind)),
                .div(.id("profile-more"), .class("scroll-sentinel")),
                .p(.id("profile-empty"), .class("empty-note muted"), .attribute(named: "hidden", value: "hidden"),
                   .text(req.t("burger_map.profile.empty.\(tab.rawValue)")))
            )
        )
    }

    // MARK: Writing a review

    func write(req: Request) async throws -> Response {
        // `?place=` (from a place's page) starts with that place chosen; anything else is ignored.
        var chosen: PlaceDetailResponse?
        if let raw = req.query[String.self, at: "place"], let id = UUID(uuidString: raw) {
            chosen = try? PlaceDetailResponse(await req.burgerMap.placeDetail(id, viewer: nil))
        }
        let library = req.application.mapLibrary
        let center = chosen.map { (lat: $0.lat, lon: $0.lon) } ?? Self.defaultCenter
        // Built as plain elements: Plot's form context has no fieldsets.
        let form: Node<HTML.BodyContext> = .element(named: "form", nodes: [
            .id("review-form"), .class("review-form stack"), .attribute(named: "novalidate", value: "novalidate"),
            placeFields(req, chosen: chosen),
            ratingField(req),
            reviewFields(req),
            photoField(req),
            .p(.id("form-error"), .class("form-error"), .role("alert")),
            .button(.type(.submit), .id("post-review"), .class("button primary wide"), .text(req.t("burger_map.write.post"))),
        ])
        return try await page(
            req, title: req.t("burger_map.write.title"), tab: .write, script: "write", stylesheets: ["/css/burger-map-write.css"],
            withMap: true,
            config: ["map": library.configValue(center: center, zoom: chosen == nil ? Self.defaultZoom : 16),
                     "place": try chosen.map { try json($0) as Any } ?? NSNull()],
            main: .group(.h1(.text(req.t("burger_map.write.title"))), form)
        )
    }

    func fieldError(_ id: String) -> Node<HTML.BodyContext> { .p(.id("error-\(id)"), .class("field-error"), .role("alert")) }

    func fieldset(_ nodes: Node<HTML.BodyContext>...) -> Node<HTML.BodyContext> { .element(named: "fieldset", nodes: nodes) }
    func legend(_ text: String) -> Node<HTML.BodyContext> { .element(named: "legend", text: text) }

    func placeFields(_ req: Request, chosen: PlaceDetailResponse?) -> Node<HTML.BodyContext> {
        let hidden: Node<HTML.BodyContext> = .attribute(named: "hidden", value: "hidden")
        let current: Node<HTML.BodyContext> = .div(
            .id("chosen-place"), .class("chosen-place"), chosen == nil ? hidden : .empty,
            .strong(.class("chosen-name"), .text(chosen?.name ?? "")),
            .span(.class("chosen-address muted"), .text(chosen?.address ?? "")),
            .button(.type(.button), .id("change-place"), .class("link-button"), .text(req.t("burger_map.write.change_place")))
        )
        let picker: Node<HTML.BodyContext> = .div(
            .class("place-picker"), chosen == nil ? .empty : hidden,
            .label(.for("place-search"), .text(req.t("burger_map.write.search_place"))),
            .input(.type(.search), .id("place-search"), .attribute(named: "autocomplete", value: "off"),
                   .attribute(named: "maxlength", value: "40"), .placeholder(req.t("burger_map.write.search_placeholder")),
                   .attribute(named: "aria-describedby", value: "error-place")),
            .ul(.id("place-results"), .class("place-results")),
            .button(.type(.button), .id("new-place-toggle"), .class("link-button"), .ariaControls("new-place"),
                    .attribute(named: "aria-expanded", value: "false"), .text(req.t("burger_map.write.new_place")))
        )
        let newPlace = fieldset(
            .id("new-place"), .class("new-place stack"), hidden,
            legend(req.t("burger_map.write.new_place")),
            textField(req, id: "new-place-name", label: "burger_map.write.place_name", max: 60, error: "error-place"),
            textField(req, id: "new-place-address", label: "burger_map.write.place_address", max: 120, error: "error-place"),
            .p(.class("hint"), .text(req.t("burger_map.write.position_hint"))),
            .div(.id("new-place-map"), .class("new-place-map"), .ariaLabel(req.t("burger_map.write.position_map"))),
            .button(.type(.button), .id("use-location"), .class("button"), .text(req.t("burger_map.write.use_location"))),
            .div(
                .class("position-fields"),
                numberField(req, id: "new-place-lat", label: "burger_map.write.lat"),
                numberField(req, id: "new-place-lon", label: "burger_map.write.lon")
            )
        )
        let hiddenID: Node<HTML.BodyContext> = .input(.type(.hidden), .id("place-id"), .name("placeId"), .value(chosen?.id.uuidString ?? ""))
        return fieldset(
            .class("field place-field"),
            legend(req.t("burger_map.write.place")),
            hiddenID, current, picker, newPlace,
            fieldError("place")
        )
    }

    func ratingField(_ req: Request) -> Node<HTML.BodyContext> {
        let stars: Node<HTML.BodyContext> = .div(
            .class("star-picker"),
            .forEach((1...5).reversed()) { value in
                .group(
                    .input(.type(.radio), .id("rating-\(value)"), .name("rating"), .value(String(value))),
                    .label(.for("rating-\(value)"), .ariaLabel(req.t("burger_map.stars", ["rating": String(value)])), .text("★"))
                )
            }
        )
        return fieldset(
            .id("rating"), .class("field rating-field"), .attribute(named: "aria-describedby", value: "error-rating"),
            legend(req.t("burger_map.write.rating")),
            stars,
            fieldError("rating")
        )
    }

    func reviewFields(_ req: Request) -> Node<HTML.BodyContext> {
        let text: Node<HTML.BodyContext> = .div(
            .class("field"),
            .label(.for("review-text"), .text(req.t("burger_map.write.text"))),
            .textarea(.id("review-text"), .name("text"), .attribute(named: "maxlength", value: "2000"), .attribute(named: "rows", value: "6"),
                      .attribute(named: "aria-describedby", value: "text-counter error-text")),
            .span(.id("text-counter"), .class("counter hint"), .text("0 / 2,000"))
        )
        return .group(
            textField(req, id: "review-title", label: "burger_map.write.review_title", max: 60, error: "error-title"),
            fieldError("title"),
            text,
            fieldError("text")
        )
    }

    func photoField(_ req: Request) -> Node<HTML.BodyContext> {
        let field: Node<HTML.BodyContext> = .div(
            .class("field photo-field"),
            .label(.for("photo-input"), .text(req.t("burger_map.write.photos"))),
            .input(.type(.file), .id("photo-input"), .attribute(named: "accept", value: "image/jpeg,image/png,image/webp"),
                   .attribute(named: "multiple", value: "multiple"), .attribute(named: "aria-describedby", value: "photo-counter error-photos")),
            .span(.id("photo-counter"), .class("counter hint"), .text("0 / 5")),
            .ol(.id("photo-previews"), .class("photo-previews"))
        )
        return .group(field, fieldError("photos"))
    }

    func textField(_ req: Request, id: String, label: String, max: Int, error: String) -> Node<HTML.BodyContext> {
        .div(
            .class("field"),
            .label(.for(id), .text(req.t(label))),
            .input(.type(.text), .id(id), .attribute(named: "maxlength", value: String(max)), .ariaDescribedBy(error))
        )
    }

    func numberField(_ req: Request, id: String, label: String) -> Node<HTML.BodyContext> {
        .div(
            .class("field"),
            .label(.for(id), .text(req.t(label))),
            .input(.type(.number), .id(id), .attribute(named: "step", value: "any"), .attribute(named: "readonly", value: "readonly"))
        )
    }
}
