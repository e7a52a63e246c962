import Fluent
import Vapor

/// `/api/v1/menu-game/*`: menus, solo games, groups and their live socket.
struct MenuGameAPI: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let game = routes.grouped("api", "v1", "menu-game")
        game.get("menus", use: listMenus)
        game.get("menus", "random", use: randomMenu)
        game.get("menus", ":menu", use: readMenu)
        game.post("menus", use: createMenu)
        game.patch("menus", ":menu", use: updateMenu)
        game.delete("menus", ":menu", use: retireMenu)
        game.post("solo", use: solo)
        game.post("groups", use: createGroup)
        game.get("groups", ":pin", use: groupStatus)
        game.put("groups", ":pin", "submission", use: submit)
        game.delete("groups", ":pin", "submission", use: cancel)
        game.post("groups", ":pin", "close", use: close)
        game.get("groups", ":pin", "results", use: results)
        game.get("groups", ":pin", "live", use: live)
    }

    // MARK: Menus

    func listMenus(req: Request) async throws -> Page<MenuResponse> {
        let page = try PageRequest(from: req)
        let (records, next) = try await MenuRecord.query(on: req.db).filter(\.$retiredAt == nil)
            .paginate(newestFirst: \.$createdAt, page)
        let game = req.menuGame
        return Page(items: records.map { MenuResponse($0.menu, imageURL: game.imageURL(for: $0.menu), language: req.language) }, nextCursor: next)
    }

    func randomMenu(req: Request) async throws -> MenuResponse {
        let game = req.menuGame
        let menu = try await game.randomMenu(device: try optionalDevice(req))
        return MenuResponse(menu, imageURL: game.imageURL(for: menu), language: req.language)
    }

    func readMenu(req: Request) async throws -> MenuResponse {
        let record = try await findMenu(req)
        guard record.retiredAt == nil else { throw AppError.notFound("menu_not_found") }
        return MenuResponse(record.menu, imageURL: req.menuGame.imageURL(for: record.menu), language: req.language)
    }

    /// What admins send to add or change a menu.
    struct MenuInput: Content {
        var id: String?
        var name: Menu.Names?
        var emoji: String?
        var nations: [Nation]?
        var flavors: [Flavor]?
        var rice: Bool?
        var noodle: Bool?
        var soup: Bool?
        var healthy: Bool?
        var instant: Bool?
        var alcohol: Bool?
        var expense: Expense?
        var imageURL: String?
    }

    func createMenu(req: Request) async throws -> Response {
        _ = try req.requireAdmin()
        let input = try req.decodeJSON(MenuInput.self)
        func required<T>(_ value: T?, _ field: String) throws -> T {
            guard let value else { throw AppError.badRequest("missing_field", ["field": field]) }
            return value
        }
        let slug = try required(input.id, "id"), name = try required(input.name, "name")
        let emoji = try required(input.emoji, "emoji"), nations = try required(input.nations, "nations")
        let menu = Menu(id: slug, name: name, emoji: emoji, nations: Set(nations), flavors: Set(input.flavors ?? []),
                        rice: input.rice ?? false, noodle: input.noodle ?? false, soup: input.soup ?? false,
                        healthy: input.healthy ?? false, instant: input.instant ?? false, alcohol: input.alcohol ?? false,
                        expense: input.expense)
        try Self.validate(menu, imageURL: input.imageURL)
        let record: MenuRecord
        if let existing = try await MenuRecord.query(on: req.db).filter(\.$slug == slug).first() {
            // A retired menu's id is taken by its past results; adding it again brings it back.
            guard existing.retiredAt != nil else { throw AppError.conflict("menu_exists") }
            record = existing
            record.apply(menu)
            record.imageURL = input.imageURL.flatMap { $0.isEmpty ? nil : $0 }
            record.retiredAt = nil
        } else {
            record = MenuRecord(menu, imageURL: input.imageURL)
        }
        record.editedByAdmin = true
        do {
            try await record.save(on: req.db)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            throw AppError.conflict("menu_exists")
        }
        try await req.application.menuCatalog.reload(from: req.db)
        let response = MenuResponse(menu, imageURL: req.menuGame.imageURL(for: menu), language: req.language)
        return try await response.encodeResponse(status: .created, for: req)
    }

    func updateMenu(req: Request) async throws -> MenuResponse {
        _ = try req.requireAdmin()
        let input = try req.decodeJSON(MenuInput.self)
        let record = try await findMenu(req)
        guard record.retiredAt == nil else { throw AppError.notFound("menu_not_found") }
        if let id = input.id, id != record.slug { throw AppError.invalid("menu_id_immutable") }
        var menu = record.menu
        if let name = input.name { menu.name = name }
        if let emoji = input.emoji { menu.emoji = emoji }
        if let nations = input.nations { menu.nations = Set(nations) }
        if let flavors = input.flavors { menu.flavors = Set(flavors) }
        if let rice = input.rice { menu.rice = rice }
        if let noodle = input.noodle { menu.noodle = noodle }
        if let soup = input.soup { menu.soup = soup }
        if let healthy = input.healthy { menu.healthy = healthy }
        if let instant = input.instant { menu.instant = instant }
        if let alcohol = input.alcohol { menu.alcohol = alcohol }
        if input.expense != nil { menu.expense = input.expense }
        try Self.validate(menu, imageURL: input.imageURL)
        record.apply(menu)
        if let imageURL = input.imageURL { record.imageURL = imageURL.isEmpty ? nil : imageURL }
        record.editedByAdmin = true
        try await record.save(on: req.db)
        try await req.application.menuCatalog.reload(from: req.db)
        return MenuResponse(menu, imageURL: req.menuGame.imageURL(for: menu), language: req.language)
    }

    /// Retires a menu: it leaves games and lists, but past results that named it stay intact.
    /// A retired menu is gone for every route (404) until it is added again.
    func retireMenu(req: Request) async throws -> HTTPStatus {
        _ = try req.requireAdmin()
        let record = try await findMenu(req)
        guard record.retiredAt == nil else { throw AppError.notFound("menu_not_found") }
        record.retiredAt = Date()
        record.editedByAdmin = true
        try await record.save(on: req.db)
        try await req.application.menuCatalog.reload(from: req.db)
        return .noContent
    }

    static func validate(_ menu: Menu, imageURL: String?) throws {
        guard menu.id.count <= 60, !menu.id.isEmpty,
              menu.id.allSatisfy({ ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }),
              !menu.id.hasPrefix("-")
        else { throw AppError.invalid("invalid_menu_id") }
        for name in [menu.name.ko, menu.name.en, menu.name.ja] {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, trimmed.fits(characters: 40, bytes: 160), !trimmed.contains("<") else { throw AppError.invalid("invalid_menu_name") }
        }
        guard !menu.emoji.isEmpty, menu.emoji.fits(characters: 2, bytes: 32) else { throw AppError.invalid("invalid_emoji") }
        guard !menu.nations.isEmpty else { throw AppError.invalid("missing_nation") }
        if let imageURL, !imageURL.isEmpty {
            guard imageURL.hasPrefix("https://") || imageURL.hasPrefix("http://") || imageURL.hasPrefix("/"), imageURL.utf8.count <= 500,
                  !imageURL.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control || "\"'<>\\".unicodeScalars.contains($0) })
            else {
                throw AppError.invalid("invalid_image_url")
            }
        }
    }

    private func findMenu(_ req: Request) async throws -> MenuRecord {
        guard let slug = req.parameters.get("menu"),
              let record = try await MenuRecord.query(on: req.db).filter(\.$slug == slug).first()
        else { throw AppError.notFound("menu_not_found") }
        return record
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
        let group = try await game.createGroup(hostToken: device, hostUserID: req.auth.get(User.self)?.id)
        let status = try await game.status(of: group, device: device)
        return try await GroupStatusResponse(status).encodeResponse(status: .created, for: req)
    }

    /// The waiting room; polled by clients whose socket is down, so it is served from memory while fresh.
    func groupStatus(req: Request) async throws -> GroupStatusResponse {
        GroupStatusResponse(try await req.menuGroupStatusFromPath(device: try optionalDevice(req)))
    }

    func submit(req: Request) async throws -> GroupStatusResponse {
        let device = try requireDevice(req)
        let choice = try req.decodeJSON(SubmissionBody.self).choice()
        let group = try await req.menuGroupFromPath()
        let game = req.menuGame
        guard try await game.submit(choice, to: group, playerToken: device) == .recorded else {
            throw AppError.conflict("game_closed")
        }
        return GroupStatusResponse(try await game.status(of: group, device: device))
    }

    func cancel(req: Request) async throws -> GroupStatusResponse {
        let device = try requireDevice(req)
        let group = try await req.menuGroupFromPath()
        let game = req.menuGame
        guard try await game.cancel(in: group, playerToken: device) == .recorded else {
            throw AppError.conflict("game_closed")
        }
        return GroupStatusResponse(try await game.status(of: group, device: device))
    }

    /// Only the host closes the game.
    func close(req: Request) async throws -> ResultResponse {
        let device = try requireDevice(req)
        let group = try await req.menuGroupFromPath()
        let game = req.menuGame
        guard game.isHost(device, of: group) else { throw AppError(.forbidden, "not_host") }
        return ResultResponse(try await game.close(group), language: req.language)
    }

    func results(req: Request) async throws -> ResultResponse {
        let group = try await req.menuGroupFromPath()
        guard let result = try req.menuGame.results(of: group) else { throw AppError.conflict("game_not_closed") }
        return ResultResponse(result, language: req.language)
    }

    // MARK: Live

    /// Upgrades to a WebSocket that sends `{"type":"state",…}` at once, then `submissionCount`
    /// on every submit or cancel and `closed` when the host closes. An unknown PIN is an
    /// ordinary 404 before any upgrade. Clients that cannot keep a socket poll `GET groups/:pin`.
    func live(req: Request) async throws -> Response {
        let group = try await req.menuGroupFromPath()
        let device = req.query[String.self, at: "token"]
        let topic = MenuGameService.topic(group.pin)
        return try req.liveSocket { req, socket in
            // Subscribe first, then read the state: a change in between is buffered and sent
            // after the state, never lost.
            let stream = req.application.events.subscribe(to: topic)
            if let status = try? await req.menuGame.status(of: group, device: device) {
                try? await socket.send(#"{"type":"state","submissionCount":\#(status.submissionCount),"isHost":\#(status.isHost),"isClosed":\#(status.isClosed)}"#)
            }
            let forwarding = Task {
                for await message in stream { try? await socket.send(message) }
            }
            socket.onClose.whenComplete { _ in forwarding.cancel() }
        }
    }

    // MARK: Helpers

    private func requireDevice(_ req: Request) throws -> String {
        try DeviceToken.validate(req.headers.first(name: DeviceToken.header) ?? req.query[String.self, at: "token"])
    }

    private func optionalDevice(_ req: Request) throws -> String? {
        guard let raw = req.headers.first(name: DeviceToken.header) else { return nil }
        return try DeviceToken.validate(raw)
    }
}
