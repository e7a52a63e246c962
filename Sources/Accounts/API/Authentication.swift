import Platform
public import Vapor

extension User: Authenticatable {}

/// Reads `Authorization: Bearer <access token>`. No header: the request stays anonymous.
/// A header with a bad or expired token is a 401 at once, so clients know to refresh.
package struct BearerAuthenticator: AsyncMiddleware {
    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        if let bearer = request.headers.bearerAuthorization {
            try await request.signIn(accessToken: bearer.token)
        }
        return try await next.respond(to: request)
    }

    static func rejection(_ code: String) -> AppError {
        AppError(.unauthorized, code, headers: ["WWW-Authenticate": "Bearer error=\"invalid_token\""])
    }

    package init() {}
}

extension Request {
    /// Signs in the user of an access token (from any header a client uses for it), or throws 401
    /// `token_expired` (refresh and retry) or `invalid_token`.
    package func signIn(accessToken: String) async throws {
        let claims: (userID: UUID, sessionID: UUID)
        do {
            claims = try await application.accessTokens.verify(accessToken, now: application.accountsEnvironment.now())
        } catch .expired {
            throw BearerAuthenticator.rejection("token_expired")
        } catch {
            throw BearerAuthenticator.rejection("invalid_token")
        }
        // A remembered session needs no service (building one reads a dozen settings and the
        // client's network: 5 % of a light answer).
        var user = application.sessionCache.user(session: claims.sessionID, userID: claims.userID, now: application.accountsEnvironment.now())
        if user == nil { user = try await accounts.signedInUser(session: claims.sessionID, userID: claims.userID) }
        guard let user else {
            throw BearerAuthenticator.rejection("invalid_token")
        }
        signIn(user, session: claims.sessionID)
        await noteSessionSeen(claims.sessionID)
    }

    /// Marks the request as made by `user` in `session`, for handlers and for the language choice.
    package func signIn(_ user: User, session: UUID) {
        auth.login(user)
        if let id = user.id { signedInAccount = SignedInAccount(id: id, session: session) }
        if let language = user.language { setAccountLanguage(language) }
    }

    /// Whether the session this request signed in with is still live: a live socket asks before
    /// each line it sends or forwards, so a socket whose session ended (and whose close was
    /// somehow missed) stops at once (`SessionEnd`). True for an anonymous request. A read that
    /// fails counts as ended: the socket closes and the client reconnects, rather than a line going
    /// out in the name of a session nobody could check.
    package func signedInSessionIsLive() async -> Bool {
        guard let account = signedInAccount else { return true }
        return ((try? await accounts.signedInUser(session: account.session, userID: account.id)) ?? nil) != nil
    }

    /// Sends every message of `stream` to `socket` until the socket closes, and ends a signed-in
    /// person's socket with their session (asked before each message: its close may have been
    /// missed). What the live pages' sockets share (a group's room, an order).
    package func forwardWhileSignedIn(_ stream: AsyncStream<String>, to socket: WebSocket) {
        let forwarding = Task {
            for await message in stream {
                guard await signedInSessionIsLive() else {
                    try? await socket.close(code: OpenSockets.sessionEndedCode)
                    return
                }
                try? await socket.send(message)
            }
        }
        socket.onClose.whenComplete { _ in forwarding.cancel() }
    }

    /// The signed-in user, or 401.
    package func requireUser() throws -> User {
        guard let user = auth.get(User.self) else {
            throw AppError(.unauthorized, "unauthorized", headers: ["WWW-Authenticate": "Bearer"])
        }
        return user
    }

    /// The signed-in administrator: 401 when anonymous, 403 for other users.
    package func requireAdmin() throws -> User {
        let user = try requireUser()
        guard user.role == .admin else { throw AppError.forbidden }
        return user
    }
}

/// Signs browsers in from the `wwe_session` cookie. A cookie that names no live session is
/// simply ignored (the browser is anonymous), and cleared on the way out.
package struct WebSessionAuthenticator: AsyncMiddleware {
    package static let cookieName = "wwe_session"

    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        var staleCookie = false
        if let token = request.cookie(Self.cookieName), !token.isEmpty {
            if let (session, user) = try await AccountService.webSession(cookieToken: token, for: request) {
                request.signIn(user, session: session)
                await request.noteSessionSeen(session)
                request.storage[WebViewerKey.self] = WebViewer(nickname: user.nickname, isAdmin: user.role == .admin)
            } else {
                staleCookie = true
            }
        }
        let response = try await next.respond(to: request)
        if staleCookie, response.cookies[Self.cookieName] == nil {
            response.cookies[Self.cookieName] = .expired
        }
        return response
    }

    package static func cookie(_ token: String, expiresAt: Date, secure: Bool) -> HTTPCookies.Value {
        HTTPCookies.Value(string: token, expires: expiresAt, path: "/", isSecure: secure, isHTTPOnly: true, sameSite: .lax)
    }

    package init() {}
}
