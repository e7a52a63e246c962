import Accounts
import Foundation
import Platform
import Plot
import Vapor

/// Mates in the browser (the 새싹 스터디 app's screens): start and verify, the home map of people
/// searching nearby, start searching, nearby / requested-me cards, the live chat and its menu,
/// review and report forms, my profile and the shop. The server renders each page's frame and
/// what it starts from (my profile, my state, the match); the scripts in `Public/js/mates/` call
/// `/api/v1/mates` as the signed-in browser session (`browserAPIValues`). docs/MATES.md describes
/// the pages beside the rules.
struct MatesPages: RouteCollection {
    package enum Tab: String, CaseIterable {
        case home, shop, profile

        package var path: String {
            switch self {
            case .home: return MatesPath.home()
            case .shop: return MatesPath.shop()
            case .profile: return MatesPath.profile()
            }
        }

        package var emoji: String {
            switch self {
            case .home: return "🗺️"
            case .shop: return "🛍️"
            case .profile: return "🌱"
            }
        }
    }

    static let api = "/api/v1/mates"

    func boot(routes: any RoutesBuilder) throws {
        routes.get(MatesPath.home, use: home)
        let signedIn = routes.grouped(SignInRequired())
        signedIn.get(MatesPath.start, use: startPage)
        let verified = signedIn.grouped(MatesGate(sendsPagesToVerification: true))
        verified.get(MatesPath.profile, use: profile)
        verified.get(MatesPath.shop, use: shop)
        verified.get(MatesPath.search, use: search)
        verified.get(MatesPath.nearby, use: nearby)
        verified.get(MatesPath.chat, use: chat)
        verified.get(MatesPath.chatLive, use: live)
        verified.get(MatesPath.review, use: review)
        verified.get(MatesPath.report, use: report)
    }

    // MARK: Frame

    /// A mates page: the shared layout with the mates tab bar, `mates.css` over the services'
    /// common look (`css/shared/`; plus `stylesheets`),
    /// the page's script, Leaflet when it has a map, and the config block the scripts read (the
    /// API token, the browser's device token for the menu game, the `mates.js.` texts).
    ///
    /// Kept by what it shows (`Layout.keptPage(shown:)`): every mates page's body is made from the
    /// values its script starts from (`config`: my profile, my state, the match), its title (the
    /// partner's name) and its address; whatever else it shows goes in `alsoShows` (the calendar
    /// year of the birth-year list, a picture). `main` is made only when any of these changed; the
    /// viewer's id and token and the browser's device token are each request's own.
    func page(
        _ req: Request, title: String, tab: Tab?, script: String?, stylesheets: [String] = [], withMap: Bool = false,
        withTabs: Bool = true, config: [String: Any] = [:], alsoShows: [String] = [], main: () throws -> Node<HTML.BodyContext>
    ) async throws -> Response {
        var configJSON = JSONBytes(capacity: 1_024)
        configJSON.any(config)
        let shown = Shown(title: title, tab: tab?.rawValue, script: script, withMap: withMap, withTabs: withTabs, config: configJSON.bytes, also: alsoShows)
        let device = Layout.jsonStringContent(req.browserDevice.token)
        return try Layout.keptPage(req, shown: shown, reader: Layout.ReaderParts(api: try await req.browserAPIViewer(), parts: [device])) { _ in
            let library = req.application.mapLibrary
            var values = config
            values["device"] = Layout.readerPartMarker(0)
            return Layout.PageParts(
                title: title,
                extras: PageExtras(
                    // The bottom tab bar, the status line and the map stage are shared with the burger map.
                    stylesheets: ["/css/shared/services.css"] + (withMap ? ["/css/shared/map-stage.css"] : []) + ["/css/mates.css"] + stylesheets,
                    scripts: script.map { ["/js/mates/\($0).js"] } ?? [],
                    vendorStylesheets: withMap ? library.stylesheets : [], vendorScripts: withMap ? library.scripts : [],
                    bodyClass: withTabs ? "mates with-tabs" : "mates", bottomBar: withTabs ? tabBar(req, current: tab) : .empty
                ),
                script: ("mates.js.", values), main: try main()
            )
        }
    }

