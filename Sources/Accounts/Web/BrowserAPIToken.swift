import Foundation
import Platform
import Vapor

/// Pages whose scripts call the JSON API (the burger map's) do so with a short-lived access
/// token for the browser's own session: the API stays bearer-only (no cookie, so no CSRF
/// there), and signing out revokes the session the token names, which every API request checks.
/// `POST /session/token` (with the page's CSRF token in `X-CSRF-Token`) renews it.
struct BrowserAPIToken: RouteCollection {
    struct TokenResponse: Content {
        let accessToken: String
        let expiresIn: Int
    }

    func boot(routes: any RoutesBuilder) throws {
        routes.post("session", "token", use: renew)
    }

    func renew(req: Request) async throws -> TokenResponse {
        guard let token = try await req.browserAccessToken(fresh: true) else { throw AppError(.unauthorized, "unauthorized") }
        return TokenResponse(accessToken: token, expiresIn: Int(req.application.accessTokens.lifetime))
    }
}

extension Request {
    /// An access token for this browser's session; nil for an anonymous visitor. Pages reuse one
    /// signed within the last half of its lifetime (`BrowserTokenMemo`); the renewal route
    /// (`fresh`) always signs a new one.
    func browserAccessToken(fresh: Bool = false) async throws -> String? {
        guard let account = signedInAccount else { return nil }
        let tokens = application.accessTokens, now = application.accountsEnvironment.now()
        if !fresh, let kept = application.browserTokenMemo.token(for: account, lifetime: tokens.lifetime, now: now) { return kept }
        let token = try await tokens.sign(userID: account.id, sessionID: account.session, now: now)
        application.browserTokenMemo.keep(token, for: account, signedAt: now)
        return token
    }

    /// What a page's scripts need to call the API as the viewer: `me` (the account id) and
    /// `accessToken`, both null for an anonymous visitor. Goes into `PageConfig.block(values:)`.
    package func browserAPIValues() async throws -> [String: Any] {
        guard let viewer = try await browserAPIViewer() else { return ["me": NSNull(), "accessToken": NSNull()] }
        return ["me": viewer.me, "accessToken": viewer.accessToken]
    }

    /// The same as a pair, nil for an anonymous visitor (`Layout.ReaderParts.api`).
    package func browserAPIViewer() async throws -> (me: String, accessToken: String)? {
        guard let user = auth.get(User.self)?.id, let token = try await browserAccessToken() else { return nil }
        return (user.uuidString, token)
    }
}

/// The access token last signed for each browser session, so a signed-in page does not sign one
/// per request. A token is handed out again only while at least half its lifetime is left (the
/// scripts renew on `token_expired` anyway), and only for the session and account it names: a
/// token says nothing the API does not check again (the session is live, on every request).
final class BrowserTokenMemo: Sendable {
    private struct Kept: Sendable {
        let token: String
        let user: UUID
        let signedAt: Date
    }

    private let kept: BoundedMemory<UUID, Kept>

    init(capacity: Int = 100_000) {
        kept = BoundedMemory(name: "browser_api_tokens", capacity: capacity)
    }

    func token(for account: SignedInAccount, lifetime: TimeInterval, now: Date) -> String? {
        guard let entry = kept[account.session], entry.user == account.id else { return nil }
        let age = now.timeIntervalSince(entry.signedAt)
        return age >= 0 && age < lifetime / 2 ? entry.token : nil
    }

    func keep(_ token: String, for account: SignedInAccount, signedAt: Date) {
        kept.keep(Kept(token: token, user: account.id, signedAt: signedAt), for: account.session)
    }
}
