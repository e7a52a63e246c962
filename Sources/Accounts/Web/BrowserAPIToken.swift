import Platform
import Vapor

/// Pages whose scripts call the JSON API (the burger map's) do so with a short-lived access
/// token for the browser's own session: the API stays bearer-only (no cookie, so no CSRF
/// there), and signing out revokes the session the token names, which every API request checks.
/// `POST /session/token` (with the page's CSRF token in `X-CSRF-Token`) renews it.
package struct BrowserAPIToken: RouteCollection {
    package struct TokenResponse: Content {
        package let accessToken: String
        package let expiresIn: Int
    }

    package func boot(routes: any RoutesBuilder) throws {
        routes.post("session", "token", use: renew)
    }

    package func renew(req: Request) async throws -> TokenResponse {
        guard let token = try await req.browserAccessToken() else { throw AppError(.unauthorized, "unauthorized") }
        return TokenResponse(accessToken: token, expiresIn: Int(req.application.accessTokens.lifetime))
    }
}

extension Request {
    /// An access token for this browser's session; nil for an anonymous visitor.
    package func browserAccessToken() async throws -> String? {
        guard let user = signedInAccount?.id, let session = signedInAccount?.session else { return nil }
        return try await application.accessTokens.sign(userID: user, sessionID: session)
    }

    /// What a page's scripts need to call the API as the viewer: `me` (the account id) and
    /// `accessToken`, both null for an anonymous visitor. Goes into `PageConfig.block(values:)`.
    package func browserAPIValues() async throws -> [String: Any] {
        guard let user = auth.get(User.self)?.id, let token = try await browserAccessToken() else {
            return ["me": NSNull(), "accessToken": NSNull()]
        }
        return ["me": user.uuidString, "accessToken": token]
    }
}
