import Accounts
import FluentKit
import Foundation
import Media
import Platform
import Plot
import Vapor

/// People's pages: mine and others', with follows and their lists.
extension BurgerMapPages {
    func me(req: Request) async throws -> Response {
        Layout.redirect(to: MapPath.user(try req.requireUser().requireID()))
    }

    func person(req: Request) async throws -> Response {
        // The version before the read: a change landing between them makes the next reader's page again.
        let version = req.application.burgerMapCache.generation
        let viewer = req.auth.get(User.self)?.id
        let profile = MapProfileResponse(try await req.burgerMap.profile(of: try req.userIDParameter(), viewer: viewer), files: req.application.files)
        let id = profile.id.uuidString.lowercased()
        let isMe = viewer == profile.id
        let tabs = ProfileTab.allCases.filter { isMe || !$0.isPrivate }
        let requested = req.query[String.self, at: "tab"].flatMap(ProfileTab.init(rawValue:))
        let tab = requested.flatMap { tabs.contains($0) ? $0 : nil } ?? .reviews
        func count(_ id: String, _ key: String, _ value: Int, tab: ProfileTab?) -> Node<HTML.BodyContext> {
            let label = req.t("burger_map.profile.\(key)")
            guard let tab else { return .div(.class("profile-count"), .strong(.id(id), .text(String(value))), .span(.text(label))) }
            return .a(.class("profile-count"), .href("\(MapPath.user(profile.id))?tab=\(tab.rawValue)"),
                      .strong(.id(id), .text(String(value))), .span(.text(label)))
        }
        // Kept whole for every reader signed in alike, the person's own view apart (its private
        // tabs); another member's follow button and whether they follow are theirs.
        let follows = viewer != nil && !isMe
        let mine = follows
            ? [req.application.pageFragments.html("map.profile.follow.\(profile.followedByMe)", language: req.language, version: 0) {
                  Node<HTML.BodyContext>.button(
                      .type(.button), .id("follow-button"), .class(profile.followedByMe ? "button" : "button primary"), .ariaPressed(profile.followedByMe),
                      .text(req.t(profile.followedByMe ? "burger_map.profile.unfollow" : "burger_map.profile.follow"))
                  ).render()
              }, String(profile.followedByMe)]
            : []
        return try await kept(req, content: version, variant: isMe ? "me" : "", parts: mine) {
            let followButton: Node<HTML.BodyContext>
            if isMe {
                followButton = .a(.id("edit-profile"), .class("button"), .href(AccountPath.me()), .text(req.t("burger_map.profile.edit")))
            } else if viewer == nil {
                followButton = loginLink(req, id: "follow-button", classes: "button primary", label: req.t("burger_map.profile.follow"))
            } else {
                followButton = Layout.readerPart(0)
            }
            let profileJSON = try json(profile)
            return parts(
                req, title: profile.nickname, tab: isMe ? .me : nil, script: "profile", stylesheets: ["/css/burger-map-review.css"],
                config: ["profile": follows ? profileJSON.withReaderPart(1, asField: "followedByMe") : profileJSON, "tab": tab.rawValue],
                main: .group(
                    .section(
                        .class("profile-header card"),
                        profile.profileImageURL.map { .img(.class("avatar large"), .src($0), .alt("")) }
                            ?? .span(.class("avatar large placeholder"), .ariaHidden(true), .text(String(profile.nickname.prefix(1)))),
                        .h1(.id("profile-name"), .text(profile.nickname)),
                        .div(
                            .class("profile-counts"),
                            count("review-count", "reviews", profile.reviewCount, tab: .reviews),
                            count("follower-count", "followers", profile.followerCount, tab: .followers),
                            count("following-count", "following", profile.followingCount, tab: .following),
                            count("eaten-count", "eaten", profile.eatenCount, tab: isMe ? .eaten : nil)
                        ),
                        followButton
                    ),
                    .nav(
                        .class("profile-tabs"), .ariaLabel(req.t("burger_map.profile.tabs")),
                        .forEach(tabs) { item in
                            .a(.href("\(MapPath.user(profile.id))?tab=\(item.rawValue)"), .data(named: "tab", value: item.rawValue),
                               item == tab ? .ariaCurrent() : .empty, .text(req.t("burger_map.profile.tab.\(item.rawValue)")))
                        }
                    ),
                    .ol(.id("profile-list"), .class(tab.kind == "reviews" ? "review-list" : "row-list"),
                        .data(named: "source", value: tab.source(user: id)), .data(named: "kind", value: tab.kind)),
                    .div(.id("profile-more"), .class("scroll-sentinel")),
                    .p(.id("profile-empty"), .class("empty-note muted"), .attribute(named: "hidden", value: "hidden"),
                       .text(req.t("burger_map.profile.empty.\(tab.rawValue)")))
                )
            )
        }
    }
}
