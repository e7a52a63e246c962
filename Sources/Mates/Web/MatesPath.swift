import Platform

/// The mates pages' paths, in one place: the route table (`MatesPages.boot`) registers them; links,
/// redirects and the notifications mates posts fill them in.
enum MatesPath {
    static let home: PagePath = "/mates"
    static let start: PagePath = "/mates/start"
    static let profile: PagePath = "/mates/profile"
    static let shop: PagePath = "/mates/shop"
    static let search: PagePath = "/mates/search"
    static let nearby: PagePath = "/mates/nearby"
    static let chat: PagePath1 = "/mates/chat/:match"
    static let chatLive: PagePath1 = "/mates/chat/:match/live"
    static let review: PagePath1 = "/mates/review/:match"
    static let report: PagePath1 = "/mates/report/:match"
}