    /// What a mates page is kept by (`page`).
    private struct Shown: Hashable, Sendable {
        let title: String
        let tab: String?
        let script: String?
        let withMap: Bool
        let withTabs: Bool
        let config: [UInt8]
        let also: [String]
    }

    func tabBar(_ req: Request, current: Tab?) -> Node<HTML.BodyContext> {
        TabBar.render(label: req.t("mates.tabs"), classes: "map-tabs mates-tabs", items: Tab.allCases.map { tab in
            TabBar.Item(path: tab.path, emoji: tab.emoji, label: req.t("mates.tab.\(tab.rawValue)"), isCurrent: tab == current)
        })
    }

    /// Encodes an API answer for the config block, so scripts start from what the page shows:
    /// once per distinct value (`PageFragments.encoded`).
    func json(_ req: Request, _ value: some Encodable & Hashable & Sendable) throws -> PageConfig.Encoded {
        try req.application.pageFragments.encoded(value)
    }

    /// My profile as the API answers it, and my state: what most pages start from.
    func mine(_ req: Request) async throws -> (profile: MatesProfileResponse, state: MatesStateResponse) {
        let profile = try req.matesSnapshot()
        let user = try req.requireUser()
        let response = MatesProfileResponse(profile, nickname: user.nickname, comments: try await req.mates.receivedComments(profile.id))
        let state = MatesStateResponse(try await req.mates.state(of: profile), profile: profile, me: profile.id)
        return (response, state)
    }

    // MARK: Faces and backgrounds

    static func avatarURL(_ index: Int) -> String { "/images/mates/avatar-\(index).svg" }
    static func backgroundURL(_ index: Int) -> String { "/images/mates/background-\(index).svg" }

    /// The card the app shows on top of a profile: the background with the face standing on it.
    static func card(_ req: Request, avatar: Int, background: Int, nickname: String, id: String = "mate-card") -> Node<HTML.BodyContext> {
        .div(
            .id(id), .class("mate-card"), .data(named: "avatar", value: String(avatar)), .data(named: "background", value: String(background)),
            .img(.class("mate-card-background"), .src(backgroundURL(background)), .alt(req.t("mates.item.background.\(background)"))),
            .img(.class("mate-card-avatar"), .src(avatarURL(avatar)), .alt(req.t("mates.item.avatar.\(avatar)"))),
            .span(.class("mate-card-name"), .text(nickname))
        )
    }

    // MARK: Home

    /// `/mates`: a visitor sees what it is and how to begin; a signed-in account that has not
    /// verified goes to the start; the rest get the map of people searching nearby.
    func home(req: Request) async throws -> Response {
        guard req.auth.has(User.self) else { return try await intro(req) }
        if let redirect = try await MatesGate(sendsPagesToVerification: true).admit(req) { return redirect }
        let (profile, state) = try await mine(req)
        let library = req.application.mapLibrary
        let mapConfig = library.configValue(center: MapLibrary.defaultCenter, zoom: 15)
        return try await page(
            req, title: req.t("mates.home.title"), tab: .home, script: "home", withMap: true,
            config: ["map": mapConfig, "profile": try json(req, profile), "state": try json(req, state),
                     "radiusMeters": Int(req.application.settings.mates.radiusMeters)]
        ) {
            .group(
                .h1(.class("visually-hidden"), .text(req.t("mates.home.title"))),
                profile.birthYear == nil ? needsBirthYear(req) : .empty,
                .div(
                    .class("gender-filter"), .role("radiogroup"), .ariaLabel(req.t("mates.home.filter")),
                    .forEach(["all", "male", "female"]) { gender in
                        .button(.type(.button), .class("filter-chip"), .data(named: "gender", value: gender), .role("radio"),
                                .attribute(named: "aria-checked", value: gender == "all" ? "true" : "false"),
                                .text(req.t("mates.home.filter.\(gender)")))
                    }
                ),
                .div(
                    .class("map-stage"),
                    .div(.id("map"), .class("map-canvas"), .ariaLabel(req.t("mates.home.map_label"))),
                    .div(
                        .class("map-controls"),
                        .button(.type(.button), .id("locate"), .class("map-control"), .text(req.t("mates.home.locate"))),
                        .button(.type(.button), .id("view-toggle"), .class("map-control"), .text(req.t("mates.home.show_list")))
                    ),
                    stateButton(req, state)
                ),
                .p(.id("map-status"), .class("map-status"), .role("status")),
                .ol(.id("people-list"), .class("people-list"), .attribute(named: "aria-label", value: req.t("mates.home.list_label")), .attribute(named: "hidden", value: "hidden"))
            )
        }
    }

