import Vapor

/// The anonymous device token a browser carries in the HttpOnly `wwe_device` cookie: the same kind
/// of token the iOS apps send as `X-Device-Token`, so a browser plays games and keeps a cart
/// without an account. Made on the first visit to a page that needs it; pages hand it to their
/// scripts inside the page.
struct BrowserDevice: Sendable {
    static let cookieName = "wwe_device"
    static let cookieLifetime = 60 * 60 * 24 * 365

    let token: String
    /// This request made the token; the response must set the cookie.
    let isNew: Bool

    init(_ req: Request) {
        let existing = (req.cookies[Self.cookieName]?.string).flatMap { try? MenuGameService.validDeviceToken($0) }
        token = existing ?? "web-" + SecureRandom.token(bytes: 24)
        isNew = existing == nil
    }

    /// Sets the cookie on a response when this request made the token.
    func persist(on response: Response, _ req: Request) {
        guard isNew else { return }
        response.cookies[Self.cookieName] = Self.cookie(token, req, httpOnly: true)
    }

    /// A first-party, SameSite=Lax cookie for a year (Secure when `PUBLIC_URL` is https).
    static func cookie(_ value: String, _ req: Request, httpOnly: Bool = false, maxAge: Int = cookieLifetime) -> HTTPCookies.Value {
        HTTPCookies.Value(string: value, maxAge: maxAge, path: "/", isSecure: req.application.settings.usesSecureCookies,
                          isHTTPOnly: httpOnly, sameSite: .lax)
    }
}
