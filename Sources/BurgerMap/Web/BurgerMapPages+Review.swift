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
        // The version before the read: a change landing between them makes the next reader's page again.
        let version = req.application.burgerMapCache.generation
        let actor = req.mapActor()
        let review = ReviewResponse(try await req.burgerMap.review(try req.reviewID(), viewer: actor), files: req.application.files)
        // The page is kept whole for every reader of a language signed in alike; what is the
        // reader's own is made for them: a just-posted notice (the write page comes here with
        // `?posted=1`), their like and bookmark, the buttons that are theirs (report, or delete).
        let mine = actor?.id == review.author.id
        var parts: [String] = []
        if actor != nil {
            let posted = mine && req.url.query != nil && req.query[String.self, at: "posted"] == "1"
                ? Node<HTML.BodyContext>.p(.class("notice"), .id("review-posted"), .role("status"), .text(req.t("burger_map.review.posted"))).render() : ""
            // Three kinds of reader (the author, an administrator, anyone else): each one's buttons made once.
            let buttons = req.application.pageFragments.html("map.review.own-buttons.\(mine).\(actor?.isAdmin == true)", language: req.language, version: 0) {
                ownButtons(req, actor: actor, mine: mine).render()
            }
            parts = [posted, String(review.likedByMe), String(review.bookmarkedByMe), buttons, String(review.likedByMe), String(review.bookmarkedByMe)]
        }
        return try await kept(req, content: version, parts: parts) {
            let signedIn = actor != nil
            var json = try json(review)
            if signedIn { json = json.withReaderPart(4, asField: "likedByMe").withReaderPart(5, asField: "bookmarkedByMe") }
            return self.parts(
                req, title: review.title, tab: nil, script: "review", stylesheets: ["/css/burger-map-review.css"],
                config: ["review": json],
                preview: Self.preview(of: review),
                main: .article(
                    .id("review"), .class("review-page"), .data(named: "id", value: review.id.uuidString.lowercased()),
                    review.hidden ? .p(.class("notice"), .role("status"), .text(req.t("burger_map.review.hidden_notice"))) : .empty,
                    signedIn ? Layout.readerPart(0) : .empty,
                    photoPager(req, review),
                    reviewBody(req, review, signedIn: signedIn),
                    review.hidden ? .empty : .div(.class("review-share"), ShareButton.node(req, path: MapPath.review(review.id),
                                                                                          title: "\(review.title) — \(review.place.name)",
                                                                                          text: "🍔 \(review.title) — \(review.place.name)")),
                    reportDialog(req),
                    comments(req, review, signedIn: signedIn)
                )
            )
        }
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

    /// Like or bookmark: a toggle with its count (whether it is pressed is the reader's part
    /// `pressedPart`), or a login link for a visitor.
    func reaction(_ req: Request, _ review: ReviewResponse, _ kind: String, pressedPart: Int, count: Int, emoji: String, signedIn: Bool) -> Node<HTML.BodyContext> {
        let label = req.t("burger_map.review.\(kind)")
        guard signedIn else {
            return .a(.id("\(kind)-button"), .class("reaction"), .href(AccountPath.logIn() + "?next=" + MapPath.review(review.id)),
                      .span(.ariaHidden(true), .text(emoji)), .span(.class("reaction-label"), .text(label)), .span(.class("count"), .text(String(count))))
        }
        return .button(.type(.button), .id("\(kind)-button"), .class("reaction"), .attribute(named: "aria-pressed", value: Layout.readerPartMarker(pressedPart)),
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

    /// The review's head and reactions, with the reader's own buttons (`ownButtons`) as their part.
    func reviewBody(_ req: Request, _ review: ReviewResponse, signedIn: Bool) -> Node<HTML.BodyContext> {
        .div(
            .class("review-body"),
            reviewHead(req, review),
            .div(
                .class("reactions"),
                reaction(req, review, "like", pressedPart: 1, count: review.likeCount, emoji: "❤️", signedIn: signedIn),
                reaction(req, review, "bookmark", pressedPart: 2, count: review.bookmarkCount, emoji: "🔖", signedIn: signedIn),
                signedIn ? Layout.readerPart(3) : .empty
            )
        )
    }

    /// Report (someone else's review) or delete (one's own, or as an administrator).
    func ownButtons(_ req: Request, actor: MapActor?, mine: Bool) -> Node<HTML.BodyContext> {
        let report: Node<HTML.BodyContext> = actor != nil && !mine
            ? .button(.type(.button), .id("report-button"), .class("link-button"), .text(req.t("burger_map.review.report"))) : .empty
        let delete: Node<HTML.BodyContext> = mine || actor?.isAdmin == true
            ? .button(.type(.button), .id("delete-review"), .class("link-button danger"), .text(req.t("burger_map.review.delete"))) : .empty
        return .group(report, delete)
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
