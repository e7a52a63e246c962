import Accounts
import Fluent
import Media
import Platform
import Plot
import Vapor

/// The together tab, a group's lobby (PIN, link, QR code), its game, live waiting room and result.
extension MenuGamePages {
    // MARK: Together

    func togetherTab(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        if let redirect = onboardingRedirect(req, device) { return redirect }
        if let redirect = try await waitingRedirect(req, device) { return redirect }
        let error = req.query[String.self, at: "error"] == "group_not_found" ? AppError.notFound("group_not_found") : nil
        return togetherPage(req, device: device, pin: req.query[String.self, at: "pin"], error: error)
    }

    func togetherPage(_ req: Request, device: MenuGameDevice, pin: String?, error: AppError?) -> Response {
        let message = error.map { req.t($0.messageKey, $0.arguments) }
        let typed = String((pin ?? "").prefix(6).filter(\.isNumber))
        return MenuGamePages.page(req, device: device, keep: error == nil) {
            Layout.PageParts(
                title: req.t("menu_game.tabs.together"), status: error?.status ?? .ok,
                extras: MenuGamePages.extras(req, tab: .together, scripts: [Self.script.together]),
                main: .group(
                    .section(
                        .class("card tab-intro"), .ariaLabelledBy("together-title"),
                        .span(.class("intro-emoji"), .ariaHidden(true), .text("👥")),
                        .h1(.id("together-title"), .text(req.t("menu_game.tabs.together"))),
                        .p(.class("lead"), .text(req.t("menu_game.together.intro"))),
                        dislikedSummary(req, device),
                        .form(
                            .action(PlayPath.create()), .method(.post),
                            Layout.csrfField(req),
                            .button(.type(.submit), .class("button primary wide"), .id("create-group"), .text(req.t("menu_game.together.create")))
                        )
                    ),
                    .section(
                        .class("card"), .ariaLabelledBy("join-title"),
                        .h2(.id("join-title"), .text(req.t("menu_game.together.join_title"))),
                        .form(
                            .action(PlayPath.join()), .method(.post), .class("stack join-form"), .id("join-form"), .novalidate(),
                            Layout.csrfField(req),
                            .div(
                                .class("field"),
                                .label(.for("pin"), .text(req.t("menu_game.together.pin_label"))),
                                .selfClosedElement(named: "input", attributes: [
                                    .id("pin"), .name("pin"), .type(.text), .value(typed), .required(true),
                                    .attribute(named: "inputmode", value: "numeric"), .attribute(named: "pattern", value: "[1-9][0-9]{5}"),
                                    .attribute(named: "maxlength", value: "6"), .attribute(named: "autocomplete", value: "off"),
                                    .ariaDescribedBy("pin-error"),
                                    message == nil ? .empty : .attribute(named: "aria-invalid", value: "true"),
                                ]),
                                .p(.class("field-error"), .id("pin-error"), .role("alert"),
                                   message == nil ? .hidden(true) : .empty, .text(message ?? ""))
                            ),
                            .button(.type(.submit), .class("button wide"), .id("join-group"), .text(req.t("menu_game.together.join")))
                        )
                    ),
                    MenuGamePages.config(req, device: device)
                )
            )
        }
    }

    func createGroup(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        let group = try await req.createMenuGroup(hostToken: device.token, hostUserID: req.auth.get(User.self)?.id)
        let response = Layout.redirect(to: PlayPath.group(group.pin))
        return response
    }

    struct JoinForm: Content { package var pin: String? }

    /// A known PIN goes to the game; a wrong one shows the together tab again with the error
    /// beside the field and the typed PIN kept.
    func joinGroup(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        let pin = try req.content.decode(JoinForm.self).pin ?? ""
        do {
            let group = try await req.menuGroup(pin: pin)
            return Layout.redirect(to: PlayPath.groupGame(group.pin))
        } catch let error as AppError where error.status == .notFound {
            return togetherPage(req, device: device, pin: pin, error: error)
        }
    }

    /// `/join/{pin}`: the link the host shares (and the QR code holds). Only digits go into the
    /// redirect, whatever the path held.
    func joinLink(req: Request) async throws -> Response {
        Layout.redirect(to: PlayPath.group(String((req.parameters.get("pin") ?? "").filter(\.isNumber).prefix(6))))
    }

    // MARK: A group

