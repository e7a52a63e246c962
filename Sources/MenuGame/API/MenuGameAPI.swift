import Accounts
import Fluent
import Platform
import Vapor

/// `/api/v1/menu-game/*`: menus, solo games, groups and their live socket.
struct MenuGameAPI: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let game = routes.grouped("api", "v1", "menu-game")
        game.get("menus", use: listMenus)
        game.get("menus", "random", use: randomMenu)
        game.get("menus", ":menu", use: readMenu)
        game.get("menus", ":menu", "nearby", use: nearby)
        game.post("menus", use: createMenu)
        game.patch("menus", ":menu", use: updateMenu)
        game.delete("menus", ":menu", use: retireMenu)
        game.post("solo", use: solo)
        game.post("groups", use: createGroup)
        game.get("groups", ":pin", use: groupStatus)
        game.put("groups", ":pin", "member", use: join)
        game.put("groups", ":pin", "submission", use: submit)
        game.delete("groups", ":pin", "submission", use: cancel)
        game.post("groups", ":pin", "close", use: close)
        game.get("groups", ":pin", "results", use: results)
        game.get("groups", ":pin", "live", use: live)
    }

    // MARK: Menus

    func listMenus(req: Request) async throws -> CursorPage<MenuResponse> {
        let page = try CursorPageRequest(from: req)
        let game = req.menuGame
        let (rows, next) = try await game.menuStore.activePage(page)
        return CursorPage(items: rows.map { MenuResponse($0.menu, imageURL: game.imageURL(for: $0.menu), language: req.language) }, nextCursor: next)
    }

    func randomMenu(req: Request) async throws -> MenuResponse {
        let game = req.menuGame
        let menu = try await game.randomMenu(device: try optionalDevice(req))
        return MenuResponse(menu, imageURL: game.imageURL(for: menu), language: req.language)
    }

    func readMenu(req: Request) async throws -> MenuResponse {
        let menu = try await req.menuGame.menu(slug: req.parameters.get("menu") ?? "")
        return MenuResponse(menu, imageURL: req.menuGame.imageURL(for: menu), language: req.language)
    }

    /// The places to eat a menu at near `lat`,`lon`, nearest first (ours first for a burger), and
    /// the map apps' searches for it.
    func nearby(req: Request) async throws -> NearbyResponse {
        let lat = try req.queryNumber("lat"), lon = try req.queryNumber("lon")
        let point: Coordinate
        do { point = try Coordinate(lat: lat, lon: lon) } catch { throw AppError.invalid("invalid_coordinate") }
        let game = req.menuGame
        let menu = try await game.menu(slug: req.parameters.get("menu") ?? "")
        let list = await game.nearby(menu, at: point, network: req.clientNetwork)
        return NearbyResponse(menu: menu.id, name: menu.name[req.language], places: list.places, kakao: list.kakao,
                              links: .init(kakaoMap: ElsewhereMaps.kakaoSearch(menu.name.ko), naverMap: ElsewhereMaps.naverSearch(menu.name.ko)))
    }

    func createMenu(req: Request) async throws -> Response {
        let admin = try req.requireAdmin()
        let input = try req.decodeJSON(MenuInput.self)
        let menu = try await req.menuGame.addMenu(try input.newMenu(), imageURL: input.imageURL, by: admin.id)
        let response = MenuResponse(menu, imageURL: req.menuGame.imageURL(for: menu), language: req.language)
        return try await response.encodeResponse(status: .created, for: req)
    }

    func updateMenu(req: Request) async throws -> MenuResponse {
        let admin = try req.requireAdmin()
        let input = try req.decodeJSON(MenuInput.self)
        let menu = try await req.menuGame.changeMenu(slug: req.parameters.get("menu") ?? "", imageURL: input.imageURL, by: admin.id) { try input.apply(to: &$0) }
        return MenuResponse(menu, imageURL: req.menuGame.imageURL(for: menu), language: req.language)
    }

    /// Retires a menu: it leaves games and lists, but past results that named it stay intact.
    func retireMenu(req: Request) async throws -> HTTPStatus {
        let admin = try req.requireAdmin()
        try await req.menuGame.retireMenu(slug: req.parameters.get("menu") ?? "", by: admin.id)
        return .noContent
    }

    // MARK: Solo

    struct SoloBody: Content {
        let gameAnswer: GameAnswer
        let dislikedFoods: [Flavor]?
        let recommender: RecommenderVersion?
    }

    func solo(req: Request) async throws -> ResultResponse {
        let body = try req.decodeJSON(SoloBody.self)
        let choice = try SubmissionBody(gameAnswer: body.gameAnswer, dislikedFoods: body.dislikedFoods).choice()
        let result = try await req.menuGame.solo(choice, device: try optionalDevice(req), version: body.recommender ?? .v1)
        return ResultResponse(result, language: req.language)
    }

    // MARK: Groups

    func createGroup(req: Request) async throws -> Response {
        let device = try requireDevice(req)
        let game = req.menuGame
        let group = try await req.createMenuGroup(hostToken: device, hostUserID: req.auth.get(User.self)?.id)
        let status = try await game.status(of: group, device: device)
        return try await GroupStatusResponse(status).encodeResponse(status: .created, for: req)
    }

    /// The waiting room; polled by clients whose socket is down, so it is served from memory while fresh.
    func groupStatus(req: Request) async throws -> GroupStatusResponse {
        GroupStatusResponse(try await req.menuGroupStatusFromPath(device: try optionalDevice(req)))
    }

    /// Enters the room (a page opening the lobby or the game), or renames a guest.
    func join(req: Request) async throws -> GroupStatusResponse {
        let device = try requireDevice(req)
        let body = try req.decodeJSON(JoinBody.self)
        let group = try await req.menuGroupFromPath()
        let game = req.menuGame
        // Each entry or new name is told to everyone in the room: a network gets a budget of them.
        let outcome = try await req.application.roomEntries.withSlot(req.clientNetwork) {
            try await game.join(group, playerToken: device, account: req.auth.get(User.self)?.id, guestName: body.guestName)
        }
        switch outcome {
        case .entered: return try await Self.stateAfterWrite(game, group, device: device)
        case .closed: throw AppError.conflict("game_closed")
        case .roomFull: throw AppError.conflict("room_full", ["max": String(MenuGameService.roomCapacity)])
        }
    }

    func submit(req: Request) async throws -> GroupStatusResponse {
        let device = try requireDevice(req)
        let choice = try req.decodeJSON(SubmissionBody.self).choice()
        let group = try await req.menuGroupFromPath()
        let game = req.menuGame
        guard try await game.submit(choice, to: group, playerToken: device, account: req.auth.get(User.self)?.id) == .recorded else {
            throw AppError.conflict("game_closed")
        }
        return try await Self.stateAfterWrite(game, group, device: device)
    }

    func cancel(req: Request) async throws -> GroupStatusResponse {
        let device = try requireDevice(req)
        let group = try await req.menuGroupFromPath()
        let game = req.menuGame
        guard try await game.cancel(in: group, playerToken: device) == .recorded else {
            throw AppError.conflict("game_closed")
        }
        return try await Self.stateAfterWrite(game, group, device: device)
    }

    /// Only the host closes the game.
    func close(req: Request) async throws -> ResultResponse {
        let device = try requireDevice(req)
        let group = try await req.menuGroupFromPath()
        let game = req.menuGame
        guard game.isHost(device, of: group) else { throw AppError(.forbidden, "not_host") }
        return ResultResponse(try await game.close(group, closedBy: req.auth.get(User.self)?.id), language: req.language)
    }

    func results(req: Request) async throws -> ResultResponse {
        let group = try await req.menuGroupFromPath()
        guard let result = try req.menuGame.results(of: group) else { throw AppError.conflict("game_not_closed") }
        return ResultResponse(result, language: req.language)
    }

    // MARK: Live

    /// Upgrades to a WebSocket that sends `{"type":"state",…}` at once, then `submissionCount`
    /// (with the room's `members`) on every join, submit or cancel and `closed` when the host closes. An unknown PIN is an
    /// ordinary 404 before any upgrade. Clients that cannot keep a socket poll `GET groups/:pin`.
    func live(req: Request) async throws -> Response {
        let group = try await req.menuGroupFromPath()
        let device = req.query[String.self, at: "token"]
        let topic = MenuGameService.topic(group.pin)
        return try req.liveSocket(feature: "menu_game") { req, socket, _ in
            // Subscribe first, then read the state: a change in between is buffered and sent
            // after the state, never lost. The state is a courtesy: if it cannot be read or sent,
            // the next change carries the count and the room, and pages poll while unsure.
            let stream = req.application.events.subscribe(to: topic)
            if let status = try? await req.menuGame.status(of: group, device: device),
               let state = try? JSONEncoder().encode(LiveState(status: GroupStatusResponse(status))) {
                try? await socket.send(String(decoding: state, as: UTF8.self))
            }
            req.forwardWhileSignedIn(stream, to: socket)
        }
    }

    // MARK: Helpers

    /// The room just after this request's write: from memory, which the write's announcement
    /// has just filled (`announceRoom`), else read.
    private static func stateAfterWrite(_ game: MenuGameService, _ group: GroupRow, device: String) async throws -> GroupStatusResponse {
        if let remembered = try await game.pollStatus(pin: group.pin, device: device) { return GroupStatusResponse(remembered) }
        return GroupStatusResponse(try await game.status(of: group, device: device))
    }

    private func requireDevice(_ req: Request) throws -> String {
        try DeviceToken.validate(req.headers.first(name: DeviceToken.header) ?? req.query[String.self, at: "token"])
    }

    private func optionalDevice(_ req: Request) throws -> String? {
        guard let raw = req.headers.first(name: DeviceToken.header) else { return nil }
        return try DeviceToken.validate(raw)
    }
}
