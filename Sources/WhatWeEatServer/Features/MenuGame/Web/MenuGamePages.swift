import Fluent
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
        onboarding: "/js/menu-game/onboarding.js"
    )

    func boot(routes: any RoutesBuilder) throws {
        let play = routes.grouped("play")
        play.get(use: home)
        play.get("welcome", use: onboarding)
        play.post("preferences", use: savePreferences)
        play.get("solo", use: soloTab)
        play.get("solo", "game", use: soloGame)
        play.get("result", use: soloResult)
        play.get("together", use: togetherTab)
        play.post("together", "create", use: createGroup)
        play.post("together", "join", use: joinGroup)
        play.get("groups", ":pin", use: lobby)
        play.get("groups", ":pin", "qr.svg", use: qrCode)
        play.get("groups", ":pin", "game", use: groupGame)
        play.get("groups", ":pin", "wait", use: waitingRoom)
        play.get("groups", ":pin", "result", use: groupResult)
        play.get("settings", use: settings)
        play.post("feedback", use: sendFeedback)
        play.get("feedback", use: feedbackInbox)
        routes.get("join", ":pin", use: joinLink)
    }

    // MARK: Onboarding

    func onboarding(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        let next = Layout.safeNextPath(req.query[String.self, at: "next"]) ?? "/play"
        let intros: [(emoji: String, key: String)] = [("🎴", "one"), ("👥", "two")]
        let introPages: [Node<HTML.BodyContext>] = intros.enumerated().map { index, intro in
            onboardingIntro(req, index: index, emoji: intro.emoji, key: intro.key)
        }
        let dislikes: Node<HTML.BodyContext> = .section(
            .class("card onboarding-page"), .id("dislikes"), .data(named: "page", value: String(intros.count)),
            .attribute(named: "aria-labelledby", value: "dislikes-title"),
            .h1(.id("dislikes-title"), .text(req.t("menu_game.disliked.title"))),
            .p(.class("lead"), .text(req.t("menu_game.disliked.lead"))),
            .form(
                .action("/play/preferences"), .method(.post), .class("stack"),
                Layout.csrfField(req),
                .input(.type(.hidden), .name("next"), .value(next)),
                MenuGameViews.dislikedTiles(req, selected: device.disliked),
                .button(.type(.submit), .class("button primary wide"), .id("save-dislikes"), .text(req.t("menu_game.disliked.confirm")))
            )
        )
        let dots: Node<HTML.BodyContext> = .ol(
            .class("page-dots"), .attribute(named: "aria-hidden", value: "true"),
            .forEach(0...intros.count) { index in .li(.data(named: "dot", value: String(index))) }
        )
        let response = Layout.page(
            req, title: req.t("menu_game.onboarding.title"),
            extras: MenuGameViews.extras(req, tab: nil, scripts: [Self.script.onboarding], showTabs: false),
            main: .div(.class("onboarding"), .id("onboarding"), .group(introPages), dislikes, dots)
        )
        return response
    }

    private func onboardingIntro(_ req: Request, index: Int, emoji: String, key: String) -> Node<HTML.BodyContext> {
        .section(
            .class("card onboarding-page"), .id("onboarding-page-\(index + 1)"), .data(named: "page", value: String(index)),
            .attribute(named: "aria-labelledby", value: "onboarding-\(key)"),
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
        let response = Layout.redirect(to: Layout.safeNextPath(form.next) ?? "/play")
        response.cookies[MenuGameDevice.dislikedCookie] = BrowserDevice.cookie(MenuGameDevice.cookieValue(disliked), req)
        response.cookies[MenuGameDevice.onboardedCookie] = BrowserDevice.cookie("1", req)
        return response
    }

    /// First visit: onboarding before anything else, then back to where the visitor was going.
    private func onboardingRedirect(_ req: Request, _ device: MenuGameDevice) -> Response? {
        guard !device.isOnboarded else { return nil }
        var path = req.url.path
        if let query = req.url.query, !query.isEmpty { path += "?" + query }
        let response = Layout.redirect(to: "/play/welcome?next=" + (path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/play"))
        return response
    }

    /// Reopening the browser while waiting for a group returns to the waiting room.
    private func waitingRedirect(_ req: Request, _ device: MenuGameDevice) async throws -> Response? {
        guard let pin = MenuGameDevice.waitingPIN(req), let group = try await req.menuGame.group(pin: pin),
              try await req.menuGame.hasSubmitted(device.token, to: group)
        else { return nil }
        return Layout.redirect(to: "/play/groups/\(pin)/wait")
    }

    // MARK: Home

    func home(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        if let redirect = onboardingRedirect(req, device) { return redirect }
        if let redirect = try await waitingRedirect(req, device) { return redirect }
        let game = req.menuGame
        let menu = try await game.randomMenu(device: device.token)
        let name = menu.name[req.language]
        let response = Layout.page(
            req, title: req.t("menu_game.tabs.home"),
            extras: MenuGameViews.extras(req, tab: .home, scripts: [Self.script.home]),
            main: .group(
                .section(
                    .class("card random-menu"), .attribute(named: "aria-labelledby", value: "random-question"),
                    .p(.class("eyebrow"), .text(req.t("menu_game.home.eyebrow"))),
                    .div(.class("menu-image-frame"),
                         .img(.id("random-image"), .src(Self.pagePath(game.imageURL(for: menu), req)), .alt(""), .width(320), .height(320))),
                    .h1(.id("random-question"), .class("random-question \(MenuGameViews.nameSizeClass(name))"),
                        .attribute(named: "aria-live", value: "polite"),
                        .text(req.t("menu_game.home.question", ["name": name]))),
                    .button(.type(.button), .class("button wide"), .id("another-menu"), .text("🎲 " + req.t("menu_game.home.another")))
                ),
                .div(
                    .class("quick-start"),
                    quickStart(req, tab: .solo, emoji: "🍱"),
                    quickStart(req, tab: .together, emoji: "👥")
                ),
                MenuGameViews.config(req, device: device),
                MenuGameViews.networkErrorView(req)
            )
        )
        return response
    }

    private func quickStart(_ req: Request, tab: MenuGameViews.Tab, emoji: String) -> Node<HTML.BodyContext> {
        .a(
            .class("quick-card"), .href(MenuGameViews.tabPath(tab)),
            .span(.class("quick-emoji"), .ariaHidden(true), .text(emoji)),
            .span(.class("quick-title"), .text(req.t("menu_game.tabs.\(tab.rawValue)"))),
            .span(.class("quick-body"), .text(req.t("menu_game.\(tab.rawValue).lead")))
        )
    }

    // MARK: Solo

    func soloTab(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        if let redirect = onboardingRedirect(req, device) { return redirect }
        let response = Layout.page(
            req, title: req.t("menu_game.tabs.solo"),
            extras: MenuGameViews.extras(req, tab: .solo),
            main: .section(
                .class("card tab-intro"), .attribute(named: "aria-labelledby", value: "solo-title"),
                .span(.class("intro-emoji"), .ariaHidden(true), .text("🍱")),
                .h1(.id("solo-title"), .text(req.t("menu_game.tabs.solo"))),
                .p(.class("lead"), .text(req.t("menu_game.solo.intro"))),
                dislikedSummary(req, device),
                .a(.class("button primary wide"), .id("start-solo"), .href("/play/solo/game"), .text(req.t("menu_game.game.start")))
            )
        )
        return response
    }

    private func dislikedSummary(_ req: Request, _ device: MenuGameDevice) -> Node<HTML.BodyContext> {
        let names = MenuGameViews.dislikedOrder.filter(device.disliked.contains)
            .map { req.t("menu_game.disliked.\($0.rawValue.lowercased())") }
        return .p(
            .class("disliked-summary"),
            .text(names.isEmpty ? req.t("menu_game.disliked.none") : req.t("menu_game.disliked.summary", ["foods": names.joined(separator: ", ")])),
            .text(" "),
            .a(.href("/play/settings#dislikes-settings"), .text(req.t("menu_game.disliked.change")))
        )
    }

    func soloGame(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        if let redirect = onboardingRedirect(req, device) { return redirect }
        return gamePage(req, device: device, mode: "solo", pin: nil)
    }

    private func gamePage(_ req: Request, device: MenuGameDevice, mode: String, pin: String?) -> Response {
        let response = Layout.page(
            req, title: req.t("menu_game.game.title"),
            extras: MenuGameViews.extras(req, tab: nil, scripts: [Self.script.game], showTabs: false),
            main: .section(
                .class("game"), .id("game"), .data(named: "mode", value: mode), .data(named: "pin", value: pin ?? ""),
                .attribute(named: "aria-label", value: req.t("menu_game.game.title")),
                pin.map { .p(.class("game-pin"), .text(req.t("menu_game.game.group_pin", ["pin": $0]))) } ?? .empty,
                MenuGameViews.progressBar(req),
                MenuGameViews.cardStack(req),
                MenuGameViews.answerBar(req),
                .p(.class("game-status"), .id("game-status"), .attribute(named: "role", value: "status")),
                MenuGameViews.config(req, device: device, extra: ["mode": mode, "pin": pin ?? ""]),
                MenuGameViews.networkErrorView(req)
            )
        )
        return response
    }

    func soloResult(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        return resultPage(req, device: device, mode: "solo", pin: nil, result: nil)
    }

    // MARK: Together

    func togetherTab(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        if let redirect = onboardingRedirect(req, device) { return redirect }
        if let redirect = try await waitingRedirect(req, device) { return redirect }
        let error = req.query[String.self, at: "error"] == "group_not_found" ? AppError.notFound("group_not_found") : nil
        return togetherPage(req, device: device, pin: req.query[String.self, at: "pin"], error: error)
    }

    private func togetherPage(_ req: Request, device: MenuGameDevice, pin: String?, error: AppError?) -> Response {
        let message = error.map { req.t($0.messageKey, $0.arguments) }
        let typed = String((pin ?? "").prefix(6).filter(\.isNumber))
        let response = Layout.page(
            req, title: req.t("menu_game.tabs.together"), status: error?.status ?? .ok,
            extras: MenuGameViews.extras(req, tab: .together, scripts: [Self.script.together]),
            main: .group(
                .section(
                    .class("card tab-intro"), .attribute(named: "aria-labelledby", value: "together-title"),
                    .span(.class("intro-emoji"), .ariaHidden(true), .text("👥")),
                    .h1(.id("together-title"), .text(req.t("menu_game.tabs.together"))),
                    .p(.class("lead"), .text(req.t("menu_game.together.intro"))),
                    dislikedSummary(req, device),
                    .form(
                        .action("/play/together/create"), .method(.post),
                        Layout.csrfField(req),
                        .button(.type(.submit), .class("button primary wide"), .id("create-group"), .text(req.t("menu_game.together.create")))
                    )
                ),
                .section(
                    .class("card"), .attribute(named: "aria-labelledby", value: "join-title"),
                    .h2(.id("join-title"), .text(req.t("menu_game.together.join_title"))),
                    .form(
                        .action("/play/together/join"), .method(.post), .class("stack join-form"), .id("join-form"), .novalidate(),
                        Layout.csrfField(req),
                        .div(
                            .class("field"),
                            .label(.for("pin"), .text(req.t("menu_game.together.pin_label"))),
                            .selfClosedElement(named: "input", attributes: [
                                .id("pin"), .name("pin"), .type(.text), .value(typed), .required(true),
                                .attribute(named: "inputmode", value: "numeric"), .attribute(named: "pattern", value: "[1-9][0-9]{5}"),
                                .attribute(named: "maxlength", value: "6"), .attribute(named: "autocomplete", value: "off"),
                                .attribute(named: "aria-describedby", value: "pin-error"),
                                message == nil ? .empty : .attribute(named: "aria-invalid", value: "true"),
                            ]),
                            .p(.class("field-error"), .id("pin-error"), .attribute(named: "role", value: "alert"),
                               message == nil ? .hidden(true) : .empty, .text(message ?? ""))
                        ),
                        .button(.type(.submit), .class("button wide"), .id("join-group"), .text(req.t("menu_game.together.join")))
                    )
                ),
                MenuGameViews.config(req, device: device),
                MenuGameViews.networkErrorView(req)
            )
        )
        return response
    }

    func createGroup(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        let group = try await req.menuGame.createGroup(hostToken: device.token, hostUserID: req.auth.get(User.self)?.id)
        let response = Layout.redirect(to: "/play/groups/\(group.pin)")
        return response
    }

    struct JoinForm: Content { var pin: String? }

    /// A known PIN goes to the game; a wrong one shows the together tab again with the error
    /// beside the field and the typed PIN kept.
    func joinGroup(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        let pin = try req.content.decode(JoinForm.self).pin ?? ""
        do {
            let group = try await req.menuGroup(pin: pin)
            return Layout.redirect(to: "/play/groups/\(group.pin)/game")
        } catch let error as AppError where error.status == .notFound {
            return togetherPage(req, device: device, pin: pin, error: error)
        }
    }

    /// `/join/{pin}`: the link the host shares (and the QR code holds). Only digits go into the
    /// redirect, whatever the path held.
    func joinLink(req: Request) async throws -> Response {
        Layout.redirect(to: "/play/groups/\(String((req.parameters.get("pin") ?? "").filter(\.isNumber).prefix(6)))")
    }

    // MARK: A group

    /// The group named in the path; an unknown PIN sends the browser to the together tab with
    /// the error shown there.
    private enum GroupLookup { case found(MenuGroup), redirect(Response) }

    private func groupOrRedirect(_ req: Request) async throws -> GroupLookup {
        let pin = req.parameters.get("pin") ?? ""
        do {
            return .found(try await req.menuGroup(pin: pin))
        } catch let error as AppError where error.status == .notFound {
            let digits = String(pin.prefix(6).filter(\.isNumber))
            return .redirect(Layout.redirect(to: "/play/together?error=group_not_found&pin=\(digits)"))
        }
    }

    func lobby(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        if let redirect = onboardingRedirect(req, device) { return redirect }
        let group: MenuGroup
        switch try await groupOrRedirect(req) {
        case .found(let found): group = found
        case .redirect(let redirect): return redirect
        }
        if group.isClosed { return Layout.redirect(to: "/play/groups/\(group.pin)/result") }
        let status = try await req.menuGame.status(of: group, device: device.token)
        let joinURL = Self.joinURL(group.pin, req)
        let response = Layout.page(
            req, title: req.t("menu_game.lobby.title"),
            extras: MenuGameViews.extras(req, tab: .together, scripts: [Self.script.lobby]),
            main: .group(
                .section(
                    .class("card lobby"), .attribute(named: "aria-labelledby", value: "lobby-title"),
                    .h1(.id("lobby-title"), .text(req.t(status.isHost ? "menu_game.lobby.host_title" : "menu_game.lobby.title"))),
                    .p(.class("pin-label"), .text(req.t("menu_game.lobby.pin"))),
                    .p(.class("pin-display"), .id("pin-value"), .attribute(named: "aria-label", value: group.pin.map(String.init).joined(separator: " ")),
                       .text(group.pin)),
                    .div(
                        .class("lobby-actions"),
                        .button(.type(.button), .class("button"), .id("copy-pin"), .data(named: "pin", value: group.pin), .text("📋 " + req.t("menu_game.lobby.copy"))),
                        .button(.type(.button), .class("button"), .id("share-link"), .data(named: "url", value: joinURL),
                                .text("🔗 " + req.t("menu_game.lobby.share")))
                    ),
                    .p(.class("copy-status"), .id("copy-status"), .attribute(named: "role", value: "status")),
                    .img(.class("qr-code"), .src("/play/groups/\(group.pin)/qr.svg"), .alt(req.t("menu_game.lobby.qr_alt", ["url": joinURL])),
                         .width(232), .height(232)),
                    .p(.class("join-url"), .text(joinURL)),
                    .p(.class("muted"), .text(req.t(status.isHost ? "menu_game.lobby.host_hint" : "menu_game.lobby.member_hint"))),
                    .a(.class("button primary wide"), .id("start-group-game"), .href("/play/groups/\(group.pin)/game"), .text(req.t("menu_game.game.start")))
                ),
                MenuGameViews.config(req, device: device, extra: ["pin": group.pin, "shareURL": joinURL]),
                MenuGameViews.networkErrorView(req)
            )
        )
        return response
    }

    func qrCode(req: Request) async throws -> Response {
        let group = try await req.menuGroupFromPath()
        let joinURL = Self.joinURL(group.pin, req)
        // Level M fits a PUBLIC_URL of about 200 bytes; a longer one falls back to level L.
        guard let code = (try? QRCode(encoding: joinURL)) ?? (try? QRCode(encoding: joinURL, errorCorrection: .low)) else {
            throw AppError.notFound()
        }
        let svg = code.svg(moduleSize: 8, quietZone: 4, title: req.t("menu_game.lobby.qr_alt", ["url": joinURL]))
        return .svg(svg, cacheControl: "private, max-age=3600")
    }

    func groupGame(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        if let redirect = onboardingRedirect(req, device) { return redirect }
        switch try await groupOrRedirect(req) {
        case .redirect(let redirect): return redirect
        case .found(let group):
            if group.isClosed { return Layout.redirect(to: "/play/groups/\(group.pin)/result") }
            return gamePage(req, device: device, mode: "group", pin: group.pin)
        }
    }

    func waitingRoom(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        let group: MenuGroup
        switch try await groupOrRedirect(req) {
        case .found(let found): group = found
        case .redirect(let redirect): return redirect
        }
        if group.isClosed { return Layout.redirect(to: "/play/groups/\(group.pin)/result") }
        let status = try await req.menuGame.status(of: group, device: device.token)
        let submitted = try await req.menuGame.hasSubmitted(device.token, to: group)
        let response = Layout.page(
            req, title: req.t("menu_game.wait.title"),
            extras: MenuGameViews.extras(req, tab: .together, scripts: [Self.script.wait]),
            main: .group(
                .section(
                    .class("card waiting-room"), .attribute(named: "aria-labelledby", value: "wait-title"),
                    .data(named: "pin", value: group.pin),
                    .p(.class("game-pin"), .text(req.t("menu_game.game.group_pin", ["pin": group.pin]))),
                    .h1(.id("wait-title"), .text(req.t("menu_game.wait.title"))),
                    .div(
                        .class("submission-count"), .attribute(named: "aria-live", value: "polite"),
                        .span(.class("count-number"), .id("submission-count"), .text(String(status.submissionCount))),
                        .span(.class("count-label"), .text(req.t("menu_game.wait.count_label")))
                    ),
                    .p(.class("live-status muted"), .id("live-status"), .text(req.t("menu_game.wait.connecting"))),
                    submitted ? .empty : .p(.class("notice"), .text(req.t("menu_game.wait.not_submitted"))),
                    status.isHost
                        ? .group(
                            .p(.class("muted"), .text(req.t("menu_game.wait.host_hint"))),
                            .button(.type(.button), .class("button primary wide"), .id("close-game"), .text(req.t("menu_game.wait.see_results")))
                        )
                        : .p(.class("muted"), .id("member-hint"), .text(req.t("menu_game.wait.member_hint"))),
                    .button(.type(.button), .class("button wide"), .id("restart-game"), .text("↺ " + req.t("menu_game.wait.restart")))
                ),
                MenuGameViews.config(req, device: device, extra: ["pin": group.pin, "isHost": status.isHost]),
                MenuGameViews.networkErrorView(req)
            )
        )
        return response
    }

    func groupResult(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        let group: MenuGroup
        switch try await groupOrRedirect(req) {
        case .found(let found): group = found
        case .redirect(let redirect): return redirect
        }
        guard let result = try req.menuGame.results(of: group) else {
            return Layout.redirect(to: "/play/groups/\(group.pin)/wait")
        }
        let response = resultPage(req, device: device, mode: "group", pin: group.pin, result: ResultResponse(result, language: req.language))
        // The game is over for this browser: reopening it goes home, not back to the waiting room.
        if MenuGameDevice.waitingPIN(req) == group.pin {
            response.cookies[MenuGameDevice.waitingCookie] = .expired
        }
        return response
    }

    /// The result screen: the script fills it from the group's frozen results (in the page) or
    /// from the solo game the browser just played (kept in its session storage).
    private func resultPage(_ req: Request, device: MenuGameDevice, mode: String, pin: String?, result: ResultResponse?) -> Response {
        var extra: [String: Any] = ["mode": mode, "pin": pin ?? ""]
        if let result, let data = try? JSONEncoder().encode(result), let object = try? JSONSerialization.jsonObject(with: data) {
            extra["result"] = object
        }
        let again = pin == nil ? "/play/solo/game" : "/play/together"
        let actions: Node<HTML.BodyContext> = .div(
            .class("result-actions"),
            .button(.type(.button), .class("button wide"), .id("next-rank"), .text(req.t("menu_game.result.next_rank", ["left": "2"]))),
            .a(.class("button primary wide"), .id("find-nearby"), .href("/map"), .text("📍 " + req.t("menu_game.result.find_nearby"))),
            .button(.type(.button), .class("button wide"), .id("share-result"), .text("🔗 " + req.t("menu_game.result.share"))),
            .p(.class("copy-status"), .id("share-status"), .attribute(named: "role", value: "status")),
            .a(.class("link-button"), .id("play-again"), .href(again), .text("↺ " + req.t("menu_game.result.again")))
        )
        let view: Node<HTML.BodyContext> = .section(
            .class("card result-view"), .id("result-view"), .data(named: "mode", value: mode),
            .attribute(named: "aria-labelledby", value: "result-name"),
            .p(.class("eyebrow"), .id("result-rank"), .text(req.t("menu_game.result.eyebrow"))),
            .div(.class("menu-image-frame"), .img(.id("result-image"), .alt(""), .width(320), .height(320), .src("/images/icon.svg"))),
            .h1(.class("result-name"), .id("result-name"), .attribute(named: "aria-live", value: "polite")),
            .ul(.class("keywords"), .id("result-keywords"), .attribute(named: "aria-label", value: req.t("menu_game.result.keywords"))),
            .p(.class("player-count muted"), .id("result-players"), .hidden(true)),
            .p(.class("result-missing notice"), .id("result-missing"), .hidden(true), .text(req.t("menu_game.result.missing"))),
            actions
        )
        let response = Layout.page(
            req, title: req.t("menu_game.result.title"),
            extras: MenuGameViews.extras(req, tab: pin == nil ? .solo : .together, scripts: [Self.script.result]),
            main: .group(
                view,
                MenuGameViews.config(req, device: device, extra: extra),
                MenuGameViews.networkErrorView(req)
            )
        )
        return response
    }

    // MARK: Settings

    func settings(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        let notice = req.query[String.self, at: "notice"].flatMap { ["saved", "feedback_sent"].contains($0) ? $0 : nil }
        return settingsPage(req, device: device, notice: notice, error: nil, feedback: nil)
    }

    private func settingsPage(_ req: Request, device: MenuGameDevice, notice: String?, error: AppError?, feedback: String?) -> Response {
        let current = req.language
        let response = Layout.page(
            req, title: req.t("menu_game.settings.title"), status: error?.status ?? .ok,
            extras: MenuGameViews.extras(req, tab: nil),
            main: .group(
                .h1(.text(req.t("menu_game.settings.title"))),
                notice.map { .p(.class("notice"), .attribute(named: "role", value: "status"), .text(req.t("menu_game.settings.\($0)"))) } ?? .empty,
                .section(
                    .class("card"), .id("dislikes-settings"), .attribute(named: "aria-labelledby", value: "dislikes-settings-title"),
                    .h2(.id("dislikes-settings-title"), .text(req.t("menu_game.disliked.title"))),
                    .p(.class("muted"), .text(req.t("menu_game.disliked.lead"))),
                    .form(
                        .action("/play/preferences"), .method(.post), .class("stack"),
                        Layout.csrfField(req),
                        .input(.type(.hidden), .name("next"), .value("/play/settings?notice=saved")),
                        MenuGameViews.dislikedTiles(req, selected: device.disliked),
                        .button(.type(.submit), .class("button primary wide"), .id("save-dislikes"), .text(req.t("menu_game.settings.save")))
                    )
                ),
                .section(
                    .class("card"), .attribute(named: "aria-labelledby", value: "language-settings-title"),
                    .h2(.id("language-settings-title"), .text(req.t("field.language"))),
                    .form(
                        .action("/language"), .method(.post), .class("stack"),
                        Layout.csrfField(req),
                        .input(.type(.hidden), .name("next"), .value("/play/settings")),
                        .label(.for("settings-language"), .class("visually-hidden"), .text(req.t("field.language"))),
                        .select(
                            .id("settings-language"), .attribute(named: "name", value: "language"),
                            .forEach(Language.allCases) { language in
                                .element(named: "option", nodes: [
                                    .attribute(named: "value", value: language.rawValue),
                                    language == current ? .attribute(named: "selected") : .empty,
                                    .text(Layout.languageName(language)),
                                ])
                            }
                        ),
                        .button(.type(.submit), .class("button"), .text(req.t("menu_game.settings.save")))
                    )
                ),
                .section(
                    .class("card"), .id("feedback"), .attribute(named: "aria-labelledby", value: "feedback-title"),
                    .h2(.id("feedback-title"), .text(req.t("menu_game.feedback.title"))),
                    .p(.class("muted"), .text(req.t("menu_game.feedback.lead"))),
                    Layout.formError(error.map { req.t($0.messageKey, $0.arguments) }),
                    .form(
                        .action("/play/feedback"), .method(.post), .class("stack"),
                        Layout.csrfField(req),
                        .label(.for("feedback-message"), .text(req.t("menu_game.feedback.label"))),
                        .textarea(.id("feedback-message"), .name("message"), .rows(4), .required(true),
                                  .attribute(named: "maxlength", value: String(MenuGameFeedback.maxLength)),
                                  .text(feedback ?? "")),
                        .button(.type(.submit), .class("button"), .id("send-feedback"), .text(req.t("menu_game.feedback.send")))
                    )
                ),
                .section(
                    .class("card"), .attribute(named: "aria-labelledby", value: "about-title"),
                    .h2(.id("about-title"), .text(req.t("menu_game.settings.about"))),
                    .dl(
                        .class("about-list"),
                        .dt(.text(req.t("menu_game.settings.version"))), .dd(.id("app-version"), .text(AppVersion.current)),
                        .dt(.text(req.t("menu_game.settings.licenses"))), .dd(.a(.href("/licenses"), .text(req.t("menu_game.settings.licenses_link"))))
                    )
                )
            )
        )
        return response
    }

    struct FeedbackForm: Content { var message: String? }

    func sendFeedback(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        let message = try req.content.decode(FeedbackForm.self).message ?? ""
        do {
            try await req.application.feedbackLimiter.withSlot(req.clientAddress) {
                try await req.menuGame.leaveFeedback(message, userID: req.auth.get(User.self)?.id, language: req.language)
            }
        } catch let error as AppError where error.status.code < 500 {
            let response = settingsPage(req, device: device, notice: nil, error: error, feedback: message)
            response.headers.add(contentsOf: error.headers)
            return response
        }
        return Layout.redirect(to: "/play/settings?notice=feedback_sent#feedback")
    }

    /// Administrators read the notes here, newest first, a page at a time.
    func feedbackInbox(req: Request) async throws -> Response {
        guard let user = req.auth.get(User.self) else { return Layout.redirect(to: "/login?next=/play/feedback") }
        guard user.role == .admin else { throw AppError.forbidden }
        let page = try PageRequest(from: req)
        let (notes, next) = try await MenuGameFeedback.query(on: req.db).paginate(newestFirst: \.$createdAt, page)
        let formatter = ISO8601DateFormatter()
        let list: Node<HTML.BodyContext> = notes.isEmpty
            ? .p(.class("muted"), .text(req.t("menu_game.feedback.inbox_empty")))
            : .ul(
                .class("feedback-list"),
                .forEach(notes) { note in
                    .li(
                        .p(.class("feedback-message"), .text(note.message)),
                        .p(.class("muted"), .text("\(note.createdAt.map(formatter.string(from:)) ?? "") · \(note.language)"))
                    )
                }
            )
        return Layout.page(
            req, title: req.t("menu_game.feedback.inbox"),
            extras: MenuGameViews.extras(req, tab: nil),
            main: .section(
                .class("card"),
                .h1(.text(req.t("menu_game.feedback.inbox"))),
                list,
                next.map { .a(.class("button"), .href("/play/feedback?cursor=\($0)"), .text(req.t("menu_game.feedback.older"))) } ?? .empty
            )
        )
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
