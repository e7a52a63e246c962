package import Vapor

/// CSRF protection for the browser pages.
///
/// - The `wwe_csrf` cookie (HttpOnly; `__Host-wwe_csrf` over https, so a sibling subdomain cannot
///   plant it) holds a random nonce and the server's MAC of it. A cookie the server did not make
///   is never adopted: it is replaced by a fresh one.
/// - Every form carries `_csrf` = MAC(nonce, session), under a key of its own (`ServerKeys`).
///   The session part is the signed-in browser session's id, or `anonymous` before sign-in, so a
///   nonce and token pair planted from elsewhere does not work for someone else's session; the
///   nonce is replaced whenever a browser signs in or out.
/// - An unsafe request without a valid cookie is refused before its body is read; with one, the
///   body is read only up to what the forms need (8 MB only for a signed-in multipart upload).
///
/// Runs after `WebSessionAuthenticator`, which names the session.
package struct CSRFMiddleware: AsyncMiddleware {
    static let formField = "_csrf"
    package static let header = "X-CSRF-Token"
    /// The largest body a signed-in upload form sends (the profile photo form).
    static let maxUploadBody = 8 * 1024 * 1024
    /// The largest body of every other form; the longest text field (feedback) is far below it.
    static let maxFormBody = 64 * 1024

    struct NonceKey: StorageKey { package typealias Value = String }
    /// The form token, once made for this request (every form on a page carries the same one).
    struct TokenKey: StorageKey { package typealias Value = String }
    /// Set when the nonce was (re)made during this request, so the response carries the cookie.
    struct FreshNonceKey: StorageKey { package typealias Value = Bool }

    package static func cookieName(_ request: Request) -> String {
        request.application.settings.usesSecureCookies ? "__Host-wwe_csrf" : "wwe_csrf"
    }

    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let keys = request.application.keys
        let existing = request.cookie(Self.cookieName(request)).flatMap { Self.verifiedNonce($0, keys: keys) }
        if let existing {
            request.storage[NonceKey.self] = existing
        } else {
            Self.renewNonce(request)
        }

        if ![.GET, .HEAD, .OPTIONS].contains(request.method) {
            // No cookie of ours, no token can match: refuse before reading a byte of the body.
            guard let existing else { throw AppError(.forbidden, "csrf_failed") }
            var presented = request.headers.first(name: Self.header)
            if presented == nil {
                if request.body.data == nil {
                    let signedInUpload = request.signedInAccount != nil && request.headers.contentType?.type == "multipart"
                    _ = try await request.body.collect(max: signedInUpload ? Self.maxUploadBody : Self.maxFormBody).get()
                }
                presented = try? request.content.get(String.self, at: Self.formField)
            }
            guard let presented,
                  SecureRandom.constantTimeEquals(presented, Self.token(nonce: existing, session: Self.binding(request), keys: keys))
            else { throw AppError(.forbidden, "csrf_failed") }
        }

        let response = try await next.respond(to: request)
        if request.storage[FreshNonceKey.self] == true, let nonce = request.storage[NonceKey.self] {
            response.cookies[Self.cookieName(request)] = HTTPCookies.Value(
                string: Self.cookieValue(nonce: nonce, keys: keys), maxAge: 60 * 60 * 24 * 365, path: "/",
                isSecure: request.application.settings.usesSecureCookies, isHTTPOnly: true, sameSite: .lax
            )
        }
        return response
    }

    /// Starts a new nonce for this browser; called on sign-in and sign-out, so tokens issued
    /// before cannot be replayed into the new session.
    package static func renewNonce(_ request: Request) {
        request.storage[NonceKey.self] = SecureRandom.token(bytes: 24)
        request.storage[FreshNonceKey.self] = true
        request.storage[TokenKey.self] = nil
    }

    /// What a token is bound to: the browser session, or `anonymous` before sign-in.
    package static func binding(_ request: Request) -> String {
        request.signedInAccount?.session.uuidString ?? "anonymous"
    }

    package static func cookieValue(nonce: String, keys: ServerKeys) -> String {
        nonce + "." + ServerKeys.mac(keys.csrfNonce, "nonce", nonce)
    }

    /// The nonce of a cookie this server made, or nil.
    static func verifiedNonce(_ cookie: String, keys: ServerKeys) -> String? {
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count >= 16, parts[0].count <= 64 else { return nil }
        let nonce = String(parts[0])
        guard SecureRandom.constantTimeEquals(String(parts[1]), ServerKeys.mac(keys.csrfNonce, "nonce", nonce)) else { return nil }
        return nonce
    }

    package static func token(nonce: String, session: String, keys: ServerKeys) -> String {
        ServerKeys.mac(keys.csrfToken, "form", nonce, session)
    }

    package init() {}
}

extension Request {
    /// The token every form on this page must send back as `_csrf`.
    var csrfToken: String {
        if let token = storage[CSRFMiddleware.TokenKey.self] { return token }
        let nonce = storage[CSRFMiddleware.NonceKey.self] ?? ""
        let token = CSRFMiddleware.token(nonce: nonce, session: CSRFMiddleware.binding(self), keys: application.keys)
        storage[CSRFMiddleware.TokenKey.self] = token
        return token
    }
}

extension Request {
    /// For a page's WebSocket behind the session cookie: the handshake carries the cookie but no
    /// CSRF token, so another site could open one in a visitor's name. Only a page of this origin
    /// may (the `Origin` header names this host), else 403 `cross_origin_socket`.
    package func requireSameOriginSocket() throws {
        guard headers.first(name: .origin) != nil, !hasForeignOrigin else { throw AppError(.forbidden, "cross_origin_socket") }
    }

    /// Whether the request carries an `Origin` that is not this site's (`isOwnOrigin`: the origin
    /// it was sent to, `PUBLIC_URL`'s or a `SERVED_HOSTS` one, compared as origins with default
    /// ports filled in). Browsers send `Origin` on every WebSocket handshake and cross-site
    /// request, and a page cannot forge it; `null` (a sandboxed or file page) is foreign. No
    /// `Origin` at all is not foreign: native clients send none. A DNS-rebinding page sends its own
    /// name as both `Origin` and `Host`; in production `ServedHostsMiddleware` has refused that
    /// `Host` (421) before this is asked.
    package var hasForeignOrigin: Bool {
        guard let origin = headers.first(name: .origin) else { return false }
        guard let parsed = WebOrigin(origin) else { return true }
        return !isOwnOrigin(parsed)
    }
}

extension HTTPHeaders {
    /// Whether a browser sent these: every current browser marks its fetches and socket
    /// handshakes with `Sec-Fetch-*` headers (which pages can neither set nor remove); native
    /// clients send none.
    package var sentByABrowser: Bool {
        contains(name: "Sec-Fetch-Mode") || contains(name: "Sec-Fetch-Site")
    }
}
