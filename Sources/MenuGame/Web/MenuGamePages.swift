import Accounts
import Fluent
import Media
import Platform
import Plot
import Vapor

/// The menu game in the browser (the 우리뭐먹지 app's screens): onboarding, the three tabs
/// (home, solo, together), the game, the waiting room, results and settings.
///
/// Pages are rendered here; the browser's scripts (`Public/js/menu-game/`) animate the cards,
/// talk to the JSON API with the device token the page hands them, and keep the waiting room
/// live over the group's WebSocket.
struct MenuGamePages: RouteCollection {
    static let script = (
        game: "/js/menu-game/game.js", home: "/js/menu-game/home.js", together: "/js/menu-game/together.js",
        lobby: "/js/menu-game/lobby.js", wait: "/js/menu-game/wait.js", result: "/js/menu-game/result.js",
        onboarding: "/js/menu-game/onboarding.js", shared: "/js/menu-game/shared.js"
    )

    func boot(routes: any RoutesBuilder) throws {
        routes.get(PlayPath.home, use: home)
        routes.get(PlayPath.welcome, use: onboarding)
        routes.post(PlayPath.preferences, use: savePreferences)
        routes.get(PlayPath.solo, use: soloTab)
        routes.get(PlayPath.soloGame, use: soloGame)
        routes.get(PlayPath.result, use: soloResult)
        routes.get(PlayPath.together, use: togetherTab)
        routes.post(PlayPath.create, use: createGroup)
        routes.post(PlayPath.join, use: joinGroup)
        routes.get(PlayPath.group, use: lobby)
        routes.get(PlayPath.groupQRCode, use: qrCode)
        routes.get(PlayPath.groupGame, use: groupGame)
        routes.get(PlayPath.groupWait, use: waitingRoom)
        routes.get(PlayPath.groupResult, use: groupResult)
        routes.get(PlayPath.settings, use: settings)
        routes.post(PlayPath.feedback, use: sendFeedback)
        routes.grouped(SignInRequired()).get(PlayPath.feedback, use: feedbackInbox)
        routes.get(PlayPath.joinLink, use: joinLink)
        routes.get(PlayPath.sharedMenu, use: sharedMenu)
    }

    // MARK: Onboarding

    func onboarding(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        let next = Layout.safeNextPath(req.query[String.self, at: "next"]) ?? PlayPath.home()
        // A group's invitation (`next` names one) follows the group: made for each reader; the
        // plain page is kept whole.
        let invitation = await Self.invitation(req, next: next)
        return MenuGamePages.page(req, device: device, keep: invitation == nil) {
            let intros: [(emoji: String, key: String)] = [("🎴", "one"), ("👥", "two")]
            let introPages: [Node<HTML.BodyContext>] = intros.enumerated().map { index, intro in
                onboardingIntro(req, index: index, emoji: intro.emoji, key: intro.key)
            }
            let dislikes: Node<HTML.BodyContext> = .section(
                .class("card onboarding-page"), .id("dislikes"), .data(named: "page", value: String(intros.count)),
                .ariaLabelledBy("dislikes-title"),
                .h1(.id("dislikes-title"), .text(req.t("menu_game.disliked.title"))),
                .p(.class("lead"), .text(req.t("menu_game.disliked.lead"))),
                .form(
                    .action(PlayPath.preferences()), .method(.post), .class("stack"),
                    Layout.csrfField(req),
                    .input(.type(.hidden), .name("next"), .value(next)),
                    MenuGamePages.dislikedTiles(req, selected: device.disliked),
                    .button(.type(.submit), .class("button primary wide"), .id("save-dislikes"), .text(req.t("menu_game.disliked.confirm")))
                )
            )
            let dots: Node<HTML.BodyContext> = .ol(
                .class("page-dots"), .attribute(named: "aria-hidden", value: "true"),
                .forEach(0...intros.count) { index in .li(.data(named: "dot", value: String(index))) }
            )
            var extras = MenuGamePages.extras(req, tab: nil, scripts: [Self.script.onboarding], showTabs: false)
            extras.preview = invitation
            return Layout.PageParts(
                title: req.t("menu_game.onboarding.title"), extras: extras,
                main: .div(.class("onboarding"), .id("onboarding"), .group(introPages), dislikes, dots)
            )
        }
    }

