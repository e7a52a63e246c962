import Platform

/// The burger map's page paths, in one place: the route table (`BurgerMapPages.boot`) registers
/// them; links, redirects and the notifications the map posts fill them in.
enum MapPath {
    static let map: PagePath = "/map"
    static let feed: PagePath = "/map/feed"
    static let write: PagePath = "/map/write"
    static let me: PagePath = "/map/me"
    static let place: PagePath1 = "/map/places/:place"
    static let review: PagePath1 = "/map/reviews/:review"
    static let user: PagePath1 = "/map/users/:user"
}
