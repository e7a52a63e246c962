import Vapor

/// CSRF protection for the browser pages: a random nonce in an HttpOnly cookie, and in every
/// form the nonce's HMAC under the server secret. A cross-site page can neither read the cookie
/// nor forge the HMAC, so a POST without the matching token is refused with 403.
struct CSRFMiddleware: AsyncMiddleware {
    static let cookieName = "wwe_csrf"
    static let formField = "_csrf"
    static let header = "X-CSRF-Token"
    /// The largest body any web form sends (the profile photo form); checked before the handler runs.
    static let maxFormBody = 8 * 1024 * 1024

    struct NonceKey: StorageKey { typealias Value = String }

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let cookie = request.cookies[Self.cookieName]?.string
        let existing = (cookie?.count ?? 0) >= 16 ? cookie : nil
        let nonce = existing ?? SecureRandom.token(bytes: 24)
        request.storage[NonceKey.self] = nonce

        if ![.GET, .HEAD, .OPTIONS].contains(request.method) {
            if request.body.data == nil {
                _ = try await request.body.collect(max: Self.maxFormBody).get()
            }
            let presented = request.headers.first(name: Self.header)
                ?? (try? request.content.get(String.self, at: Self.formField))
            guard let existing, let presented,
                  SecureRandom.constantTimeEquals(presented, Self.token(for: existing, secret: request.application.settings.jwtSecret))
            else {
                throw AppError(.forbidden, "csrf_failed")
            }
        }

        let response = try await next.respond(to: request)
        if existing == nil {
            response.cookies[Self.cookieName] = HTTPCookies.Value(
                string: nonce, maxAge: 60 * 60 * 24 * 365, path: "/",
                isSecure: request.application.settings.usesSecureCookies, isHTTPOnly: true, sameSite: .lax
            )
        }
        return response
    }

    static func token(for nonce: String, secret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(nonce.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return Data(mac).base64URLEncodedString()
    }
}

extension Request {
    /// The token every form on this page must send back as `_csrf`.
    var csrfToken: String {
        let nonce = storage[CSRFMiddleware.NonceKey.self] ?? ""
        return CSRFMiddleware.token(for: nonce, secret: application.settings.jwtSecret)
    }
}

/// Headers that keep browsers from sniffing types, framing our pages, or loading foreign scripts.
struct SecurityHeadersMiddleware: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response = try await next.respond(to: request)
        response.headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
        response.headers.replaceOrAdd(name: "Referrer-Policy", value: "same-origin")
        if response.headers.contentType?.subType == "html" {
            response.headers.replaceOrAdd(name: "X-Frame-Options", value: "DENY")
            response.headers.replaceOrAdd(
                name: "Content-Security-Policy",
                value: "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'"
            )
        }
        return response
    }
}