    func onboardingIntro(_ req: Request, index: Int, emoji: String, key: String) -> Node<HTML.BodyContext> {
        .section(
            .class("card onboarding-page"), .id("onboarding-page-\(index + 1)"), .data(named: "page", value: String(index)),
            .ariaLabelledBy("onboarding-\(key)"),
            .span(.class("onboarding-emoji"), .ariaHidden(true), .text(emoji)),
            .h1(.id("onboarding-\(key)"), .text(req.t("menu_game.onboarding.\(key).title"))),
            .p(.class("lead"), .text(req.t("menu_game.onboarding.\(key).body"))),
            .div(
                .class("onboarding-nav"),
                .a(.class("link-button skip-onboarding"), .href("#dislikes"), .text(req.t("menu_game.onboarding.skip"))),
                .a(.class("button primary next-page"), .href(index == 0 ? "#onboarding-page-2" : "#dislikes"),
                   .text(req.t("menu_game.onboarding.next")))
            )
        )
    }

    struct PreferencesForm: Content {
        var disliked: [String]?
        var next: String?
    }

    /// Saves the disliked foods on this browser (cookies) and, when signed in, on the account.
    func savePreferences(req: Request) async throws -> Response {
        let form = try req.content.decode(PreferencesForm.self)
        var disliked = Set<Flavor>()
        for raw in form.disliked ?? [] {
            guard let flavor = Flavor(rawValue: raw), Flavor.dislikeable.contains(flavor) else {
                throw AppError.invalid("invalid_disliked_food", ["allowed": Flavor.dislikeable.map(\.rawValue).sorted().joined(separator: ", ")])
            }
            disliked.insert(flavor)
        }
        if let user = req.auth.get(User.self) {
            try await req.menuGame.saveDislikes(disliked, for: user.requireID())
        }
        let response = Layout.redirect(to: Layout.safeNextPath(form.next) ?? PlayPath.home())
        response.cookies[MenuGameDevice.dislikedCookie] = BrowserDevice.cookie(MenuGameDevice.cookieValue(disliked), req)
        response.cookies[MenuGameDevice.onboardedCookie] = BrowserDevice.cookie("1", req)
        return response
    }

    /// First visit: onboarding before anything else, then back to where the visitor was going.
    func onboardingRedirect(_ req: Request, _ device: MenuGameDevice) -> Response? {
        guard !device.isOnboarded else { return nil }
        var path = req.url.path
        if let query = req.url.query, !query.isEmpty { path += "?" + query }
        let response = Layout.redirect(to: PlayPath.welcome() + "?next=" + (path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? PlayPath.home()))
        return response
    }

    /// Reopening the browser while waiting for a group returns to the waiting room.
    func waitingRedirect(_ req: Request, _ device: MenuGameDevice) async throws -> Response? {
        guard let pin = MenuGameDevice.waitingPIN(req), let group = try await req.menuGame.group(pin: pin),
              try await req.menuGame.hasSubmitted(device.token, to: group)
        else { return nil }
        return Layout.redirect(to: PlayPath.groupWait(pin))
    }

    // MARK: Home

    func home(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        if let redirect = onboardingRedirect(req, device) { return redirect }
        if let redirect = try await waitingRedirect(req, device) { return redirect }
        let game = req.menuGame
        let menu = try await game.randomMenu(device: device.token)
        let name = menu.name[req.language]
        // Kept whole per disliked foods; the menu drawn for this request is the reader's own
        // (after the device's token, part 0): its picture, its size class and its question.
        let drawn = [Markup.escape(Self.pagePath(game.imageURL(for: menu), req)),
                     Markup.escape("random-question \(MenuGamePages.nameSizeClass(name))"),
                     Markup.escape(req.t("menu_game.home.question", ["name": name]))]
        return MenuGamePages.page(req, device: device, keep: true, parts: drawn) {
            Layout.PageParts(
                title: req.t("menu_game.tabs.home"),
                extras: MenuGamePages.extras(req, tab: .home, scripts: [Self.script.home]),
                main: .group(
                    .section(
                        .class("card random-menu"), .ariaLabelledBy("random-question"),
                        .p(.class("eyebrow"), .text(req.t("menu_game.home.eyebrow"))),
                        .div(.class("menu-image-frame"),
                             .img(.id("random-image"), .src(Layout.readerPartMarker(1)), .alt(""), .width(320), .height(320))),
                        .h1(.id("random-question"), .class(Layout.readerPartMarker(2)),
                            .ariaLive(.polite),
                            Layout.readerPart(3)),
                        .button(.type(.button), .class("button wide"), .id("another-menu"), .text("🎲 " + req.t("menu_game.home.another")))
                    ),
                    .div(
                        .class("quick-start"),
                        quickStart(req, tab: .solo, emoji: "🍱"),
                        quickStart(req, tab: .together, emoji: "👥")
                    ),
                    MenuGamePages.config(req, device: device)
                )
            )
        }
    }

