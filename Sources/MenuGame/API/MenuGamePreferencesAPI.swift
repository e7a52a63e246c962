import Accounts
import Fluent
import Platform
import Vapor

/// `/api/v1/menu-game/preferences` (the signed-in player's disliked foods, shared with the web
/// pages) and `/api/v1/menu-game/feedback` (notes from the settings screen; administrators read them).
struct MenuGamePreferencesAPI: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let game = routes.grouped("api", "v1", "menu-game")
        game.get("preferences", use: preferences)
        game.put("preferences", use: savePreferences)
        game.post("feedback", use: leaveFeedback)
        game.get("feedback", use: listFeedback)
    }

    struct PreferencesBody: Content {
        /// Foods left out of every recommendation; empty when the account saved none.
        let dislikedFoods: [Flavor]
        /// False until the account saves its choices (clients then show onboarding).
        let saved: Bool?
    }

    func preferences(req: Request) async throws -> PreferencesBody {
        let user = try req.requireUser()
        let saved = try await req.menuGame.savedDislikes(of: user.requireID())
        return PreferencesBody(dislikedFoods: Self.sorted(saved ?? []), saved: saved != nil)
    }

    func savePreferences(req: Request) async throws -> PreferencesBody {
        let user = try req.requireUser()
        let body = try req.decodeJSON(PreferencesBody.self)
        let disliked = try SubmissionBody(gameAnswer: GameAnswer(), dislikedFoods: body.dislikedFoods).choice().disliked
        try await req.menuGame.saveDislikes(disliked, for: user.requireID())
        return PreferencesBody(dislikedFoods: Self.sorted(disliked), saved: true)
    }

    static func sorted(_ foods: Set<Flavor>) -> [Flavor] { foods.sorted { $0.rawValue < $1.rawValue } }

    struct FeedbackBody: Content { package let message: String }

    struct FeedbackResponse: Content {
        let id: UUID
        let message: String
        let language: String
        /// The author, while the account exists; anonymous notes have none.
        @NullEncoded var userID: UUID?
        @NullEncoded var createdAt: Date?

        init(_ feedback: FeedbackRow) {
            id = feedback.id
            message = feedback.message
            language = feedback.language
            userID = feedback.userID
            createdAt = feedback.createdAt
        }
    }

    /// Anyone may leave a note (5 per 10 minutes per address).
    func leaveFeedback(req: Request) async throws -> Response {
        let body = try req.decodeJSON(FeedbackBody.self)
        let feedback = try await req.application.feedbackLimiter.withSlot(req.clientNetwork) {
            try await req.menuGame.leaveFeedback(body.message, userID: req.auth.get(User.self)?.id, language: req.language)
        }
        return try await FeedbackResponse(feedback).encodeResponse(status: .created, for: req)
    }

    func listFeedback(req: Request) async throws -> CursorPage<FeedbackResponse> {
        _ = try req.requireAdmin()
        let page = try CursorPageRequest(from: req)
        let (rows, next) = try await MenuPlayerStore(database: req.db).feedbackPage(page)
        return CursorPage(items: rows.map(FeedbackResponse.init), nextCursor: next)
    }
}
