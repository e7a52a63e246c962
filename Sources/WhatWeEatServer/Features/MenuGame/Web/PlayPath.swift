/// The menu game's page paths, in one place: links, form actions and redirects use these, so a
/// renamed page cannot leave a stale link behind. (The route table in `MenuGamePages.boot` names the same paths.)
enum PlayPath {
    static let home = "/play"
    static let welcome = "/play/welcome"
    static let preferences = "/play/preferences"
    static let solo = "/play/solo"
    static let soloGame = "/play/solo/game"
    static let result = "/play/result"
    static let together = "/play/together"
    static let create = "/play/together/create"
    static let join = "/play/together/join"
    static let settings = "/play/settings"
    static let feedback = "/play/feedback"
    static func group(_ pin: String) -> String { "/play/groups/\(pin)" }
    static func groupGame(_ pin: String) -> String { "/play/groups/\(pin)/game" }
    static func groupWait(_ pin: String) -> String { "/play/groups/\(pin)/wait" }
    static func groupResult(_ pin: String) -> String { "/play/groups/\(pin)/result" }
    static func groupQRCode(_ pin: String) -> String { "/play/groups/\(pin)/qr.svg" }
}