    func quickStart(_ req: Request, tab: MenuGamePages.Tab, emoji: String) -> Node<HTML.BodyContext> {
        .a(
            .class("quick-card"), .href(MenuGamePages.tabPath(tab)),
            .span(.class("quick-emoji"), .ariaHidden(true), .text(emoji)),
            .span(.class("quick-title"), .text(req.t("menu_game.tabs.\(tab.rawValue)"))),
            .span(.class("quick-body"), .text(req.t("menu_game.\(tab.rawValue).lead")))
        )
    }

    // MARK: Solo

    func soloTab(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        if let redirect = onboardingRedirect(req, device) { return redirect }
        return MenuGamePages.page(req, device: device, keep: true) {
            Layout.PageParts(
                title: req.t("menu_game.tabs.solo"),
                extras: MenuGamePages.extras(req, tab: .solo),
                main: .section(
                    .class("card tab-intro"), .ariaLabelledBy("solo-title"),
                    .span(.class("intro-emoji"), .ariaHidden(true), .text("🍱")),
                    .h1(.id("solo-title"), .text(req.t("menu_game.tabs.solo"))),
                    .p(.class("lead"), .text(req.t("menu_game.solo.intro"))),
                    dislikedSummary(req, device),
                    .a(.class("button primary wide"), .id("start-solo"), .href(PlayPath.soloGame()), .text(req.t("menu_game.game.start")))
                )
            )
        }
    }

    func dislikedSummary(_ req: Request, _ device: MenuGameDevice) -> Node<HTML.BodyContext> {
        let names = MenuGamePages.dislikedOrder.filter(device.disliked.contains)
            .map { req.t("menu_game.disliked.\($0.rawValue.lowercased())") }
        return .p(
            .class("disliked-summary"),
            .text(names.isEmpty ? req.t("menu_game.disliked.none") : req.t("menu_game.disliked.summary", ["foods": names.joined(separator: ", ")])),
            .text(" "),
            .a(.href(PlayPath.settings() + "#dislikes-settings"), .text(req.t("menu_game.disliked.change")))
        )
    }

    func soloGame(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        if let redirect = onboardingRedirect(req, device) { return redirect }
        return gamePage(req, device: device, mode: "solo", pin: nil)
    }

    func gamePage(_ req: Request, device: MenuGameDevice, mode: String, pin: String?) -> Response {
        return MenuGamePages.page(req, device: device, keep: true) {
            Layout.PageParts(
                title: req.t("menu_game.game.title"),
                extras: MenuGamePages.extras(req, tab: nil, scripts: [Self.script.game], showTabs: false),
                main: .section(
                    .class("game"), .id("game"), .data(named: "mode", value: mode), .data(named: "pin", value: pin ?? ""),
                    .attribute(named: "aria-label", value: req.t("menu_game.game.title")),
                    pin.map { .p(.class("game-pin"), .text(req.t("menu_game.game.group_pin", ["pin": $0]))) } ?? .empty,
                    MenuGamePages.progressBar(req),
                    MenuGamePages.cardStack(req),
                    MenuGamePages.answerBar(req),
                    .p(.class("game-status"), .id("game-status"), .role("status")),
                    MenuGamePages.config(req, device: device, extra: ["mode": mode, "pin": pin ?? ""])
                )
            )
        }
    }

    func soloResult(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        return resultPage(req, device: device, mode: "solo", pin: nil, result: nil)
    }

    // MARK: Helpers

    static func joinURL(_ pin: String, _ req: Request) -> String {
        "\(req.application.settings.publicURL)/join/\(pin)"
    }

    /// Our own images as a path, so the page loads them from whatever address the browser used.
    static func pagePath(_ imageURL: String, _ req: Request) -> String {
        let base = req.application.settings.publicURL
        return imageURL.hasPrefix(base + "/") ? String(imageURL.dropFirst(base.count)) : imageURL
    }
}
