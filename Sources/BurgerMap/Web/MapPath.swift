import Platform

/// The burger map's page paths, in one place: the route table (`BurgerMapPages.boot`) registers
/// them; links, redirects and the notifications the map posts fill them in.
enum MapPath {
    package static let map: PagePath = "/map"
    package static let feed: PagePath = "/map/feed"
    package static let write: PagePath = "/map/write"
    package static let me: PagePath = "/map/me"
    package static let place: PagePath1 = "/map/places/:place"
    package static let review: PagePath1 = "/map/reviews/:review"
    package static let user: PagePath1 = "/map/users/:user"
}