    /// People find each other by age: without a birth year there is nobody to show, and this says
    /// where to set it.
    func needsBirthYear(_ req: Request) -> Node<HTML.BodyContext> {
        .p(.id("needs-birth-year"), .class("notice"), .text(req.t("mates.search.needs_birth_year") + " "),
           .a(.href(Tab.profile.path), .text(req.t("mates.search.open_profile"))))
    }

    /// The one floating button whose icon follows my state: search, searching, or the chat.
    func stateButton(_ req: Request, _ state: MatesStateResponse) -> Node<HTML.BodyContext> {
        let (emoji, path): (String, String)
        switch state.state {
        case .idle: (emoji, path) = ("🔍", MatesPath.search())
        case .searching: (emoji, path) = ("📡", MatesPath.nearby())
        case .matched: (emoji, path) = ("💬", state.matchId.map { MatesPath.chat($0) } ?? MatesPath.home())
        }
        let unread = state.state == .matched ? state.unreadCount : 0
        let label = req.t("mates.state.\(state.state.rawValue)")
            + (unread > 0 ? " · " + req.t("mates.state.unread", ["count": String(unread)]) : "")
        return .a(.id("state-fab"), .class("fab state-\(state.state.rawValue)"), .href(path), .data(named: "state", value: state.state.rawValue),
                  .ariaLabel(label),
                  .span(.class("fab-icon"), .ariaHidden(true), .text(emoji)),
                  .span(.class("fab-badge"), .ariaHidden(true), .hidden(unread == 0), .text(unread > 99 ? "99+" : String(unread))))
    }

    /// What a visitor who is not signed in sees at `/mates`: the onboarding and the way in.
    func intro(_ req: Request) async throws -> Response {
        try await page(
            req, title: req.t("service.mates.name"), tab: nil, script: nil, withTabs: false
        ) {
            .section(
                .class("card mates-intro"),
                .span(.class("intro-emoji"), .ariaHidden(true), .text("🌱")),
                .h1(.text(req.t("service.mates.name"))),
                onboardingSteps(req),
                .a(.id("intro-login"), .class("button primary wide"), .href(AccountPath.logIn() + "?next=" + MatesPath.start()), .text(req.t("mates.intro.login"))),
                .a(.id("intro-signup"), .class("button wide"), .href(AccountPath.signUp()), .text(req.t("mates.intro.signup")))
            )
        }
    }

    /// The three steps of the onboarding, as the app's first screens put them.
    func onboardingSteps(_ req: Request) -> Node<HTML.BodyContext> {
        .ol(
            .class("onboarding-steps"),
            .forEach([("📍", "find"), ("🤝", "match"), ("💬", "chat")]) { emoji, key in
                .li(.span(.class("step-emoji"), .ariaHidden(true), .text(emoji)),
                    .div(.strong(.text(req.t("mates.onboarding.\(key).title"))), .p(.text(req.t("mates.onboarding.\(key).text")))))
            }
        )
    }
}