    /// What a page found for the PIN in the path, or where an unknown PIN sends the browser: the
    /// together tab, with the error shown there.
    enum GroupLookup<Found> { case found(Found), redirect(Response) }

    func lookUpOrRedirect<Found>(_ req: Request, _ find: () async throws -> Found) async throws -> GroupLookup<Found> {
        do {
            return .found(try await find())
        } catch let error as AppError where error.status == .notFound {
            let digits = String((req.parameters.get("pin") ?? "").prefix(6).filter(\.isNumber))
            return .redirect(Layout.redirect(to: PlayPath.together() + "?error=group_not_found&pin=\(digits)"))
        }
    }

    /// The group named in the path (its row: for the result page).
    func groupOrRedirect(_ req: Request) async throws -> GroupLookup<GroupRow> {
        try await lookUpOrRedirect(req) { try await req.menuGroup(pin: req.parameters.get("pin") ?? "") }
    }

    /// The waiting-room state of the group in the path, as its polls read it (from memory while
    /// fresh, `MenuGroupStateCache`): what the lobby, game and waiting pages show needs no row.
    func statusOrRedirect(_ req: Request, device: MenuGameDevice) async throws -> GroupLookup<GroupStatus> {
        try await lookUpOrRedirect(req) { try await req.menuGroupStatusFromPath(device: device.token) }
    }

    /// The group in the path after this browser entered its room (opening the lobby, the game
    /// or the waiting room is joining: the room lists you from then on), as its polls read it.
    /// Only a newcomer (or a changed account) writes; a page seen again reads the state from
    /// memory like a poll (`MenuGroupStateCache`).
    func enterRoomOrRedirect(_ req: Request, device: MenuGameDevice) async throws -> GroupLookup<GroupStatus> {
        let account = req.auth.get(User.self)?.id
        switch try await statusOrRedirect(req, device: device) {
        case .redirect(let redirect): return .redirect(redirect)
        case .found(let status) where status.isClosed || status.hasInRoom(account: account) || status.roomIsFullWithoutYou: return .found(status)
        case .found: break
        }
        switch try await groupOrRedirect(req) {
        case .redirect(let redirect): return .redirect(redirect)
        case .found(let group):
            // A closed group takes nobody in; the page sends the browser to its result.
            _ = try await req.menuGame.join(group, playerToken: device.token, account: account)
            return try await statusOrRedirect(req, device: device)
        }
    }

    func lobby(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        if let redirect = onboardingRedirect(req, device) { return redirect }
        let group: GroupStatus
        switch try await enterRoomOrRedirect(req, device: device) {
        case .found(let found): group = found
        case .redirect(let redirect): return redirect
        }
        if group.isClosed { return Layout.redirect(to: PlayPath.groupResult(group.pin)) }
        // Made again only when the room changed (someone joined, answered, named themself).
        return MenuGamePages.roomPage(req, device: device, shown: group) { status in
        let group = status
        let joinURL = Self.joinURL(group.pin, req)
        var extras = MenuGamePages.extras(req, tab: .together, scripts: [Self.script.lobby])
        extras.preview = Self.invitation(req, pin: group.pin)
        return Layout.PageParts(
            title: req.t("menu_game.lobby.title"), extras: extras,
            main: .group(
                .section(
                    .class("card lobby"), .ariaLabelledBy("lobby-title"),
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
                    .p(.class("copy-status"), .id("copy-status"), .role("status")),
                    .img(.class("qr-code"), .src(PlayPath.groupQRCode(group.pin)), .alt(req.t("menu_game.lobby.qr_alt", ["url": joinURL])),
                         .width(232), .height(232)),
                    .p(.class("join-url"), .text(joinURL)),
                    .p(.class("muted"), .text(req.t(status.isHost ? "menu_game.lobby.host_hint" : "menu_game.lobby.member_hint"))),
                    .a(.class("button primary wide"), .id("start-group-game"), .href(PlayPath.groupGame(group.pin)), .text(req.t("menu_game.game.start"))),
                    MenuGamePages.room(req, status: status)
                ),
                MenuGamePages.config(req, device: device, extra: ["pin": group.pin, "shareURL": joinURL, "you": status.you?.uuidString ?? ""])
            )
        )
        }
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
        switch try await enterRoomOrRedirect(req, device: device) {
        case .redirect(let redirect): return redirect
        case .found(let group):
            if group.isClosed { return Layout.redirect(to: PlayPath.groupResult(group.pin)) }
            return gamePage(req, device: device, mode: "group", pin: group.pin)
        }
    }

