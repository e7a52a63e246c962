import MenuGame
import Notifications
import Platform
import Vapor

/// The routes the shipped 우리뭐먹지 iOS app calls, with its exact contracts: paths, JSON
/// literals as bodies, Korean names. Behaviour is the native API's (`MenuGameService`).
///
/// Differences the app relies on, kept on purpose: `GET /group/{pin}/gameresult` closes the game
/// without a token (the app's host sends none), and a submission after closing answers 200
/// without being counted (the app then shows the closed waiting room).
struct MenuGameCompatRoutes: RouteCollection {
    /// `ResultSubmission` of the app. `pinNumber` and `token` may be absent or null.
    struct ResultSubmission: Content {
        let gameAnswer: GameAnswer
        let dislikedFoods: [Flavor]?
        let pinNumber: String?
        let token: String?

        package enum CodingKeys: String, CodingKey { case gameAnswer, dislikedFoods, pinNumber, token }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            gameAnswer = try container.decode(GameAnswer.self, forKey: .gameAnswer)
            dislikedFoods = try container.decodeIfPresent([Flavor].self, forKey: .dislikedFoods)
            // The app sends the PIN as a string; accept a number too.
            if let text = try? container.decodeIfPresent(String.self, forKey: .pinNumber) {
                pinNumber = text
            } else {
                pinNumber = try container.decodeIfPresent(Int.self, forKey: .pinNumber).map(String.init)
            }
            token = try container.decodeIfPresent(String.self, forKey: .token)
        }

        func choice() throws -> PlayerChoice {
            try SubmissionBody(gameAnswer: gameAnswer, dislikedFoods: dislikedFoods).choice()
        }
    }

    struct RandomMenu: Content {
        let name: String
        let imageURL: String
    }

    struct CompatResult: Content {
        package struct Item: Content {
            package let name: String
            package let imageURL: String
            package let keywords: [String]
        }
        let menus: [Item]
        let playerCount: Int

        /// The app shows three: the winner and two "next rank" taps, each with a picture it can
        /// draw (JPEG: `UIImage(data:)` draws no SVG).
        init(_ result: GameResult, game: MenuGameService) {
            menus = result.menus.prefix(3).map { Item(name: $0.name.ko, imageURL: game.rasterImageURL(for: $0), keywords: $0.keywords) }
            playerCount = result.playerCount
        }
    }

    struct WaitState: Content {
        let submissionCount: Int
        let isHost: Bool
        let isGameClosed: Bool
    }

    func boot(routes: any RoutesBuilder) throws {
        routes.get("menu", "random", use: randomMenu)
        routes.post("group", use: createGroup)
        routes.post("group", "solo", use: solo)
        routes.get("group", ":pin", use: pinExists)
        routes.post("group", ":pin", use: submit)
        routes.put("group", ":pin", use: cancel)
        routes.get("group", ":pin", "gameresultwait", use: waitState)
        routes.get("group", ":pin", "gameresult", use: gameResult)
    }

    func randomMenu(req: Request) async throws -> RandomMenu {
        let game = req.menuGame
        let menu = try await game.randomMenu(device: nil)
        return RandomMenu(name: menu.name.ko, imageURL: game.rasterImageURL(for: menu))
    }

    /// The app's device token is its FCM token, which stays `""` on a phone that never registered
    /// for notifications (the shipped app never asks): empty or absent means "no device", nil.
    static func appToken(_ raw: String?) throws -> String? {
        // None, or empty: the app without a token. Anything else is the token as documented (16–512
        // visible characters, nothing around them); blanks or padding are refused, not taken as none.
        guard let raw, !raw.isEmpty else { return nil }
        return try DeviceToken.validate(raw, trimming: false)
    }

    /// Who hosts a room made without a token: its network. The host's waiting page, polled from
    /// there without a token, then shows 결과확인하기 (`isHost`); so does every token-less phone on
    /// that network (a class behind one address), which only lets them close the game early.
    static func tokenlessHost(_ req: Request) -> String { "tokenless-host:" + req.clientNetwork.key }

    /// 201 with the PIN as a bare JSON number (the app reads the body text as the PIN).
    func createGroup(req: Request) async throws -> Response {
        let appToken = try Self.appToken(req.query[String.self, at: "token"])
        let group = try await req.createMenuGroup(hostToken: appToken ?? Self.tokenlessHost(req), hostUserID: nil, hostIsNetwork: appToken == nil)
        return Self.jsonLiteral(group.pin, status: .created)
    }

    func solo(req: Request) async throws -> CompatResult {
        let submission = try req.decodeJSON(ResultSubmission.self)
        let game = req.menuGame
        return CompatResult(try await game.solo(try submission.choice(), device: try Self.appToken(submission.token)), game: game)
    }

    /// `true` while a group with this PIN is open; `false` for anything else, never an error.
    func pinExists(req: Request) async throws -> Response {
        do {
            let group = try await req.menuGroupFromPath()
            return Self.jsonLiteral(group.isClosed ? "false" : "true")
        } catch let error as AppError where error.code == "group_not_found" {
            return Self.jsonLiteral("false")
        }
    }

    /// 200 with an empty body. After the game closed the answers are not counted, still 200.
    /// Without a token each submission is a player of its own (phones without one cannot be told
    /// apart; the app itself keeps a phone from answering twice).
    func submit(req: Request) async throws -> Response {
        let submission = try req.decodeJSON(ResultSubmission.self)
        let appToken = try Self.appToken(submission.token)
        let token = appToken ?? "tokenless-player:" + UUID().uuidString
        let choice = try submission.choice()
        let group = try await req.menuGroupFromPath()
        // The token is the app's FCM token: the player is told when the result is in.
        let pushProject = appToken == nil ? nil : req.application.settings.push.fcmMenuGameProject
        _ = try await req.menuGame.submit(choice, to: group, playerToken: token, pushProject: pushProject)
        return Response(status: .ok)
    }

    /// Withdraws the device's answers; without a token there is no telling whose, so nothing is
    /// withdrawn (still 200: the app goes back either way).
    func cancel(req: Request) async throws -> Response {
        guard let token = try Self.appToken(req.query[String.self, at: "token"]) else { return Response(status: .ok) }
        let group = try await req.menuGroupFromPath()
        _ = try await req.menuGame.cancel(in: group, playerToken: token)
        return Response(status: .ok)
    }

    func waitState(req: Request) async throws -> WaitState {
        // A token as the app sends it, however malformed, only asks whether it is the host's (no
        // error: the route's contract is 200, 404 or 429); none at all is the token-less host's network.
        let raw = req.query[String.self, at: "token"]
        let device = raw.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 } ?? Self.tokenlessHost(req)
        let status = try await req.menuGroupStatusFromPath(device: device)
        return WaitState(submissionCount: status.submissionCount, isHost: status.isHost, isGameClosed: status.isClosed)
    }

    /// The app's host calls this to see the results; it closes the game (no token is sent).
    func gameResult(req: Request) async throws -> CompatResult {
        let group = try await req.menuGroupFromPath()
        let game = req.menuGame
        return CompatResult(try await game.close(group), game: game)
    }

    static func jsonLiteral(_ text: String, status: HTTPResponseStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: .init(string: text))
    }
}
