import Accounts
import Platform

/// The menu game's page paths, in one place: links, form actions and redirects use these, so a
/// renamed page cannot leave a stale link behind. (The route table in `MenuGamePages.boot` names the same paths.)
package enum PlayPath {
    package static let home = "/play"
    package static let welcome = "/play/welcome"
    package static let preferences = "/play/preferences"
    package static let solo = "/play/solo"
    package static let soloGame = "/play/solo/game"
    package static let result = "/play/result"
    package static let together = "/play/together"
    package static let create = "/play/together/create"
    package static let join = "/play/together/join"
    package static let settings = "/play/settings"
    package static let feedback = "/play/feedback"
    package static func group(_ pin: String) -> String { "/play/groups/\(pin)" }
    package static func groupGame(_ pin: String) -> String { "/play/groups/\(pin)/game" }
    package static func groupWait(_ pin: String) -> String { "/play/groups/\(pin)/wait" }
    package static func groupResult(_ pin: String) -> String { "/play/groups/\(pin)/result" }
    package static func groupQRCode(_ pin: String) -> String { "/play/groups/\(pin)/qr.svg" }
}
