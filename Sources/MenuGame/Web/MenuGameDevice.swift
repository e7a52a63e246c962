import Accounts
import Fluent
import Platform
import Vapor

/// What the menu-game pages know about the browser in front of them, from its cookies and,
/// when signed in, its account:
/// - `wwe_device`: the anonymous device token the game API takes (`BrowserDevice`).
/// - `wwe_onboarded`: the first-visit onboarding is done.
/// - `wwe_disliked`: the disliked foods joined by dots, `MEAT.SPICY` (a cookie value may not hold
///   commas); the account's copy wins when signed in.
/// - `wwe_waiting`: the PIN of the group this browser submitted to, so reopening the browser
///   returns to the waiting room.
struct MenuGameDevice {
    static let onboardedCookie = "wwe_onboarded"
    static let dislikedCookie = "wwe_disliked"
    static let waitingCookie = "wwe_waiting"
    /// The browser's device token (`req.browserDevice`; its cookie is set by `BrowserDeviceMiddleware`).
    let token: String
    let disliked: Set<Flavor>
    /// Onboarding is done on this browser, or the account has saved its choices.
    let isOnboarded: Bool

    static func resolve(_ req: Request) async throws -> MenuGameDevice {
        let device = req.browserDevice
        var disliked = parseDisliked(req.cookie(dislikedCookie))
        var onboarded = req.cookie(onboardedCookie) == "1"
        if let user = req.auth.get(User.self), let saved = try await req.menuGame.savedDislikes(of: user.requireID()) {
            disliked = saved
            onboarded = true
        }
        return MenuGameDevice(token: device.token, disliked: disliked, isOnboarded: onboarded)
    }

    /// Only the five dislikeable foods survive; anything else in the cookie is ignored.
    static func parseDisliked(_ raw: String?) -> Set<Flavor> {
        guard let raw else { return [] }
        return Set(raw.split(separator: ".").compactMap { Flavor(rawValue: String($0)) }).intersection(Flavor.dislikeable)
    }

    static func cookieValue(_ disliked: Set<Flavor>) -> String {
        disliked.map(\.rawValue).sorted().joined(separator: ".")
    }

    /// The PIN in the waiting cookie, when it is a well-formed one.
    static func waitingPIN(_ req: Request) -> String? {
        req.cookie(waitingCookie).flatMap(MenuGameService.normalizedPIN)
    }
}
