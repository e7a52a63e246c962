import Fluent
import Vapor

/// What the menu-game pages know about the browser in front of them, from its cookies and,
/// when signed in, its account:
/// - `wwe_device`: the anonymous device token the game API takes (like the app's push token);
///   made on the first visit, HttpOnly, and handed to the page's scripts inside the page.
/// - `wwe_onboarded`: the first-visit onboarding is done.
/// - `wwe_disliked`: the disliked foods joined by dots, `MEAT.SPICY` (a cookie value may not hold
///   commas); the account's copy wins when signed in.
/// - `wwe_waiting`: the PIN of the group this browser submitted to, so reopening the browser
///   returns to the waiting room.
struct MenuGameDevice {
    static let deviceCookie = "wwe_device"
    static let onboardedCookie = "wwe_onboarded"
    static let dislikedCookie = "wwe_disliked"
    static let waitingCookie = "wwe_waiting"
    static let cookieLifetime = 60 * 60 * 24 * 365

    /// The device token; `isNew` when this request made it and the response must set the cookie.
    let token: String
    let isNew: Bool
    let disliked: Set<Flavor>
    /// Onboarding is done on this browser, or the account has saved its choices.
    let isOnboarded: Bool

    static func resolve(_ req: Request) async throws -> MenuGameDevice {
        let existing = (req.cookies[deviceCookie]?.string).flatMap { try? MenuGameService.validDeviceToken($0) }
        let token = existing ?? "web-" + SecureRandom.token(bytes: 24)
        var disliked = parseDisliked(req.cookies[dislikedCookie]?.string)
        var onboarded = req.cookies[onboardedCookie]?.string == "1"
        if let user = req.auth.get(User.self), let saved = try await req.menuGame.savedDislikes(of: user.requireID()) {
            disliked = saved
            onboarded = true
        }
        return MenuGameDevice(token: token, isNew: existing == nil, disliked: disliked, isOnboarded: onboarded)
    }

    /// Only the five dislikeable foods survive; anything else in the cookie is ignored.
    static func parseDisliked(_ raw: String?) -> Set<Flavor> {
        guard let raw else { return [] }
        return Set(raw.split(separator: ".").compactMap { Flavor(rawValue: String($0)) }).intersection(Flavor.dislikeable)
    }

    static func cookieValue(_ disliked: Set<Flavor>) -> String {
        disliked.map(\.rawValue).sorted().joined(separator: ".")
    }

    /// Sets the device cookie on a response when this request made the token.
    func persist(on response: Response, _ req: Request) {
        guard isNew else { return }
        response.cookies[Self.deviceCookie] = Self.cookie(token, req, httpOnly: true)
    }

    static func cookie(_ value: String, _ req: Request, httpOnly: Bool = false, maxAge: Int = cookieLifetime) -> HTTPCookies.Value {
        HTTPCookies.Value(string: value, maxAge: maxAge, path: "/", isSecure: req.application.settings.usesSecureCookies,
                          isHTTPOnly: httpOnly, sameSite: .lax)
    }

    /// The PIN in the waiting cookie, when it is a well-formed one.
    static func waitingPIN(_ req: Request) -> String? {
        (req.cookies[waitingCookie]?.string).flatMap(MenuGameService.normalizedPIN)
    }
}
