package import Vapor

/// The anonymous device token a browser carries in the HttpOnly `wwe_device` cookie: the same kind
/// of token the iOS apps send as `X-Device-Token`, so a browser plays games and keeps a cart
/// without an account. Pages read `req.browserDevice`; the token is made the first time a request
/// asks for it, and `BrowserDeviceMiddleware` sets the cookie once on the way out.
package struct BrowserDevice: Sendable {
    package static let cookieName = "wwe_device"
    static let cookieLifetime = 60 * 60 * 24 * 365

    package let token: String
    /// This request made the token; the response must set the cookie.
    package let isNew: Bool

    fileprivate init(_ req: Request) {
        let existing = req.cookie(Self.cookieName).flatMap { try? DeviceToken.validate($0) }
        token = existing ?? "web-" + SecureRandom.token(bytes: 24)
        isNew = existing == nil
    }

    /// A first-party, SameSite=Lax cookie for a year (Secure when `PUBLIC_URL` is https).
    package static func cookie(_ value: String, _ req: Request, httpOnly: Bool = false, maxAge: Int = cookieLifetime) -> HTTPCookies.Value {
        HTTPCookies.Value(string: value, maxAge: maxAge, path: "/", isSecure: req.application.settings.usesSecureCookies,
                          isHTTPOnly: httpOnly, sameSite: .lax)
    }
}

extension Request {
    private struct BrowserDeviceKey: StorageKey { typealias Value = BrowserDevice }

    /// This browser's device: from its cookie, or made now (once per request, however often asked).
    package var browserDevice: BrowserDevice {
        if let device = storage[BrowserDeviceKey.self] { return device }
        let device = BrowserDevice(self)
        storage[BrowserDeviceKey.self] = device
        return device
    }

    /// The device, if this request asked for it.
    fileprivate var browserDeviceIfMade: BrowserDevice? { storage[BrowserDeviceKey.self] }
}

/// Sets the `wwe_device` cookie on whatever a page answers (page, redirect or form shown again)
/// when that request made the browser's device. One place instead of a call in every handler:
/// a forgotten call gave the browser a new device, and lost its game or cart, on the next visit.
package struct BrowserDeviceMiddleware: AsyncMiddleware {
    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response = try await next.respond(to: request)
        if let device = request.browserDeviceIfMade, device.isNew, response.cookies[BrowserDevice.cookieName] == nil {
            response.cookies[BrowserDevice.cookieName] = BrowserDevice.cookie(device.token, request, httpOnly: true)
        }
        return response
    }

    package init() {}
}
