import Media
package import Platform

/// The menu game's page paths, in one place: the route table (`MenuGamePages.boot`) registers them
/// and links, form actions and redirects fill them in, so a renamed page cannot leave a stale link.
package enum PlayPath {
    package static let home: PagePath = "/play"
    static let welcome: PagePath = "/play/welcome"
    static let preferences: PagePath = "/play/preferences"
    package static let solo: PagePath = "/play/solo"
    static let soloGame: PagePath = "/play/solo/game"
    package static let result: PagePath = "/play/result"
    package static let together: PagePath = "/play/together"
    package static let create: PagePath = "/play/together/create"
    package static let join: PagePath = "/play/together/join"
    package static let settings: PagePath = "/play/settings"
    package static let feedback: PagePath = "/play/feedback"
    package static let group: PagePath1 = "/play/groups/:pin"
    static let groupGame: PagePath1 = "/play/groups/:pin/game"
    static let groupWait: PagePath1 = "/play/groups/:pin/wait"
    static let groupResult: PagePath1 = "/play/groups/:pin/result"
    static let groupQRCode: PagePath1 = "/play/groups/:pin/qr.svg"
    /// The link a QR code or a shared message carries: opens the group's lobby.
    static let joinLink: PagePath1 = "/join/:pin"
    /// A result's share link: the menu with the way to play (`MenuGamePages.sharedMenu`).
    static let sharedMenu: PagePath1 = "/play/menus/:slug"
}