    func waitingRoom(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        let status: GroupStatus
        switch try await enterRoomOrRedirect(req, device: device) {
        case .found(let found): status = found
        case .redirect(let redirect): return redirect
        }
        let group = status
        if group.isClosed { return Layout.redirect(to: PlayPath.groupResult(group.pin)) }
        // The room's state (at most a second behind another instance's writes) says when this
        // device answered; only when it says not is the database asked.
        let answeredInRoom = status.you.flatMap { you in status.members.first { $0.id == you } }?.answered == true
        let submitted = answeredInRoom ? true : try await req.menuGame.hasSubmitted(device.token, toGroupWithPIN: group.pin)
        // The host closes from here: the close names their account (when signed in), so their
        // inbox is not told of a result they just saw. Their id and token are this request's own.
        let viewer = status.isHost ? try await req.browserAPIViewer() : nil
        let parts = viewer.map { [Layout.jsonStringContent($0.me), Layout.jsonStringContent($0.accessToken)] } ?? []
        return MenuGamePages.roomPage(req, device: device, shown: WaitShown(status: status, submitted: submitted, hostSignedIn: viewer != nil),
                                      parts: parts) { shown in
        let status = shown.status, group = shown.status, submitted = shown.submitted
        var config: [String: Any] = ["pin": group.pin, "isHost": status.isHost, "you": status.you?.uuidString ?? ""]
        if status.isHost {
            config["me"] = shown.hostSignedIn ? Layout.readerPartMarker(1) : NSNull()
            config["accessToken"] = shown.hostSignedIn ? Layout.readerPartMarker(2) : NSNull()
        }
        return Layout.PageParts(
            title: req.t("menu_game.wait.title"),
            extras: MenuGamePages.extras(req, tab: .together, scripts: [Self.script.wait]),
            main: .group(
                .section(
                    .class("card waiting-room"), .ariaLabelledBy("wait-title"),
                    .data(named: "pin", value: group.pin),
                    .p(.class("game-pin"), .text(req.t("menu_game.game.group_pin", ["pin": group.pin]))),
                    .h1(.id("wait-title"), .text(req.t("menu_game.wait.title"))),
                    .div(
                        .class("submission-count"), .ariaLive(.polite),
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
                    .button(.type(.button), .class("button wide"), .id("restart-game"), .text("↺ " + req.t("menu_game.wait.restart"))),
                    MenuGamePages.room(req, status: status)
                ),
                MenuGamePages.config(req, device: device, extra: config)
            )
        )
        }
    }

    private struct WaitShown: Hashable, Sendable {
        let status: GroupStatus
        let submitted: Bool
        let hostSignedIn: Bool
    }

    func groupResult(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        let group: GroupRow
        switch try await groupOrRedirect(req) {
        case .found(let found): group = found
        case .redirect(let redirect): return redirect
        }
        guard group.isClosed, group.result != nil else { return Layout.redirect(to: PlayPath.groupWait(group.pin)) }
        // A closed group's result never changes: encoded once per language, by the group's id
        // (a PIN is used again by a later group). A stored result that does not read is an error,
        // never kept as an empty result.
        let service = req.menuGame, language = req.language
        let result = try req.application.pageFragments.json("menu_game.result.\(group.id)", language: language) {
            try service.results(of: group).map { ResultResponse($0, language: language) }
        }
        let response = resultPage(req, device: device, mode: "group", pin: group.pin, result: result, group: group.id)
        if let user = req.auth.get(User.self) { try await service.resultSeen(group, by: user.requireID()) }
        // The game is over for this browser: reopening it goes home, not back to the waiting room.
        if MenuGameDevice.waitingPIN(req) == group.pin {
            response.cookies[MenuGameDevice.waitingCookie] = .expired
        }
        return response
    }

    /// Places to eat the menu near the person (`GET …/menus/{menu}/nearby`), filled by the script
    /// once the browser may tell where they are: at once when it already may, else on the button.
    static func nearbyPlaces(_ req: Request) -> Node<HTML.BodyContext> {
        let locate: Node<HTML.BodyContext> = .button(.type(.button), .class("button wide"), .id("nearby-locate"),
                                                     .text("🧭 " + req.t("menu_game.nearby.locate")))
        let title: Node<HTML.BodyContext> = .h2(.class("nearby-places-title"), .id("nearby-places-title"), .text(req.t("menu_game.nearby.title")))
        let empty: Node<HTML.BodyContext> = .p(.class("nearby-places-empty"), .id("nearby-places-empty"), .hidden(true), .text(req.t("menu_game.nearby.none")))
        // The places' pins, where the map library loaded (else the list alone).
        let map: Node<HTML.BodyContext> = .div(.class("nearby-map"), .id("nearby-map"), .hidden(true), .ariaLabel(req.t("menu_game.nearby.map")))
        let section: Node<HTML.BodyContext> = .section(.class("nearby-places-section"), .id("nearby-places-section"), .hidden(true),
                                                       .ariaLabelledBy("nearby-places-title"), title, map, .ol(.class("nearby-places"), .id("nearby-places")), empty)
        // Why the position could not be had (denied, failed), or that it is being looked for.
        let status: Node<HTML.BodyContext> = .p(.class("nearby-status muted"), .id("nearby-status"), .role("status"))
        return .group(locate, status, section)
    }

    /// The map library's files for a page that pins places near the person.
    static func withMapLibrary(_ req: Request, _ extras: PageExtras) -> PageExtras {
        var extras = extras
        extras.vendorStylesheets = req.application.mapLibrary.stylesheets
        extras.vendorScripts = req.application.mapLibrary.scripts
        return extras
    }

    /// `config.map` for the places' pins.
    static func nearbyMap(_ req: Request) -> [String: Any] {
        req.application.mapLibrary.configValue(center: MapLibrary.defaultCenter, zoom: 15)
    }

    /// The result screen: the script fills it from the group's frozen results (in the page) or
    /// from the solo game the browser just played (kept in its session storage).
    /// Kept whole (`MenuGamePages.page`); a group's by its id too, since a later group may reuse its PIN.
    func resultPage(_ req: Request, device: MenuGameDevice, mode: String, pin: String?, result: PageConfig.Encoded?, group: UUID? = nil) -> Response {
        // Made only when the page is not kept (per language, device choices and group).
        MenuGamePages.page(req, device: device, keep: true, variant: group?.uuidString ?? "") {
            var extra: [String: Any] = ["mode": mode, "pin": pin ?? ""]
            if let result { extra["result"] = result }
            let again = pin == nil ? PlayPath.soloGame() : PlayPath.together()
            let actions: Node<HTML.BodyContext> = .div(
                .class("result-actions"),
                .button(.type(.button), .class("button wide"), .id("next-rank"), .text(req.t("menu_game.result.next_rank", ["left": "2"]))),
                .a(.class("button primary wide"), .id("find-nearby"), .href("/map"), .text("📍 " + req.t("menu_game.result.find_nearby"))),
                ElsewhereMaps.links(req, query: nil),
                Self.nearbyPlaces(req),
                .button(.type(.button), .class("button wide"), .id("share-result"), .text("🔗 " + req.t("menu_game.result.share"))),
                .p(.class("copy-status"), .id("share-status"), .role("status")),
                .a(.class("link-button"), .id("play-again"), .href(again), .text("↺ " + req.t("menu_game.result.again")))
            )
            let view: Node<HTML.BodyContext> = .section(
                .class("card result-view"), .id("result-view"), .data(named: "mode", value: mode),
                .ariaLabelledBy("result-name"),
                .p(.class("eyebrow"), .id("result-rank"), .text(req.t("menu_game.result.eyebrow"))),
                .div(.class("menu-image-frame"), .img(.id("result-image"), .alt(""), .width(320), .height(320), .src("/images/icon.svg"))),
                .h1(.class("result-name"), .id("result-name"), .ariaLive(.polite)),
                .ul(.class("keywords"), .id("result-keywords"), .attribute(named: "aria-label", value: req.t("menu_game.result.keywords"))),
                .p(.class("player-count muted"), .id("result-players"), .hidden(true)),
                .p(.class("result-missing notice"), .id("result-missing"), .hidden(true), .text(req.t("menu_game.result.missing"))),
                actions
            )
            extra["map"] = Self.nearbyMap(req)
            return Layout.PageParts(
                title: req.t("menu_game.result.title"),
                extras: Self.withMapLibrary(req, MenuGamePages.extras(req, tab: pin == nil ? .solo : .together, scripts: [Self.script.result])),
                main: .group(
                    view,
                    MenuGamePages.config(req, device: device, extra: extra)
                )
            )
        }
    }
}
