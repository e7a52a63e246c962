import Accounts
import Foundation
import Media
import Notifications
import Platform
import Plot
import Vapor

/// A review's page: photo pager, reactions, comments and the report dialog.
extension BurgerMapPages {
    // MARK: A review

    func review(req: Request) async throws -> Response {
        let actor = req.mapActor()
        let review = ReviewResponse(try await req.burgerMap.review(try req.reviewID(), viewer: actor), files: req.application.files)
        // What every reader of a language sees alike is kept until the map's content changes (the
        // version the API's cache moves with); the reader's own parts (reactions, the buttons that
        // are theirs, a just-posted notice) are made for them.
        let fragments = req.application.pageFragments, version = req.application.burgerMapCache.generation
        let key = "map.review:" + review.id.uuidString
        let signedIn = actor != nil
        return try await page(
            req, title: review.title, tab: nil, script: "review", stylesheets: ["/css/burger-map-review.css"],
            config: ["review": try json(review)],
            preview: Self.preview(of: review),
            main: .article(
                .id("review"), .class("review-page"), .data(named: "id", value: review.id.uuidString.lowercased()),
                review.hidden ? .p(.class("notice"), .role("status"), .text(req.t("burger_map.review.hidden_notice"))) : .empty,
                // Just written (the write page comes here with `?posted=1`): its author is told it is up.
                req.query[String.self, at: "posted"] == "1" && actor?.id == review.author.id
                    ? .p(.class("notice"), .id("review-posted"), .role("status"), .text(req.t("burger_map.review.posted"))) : .empty,
                fragments.node(key + ":photos", language: req.language, version: version) { photoPager(req, review) },
                reviewBody(req, review, actor: actor,
                           head: fragments.node(key + ":head", language: req.language, version: version) { reviewHead(req, review) }),
                review.hidden ? .empty : .div(.class("review-share"), ShareButton.node(req, path: MapPath.review(review.id),
                                                                                      title: "\(review.title) — \(review.place.name)",
                                                                                      text: "🍔 \(review.title) — \(review.place.name)")),
                fragments.node("map.review-report", language: req.language, version: 0) { reportDialog(req) },
                fragments.node(key + ":comments:\(signedIn)", language: req.language, version: version) { comments(req, review, signedIn: signedIn) }
            )
        )
    }

    /// A shared review: its title with the place, its first words, its cover photo (a hidden one
    /// says nothing and shows the app's card).
    static func preview(of review: ReviewResponse) -> LinkPreview {
        guard !review.hidden else { return LinkPreview() }
        let cover = review.photos.first.flatMap { photo in BurgerMapImages.rasterURL(ofPhotoURL: photo.url).map { (photo, $0) } }
        return LinkPreview(
            title: "\(review.title) — \(review.place.name) " + String(repeating: "★", count: max(0, min(5, review.rating))),
            description: review.text.isEmpty ? nil : String(review.text.prefix(150)),
            image: cover?.1, imageWidth: cover?.0.width, imageHeight: cover?.0.height, type: "article")
    }

    func photoPager(_ req: Request, _ review: ReviewResponse) -> Node<HTML.BodyContext> {
        let photos: Node<HTML.BodyContext> = .ul(
            .id("review-photos"), .class("photo-pager"), .attribute(named: "tabindex", value: "0"),
            .attribute(named: "aria-label", value: req.t("burger_map.review.photos", ["count": String(review.photos.count)])),
            .forEach(review.photos.enumerated()) { index, photo in
                .li(.img(.src(photo.url), .alt(req.t("burger_map.review.photo_alt", ["number": String(index + 1), "title": review.title])),
                         .attribute(named: "width", value: String(photo.width)), .attribute(named: "height", value: String(photo.height))))
            }
        )
        guard review.photos.count > 1 else { return photos }
        let dots: Node<HTML.BodyContext> = .ol(
            .class("photo-dots"), .attribute(named: "aria-hidden", value: "true"),
            .forEach(review.photos.indices) { index in .li(index == 0 ? .class("current") : .empty) }
        )
        return .group(photos, dots)
    }

    /// Like or bookmark: a toggle with its count, or a login link for a visitor.
    func reaction(_ req: Request, _ review: ReviewResponse, _ kind: String, pressed: Bool, count: Int, emoji: String, signedIn: Bool) -> Node<HTML.BodyContext> {
        let label = req.t("burger_map.review.\(kind)")
        guard signedIn else {
            return .a(.id("\(kind)-button"), .class("reaction"), .href(AccountPath.logIn() + "?next=" + MapPath.review(review.id)),
                      .span(.ariaHidden(true), .text(emoji)), .span(.class("reaction-label"), .text(label)), .span(.class("count"), .text(String(count))))
        }
        return .button(.type(.button), .id("\(kind)-button"), .class("reaction"), .ariaPressed(pressed),
                       .span(.ariaHidden(true), .text(emoji)), .span(.class("reaction-label"), .text(label)), .span(.class("count"), .text(String(count))))
    }

