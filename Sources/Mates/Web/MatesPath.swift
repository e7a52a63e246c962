import Platform

/// The mates pages' paths, in one place: the route table (`MatesPages.boot`) registers them; links,
/// redirects and the notifications mates posts fill them in.
enum MatesPath {
    package static let home: PagePath = "/mates"
    package static let start: PagePath = "/mates/start"
    package static let profile: PagePath = "/mates/profile"
    package static let shop: PagePath = "/mates/shop"
    package static let search: PagePath = "/mates/search"
    package static let nearby: PagePath = "/mates/nearby"
    package static let chat: PagePath1 = "/mates/chat/:match"
    static let chatLive: PagePath1 = "/mates/chat/:match/live"
    package static let review: PagePath1 = "/mates/review/:match"
    package static let report: PagePath1 = "/mates/report/:match"
}