    /// The review as every reader sees it: its place, title, stars, words, author and time.
    func reviewHead(_ req: Request, _ review: ReviewResponse) -> Node<HTML.BodyContext> {
        let avatar: Node<HTML.AnchorContext> = review.author.profileImageURL.map { .img(.class("avatar small"), .src($0), .alt("")) }
            ?? .span(.class("avatar small placeholder"), .ariaHidden(true), .text(String(review.author.nickname.prefix(1))))
        let author: Node<HTML.BodyContext> = .a(
            .id("review-author"), .class("review-author"), .href(MapPath.user(review.author.id)), avatar, .text(review.author.nickname)
        )
        let time: Node<HTML.BodyContext> = .element(named: "time", nodes: [
            .datetime(PageDates.machine(review.createdAt)),
            .text(PageDates.medium(review.createdAt, req.language)),
        ])
        return .group(
            .a(.id("review-place"), .class("review-place"), .href(MapPath.place(review.place.id)), .text("📍 " + review.place.name)),
            .h1(.id("review-title"), .text(review.title)),
            .p(.class("review-stars"), stars(req, review.rating)),
            .p(.id("review-text"), .class("review-text"), .text(review.text)),
            .p(.class("review-meta"), author, time)
        )
    }

    /// The review's head (`reviewHead`, kept for every reader) and the reader's own reactions and buttons.
    func reviewBody(_ req: Request, _ review: ReviewResponse, actor: MapActor?, head: Node<HTML.BodyContext>) -> Node<HTML.BodyContext> {
        let mine = actor?.id == review.author.id
        let report: Node<HTML.BodyContext> = actor != nil && !mine
            ? .button(.type(.button), .id("report-button"), .class("link-button"), .text(req.t("burger_map.review.report"))) : .empty
        let delete: Node<HTML.BodyContext> = mine || actor?.isAdmin == true
            ? .button(.type(.button), .id("delete-review"), .class("link-button danger"), .text(req.t("burger_map.review.delete"))) : .empty
        return .div(
            .class("review-body"),
            head,
            .div(
                .class("reactions"),
                reaction(req, review, "like", pressed: review.likedByMe, count: review.likeCount, emoji: "❤️", signedIn: actor != nil),
                reaction(req, review, "bookmark", pressed: review.bookmarkedByMe, count: review.bookmarkCount, emoji: "🔖", signedIn: actor != nil),
                report, delete
            )
        )
    }

    func comments(_ req: Request, _ review: ReviewResponse, signedIn: Bool) -> Node<HTML.BodyContext> {
        let id = review.id.uuidString.lowercased()
        let form: Node<HTML.BodyContext> = signedIn
            ? .form(
                .id("comment-form"), .class("comment-form"), .attribute(named: "novalidate", value: "novalidate"),
                .label(.for("comment-text"), .class("visually-hidden"), .text(req.t("burger_map.review.comment_label"))),
                .textarea(.id("comment-text"), .name("text"), .attribute(named: "maxlength", value: "500"), .attribute(named: "rows", value: "2"),
                          .placeholder(req.t("burger_map.review.comment_placeholder")), .attribute(named: "aria-describedby", value: "comment-error")),
                .div(
                    .class("comment-actions"),
                    .span(.id("comment-counter"), .class("counter muted"), .text("0 / 500")),
                    .button(.type(.submit), .class("button small"), .text(req.t("burger_map.review.comment_submit")))
                ),
                .p(.id("comment-error"), .class("field-error"), .role("alert"))
            )
            : .p(loginLink(req, id: "comment-login", classes: "button wide", label: req.t("burger_map.review.login_to_comment")))
        return .section(
            .class("comments"), .ariaLabelledBy("comments-heading"),
            .h2(.id("comments-heading"), .text(req.t("burger_map.review.comments", ["count": String(review.commentCount)]))),
            form,
            .ol(.id("comments"), .class("comment-list"), .data(named: "source", value: "\(Self.api)/reviews/\(id)/comments")),
            .div(.id("comments-more"), .class("scroll-sentinel"))
        )
    }

    func reportDialog(_ req: Request) -> Node<HTML.BodyContext> {
        .element(named: "dialog", nodes: [
            .id("report-dialog"), .class("report-dialog"), .ariaLabelledBy("report-heading"),
            .form(
                .id("report-form"), .attribute(named: "method", value: "dialog"), .class("stack"),
                .h2(.id("report-heading"), .text(req.t("burger_map.review.report_title"))),
                .label(.for("report-reason"), .text(req.t("burger_map.review.report_reason"))),
                .textarea(.id("report-reason"), .name("reason"), .attribute(named: "maxlength", value: "500"), .attribute(named: "rows", value: "3")),
                .p(.id("report-error"), .class("field-error"), .role("alert")),
                .div(
                    .class("dialog-actions"),
                    .button(.type(.button), .id("report-cancel"), .class("button"), .text(req.t("burger_map.review.cancel"))),
                    .button(.type(.submit), .id("report-submit"), .class("button primary"), .text(req.t("burger_map.review.report_submit")))
                )
            ),
        ])
    }

    // MARK: People

    enum ProfileTab: String, CaseIterable {
        case reviews, followers, following, likes, bookmarks, eaten, want

        /// The lists only the person themselves sees.
        var isPrivate: Bool { ![.reviews, .followers, .following].contains(self) }

        var kind: String {
            switch self {
            case .reviews, .likes, .bookmarks: return "reviews"
            case .followers, .following: return "people"
            case .eaten, .want: return "places"
            }
        }

        func source(user id: String) -> String {
            let api = BurgerMapPages.api
            switch self {
            case .reviews, .followers, .following: return "\(api)/users/\(id)/\(rawValue)"
            case .likes, .bookmarks: return "\(api)/me/\(rawValue)"
            case .eaten, .want: return "\(api)/me/marks?kind=\(rawValue)"
            }
        }
    }
}
