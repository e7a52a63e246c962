import Accounts
import Foundation
import Platform
import Plot
import Vapor

/// The chat of a match (`/mates/chat/{match}`, only its two people; `chat.js` pages the history,
/// follows `/mates/chat/{match}/live` behind the session cookie and sends), its menu (a menu game
/// together, review, report, cancel), and the review and report forms (`review.js`, `report.js`).
extension MatesPages {
    /// The match in the path, when the viewer is one of its two people; 404 `match_not_found` for
    /// anyone else, as the API answers.
    /// Read through `MatesService.matchPage` (kept while nothing shown changed), with whether the
    /// viewer reviewed the match.
    func pathMatch(_ req: Request) async throws -> (match: MatchRow, me: UUID, partner: MatePersonResponse?, reviewed: Bool) {
        let me = try req.matesStanding().id
        guard let id = req.parameters.get("match").flatMap(UUID.init(uuidString:)) else { throw AppError.notFound("match_not_found") }
        let page = try await req.mates.matchPage(id, for: me)
        return (page.match, me, page.partner.map(MatePersonResponse.init), page.reviewed)
    }

    func chat(req: Request) async throws -> Response {
        let (match, _, partner, reviewed) = try await pathMatch(req)
        let matchID = match.id
        let name = partner?.nickname ?? req.t("mates.chat.someone")
        let open = match.endedAt == nil
        let matchConfig: [String: Any] = [
            "id": matchID.uuidString.lowercased(), "open": open, "partner": partner.map { $0.id.uuidString.lowercased() } ?? NSNull(),
            "live": MatesPath.chatLive(matchID), "reviewed": reviewed,
        ]
        // The partner's picture is shown beside what the config and the title hold.
        return try await page(
            req, title: req.t("mates.chat.title", ["name": name]), tab: nil, script: "chat", withTabs: false,
            config: ["match": matchConfig, "maxCharacters": MatesRules.maxMessageCharacters],
            alsoShows: [partner.map { String($0.avatar) } ?? "", name]
        ) {
            let header: Node<HTML.BodyContext> = .header(
                .class("chat-header"),
                .a(.class("chat-back"), .href(Tab.home.path), .ariaLabel(req.t("mates.chat.back")), .text("‹")),
                partner.map { .img(.class("chat-avatar"), .src(Self.avatarURL($0.avatar)), .alt("")) } ?? .empty,
                .h1(.id("chat-title"), .text(name)),
                .span(.id("live-state"), .class("live-state"), .role("status")),
                .button(.type(.button), .id("chat-menu-button"), .class("icon-button"), .attribute(named: "aria-haspopup", value: "true"),
                        .attribute(named: "aria-expanded", value: "false"), .attribute(named: "aria-controls", value: "chat-menu"),
                        .ariaLabel(req.t("mates.chat.menu")), .text("⋯"))
            )
            let menu: Node<HTML.BodyContext> = .element(named: "ul", nodes: [
                .id("chat-menu"), .class("chat-menu"), .role("menu"), .attribute(named: "hidden", value: "hidden"),
                menuItem("menu-game", "🎲", req.t("mates.chat.menu.menu_game"), enabled: open),
                menuItem("menu-review", "⭐", req.t("mates.chat.menu.review"), enabled: true),
                menuItem("menu-report", "🚨", req.t("mates.chat.menu.report"), enabled: partner != nil),
                menuItem("menu-cancel", "✖️", req.t("mates.chat.menu.cancel"), enabled: open),
            ])
            let ended: Node<HTML.BodyContext> = .p(
                .id("chat-ended"), .class("notice chat-ended"), .role("status"), open ? .attribute(named: "hidden", value: "hidden") : .empty,
                .span(.id("chat-ended-text"), .text(req.t("mates.chat.ended"))), .text(" "),
                // Once reviewed, the notice says so rather than asking again.
                reviewed ? .span(.id("chat-ended-reviewed"), .text(req.t("mates.chat.reviewed")))
                    : .a(.id("chat-ended-review"), .href(MatesPath.review(matchID)), .text(req.t("mates.chat.leave_review")))
            )
            let closed: Node<HTML.BodyContext> = open ? .empty : .attribute(named: "disabled", value: "disabled")
            let form: Node<HTML.BodyContext> = .plainForm(
                .id("chat-form"), .class("chat-form"), .attribute(named: "novalidate", value: "novalidate"),
                .label(.for("chat-input"), .class("visually-hidden"), .text(req.t("mates.chat.input"))),
                .element(named: "textarea", nodes: [
                    .id("chat-input"), .attribute(named: "name", value: "text"), .attribute(named: "rows", value: "1"),
                    .attribute(named: "maxlength", value: String(MatesRules.maxMessageCharacters)),
                    .attribute(named: "placeholder", value: req.t(open ? "mates.chat.placeholder" : "mates.chat.placeholder_ended")), closed,
                ]),
                .button(.type(.submit), .id("chat-send"), .class("button primary"), open ? .empty : .attribute(named: "disabled", value: "disabled"),
                        .text(req.t("mates.chat.send")))
            )
            return .group(
                header, menu, ended,
                .div(.id("chat-older"), .class("scroll-sentinel")),
                // A log: screen readers announce lines as they are added (its implicit aria-live is
                // polite). The role sits on a wrapper, so the lines keep their list (a list given
                // another role loses it, and every line fails axe's `listitem`).
                .div(.id("chat-log-region"), .role("log"), .attribute(named: "aria-label", value: req.t("mates.chat.log")),
                     .ol(.id("chat-log"), .class("chat-log"))),
                form,
                confirmDialog(req, "cancel", yes: "mates.chat.cancel.yes", danger: true),
                confirmDialog(req, "finish", yes: "mates.chat.finish.yes", danger: false)
            )
        }
    }

    /// "Cancel the match?" / "End the meet-up?": a `<dialog>` the script opens, with no and yes.
    private func confirmDialog(_ req: Request, _ id: String, yes: String, danger: Bool) -> Node<HTML.BodyContext> {
        .element(named: "dialog", nodes: [
            .id("\(id)-dialog"), .class("confirm-dialog"), .ariaLabelledBy("\(id)-title"),
            .h2(.id("\(id)-title"), .text(req.t("mates.chat.\(id).title"))),
            .p(.text(req.t("mates.chat.\(id).text"))),
            .div(.class("dialog-actions"),
                 .button(.type(.button), .id("\(id)-no"), .class("button"), .text(req.t("mates.chat.dialog.no"))),
                 .button(.type(.button), .id("\(id)-yes"), .class(danger ? "button danger" : "button primary"), .text(req.t(yes)))),
        ])
    }

    private func menuItem(_ id: String, _ emoji: String, _ label: String, enabled: Bool) -> Node<HTML.BodyContext> {
        .element(named: "li", nodes: [
            .attribute(named: "role", value: "none"),
            .button(.type(.button), .id(id), .role("menuitem"), enabled ? .empty : .attribute(named: "disabled", value: "disabled"),
                    .span(.ariaHidden(true), .text(emoji)), .text(" " + label)),
        ])
    }

    /// The chat's live socket for the pages (the API's, behind the session cookie: a browser
    /// cannot put a bearer token on a WebSocket), opened only by a page of this origin.
    func live(req: Request) async throws -> Response {
        try req.requireSameOriginSocket()
        let (match, me, _, _) = try await pathMatch(req)
        return try MatesChatSocket.open(match: match, me: me, req)
    }

    // MARK: Review and report

    func review(req: Request) async throws -> Response {
        let (match, _, partner, reviewed) = try await pathMatch(req)
        let matchID = match.id
        let name = partner?.nickname ?? req.t("mates.chat.someone")
        // Reviewed already: what is left is to say so, not an empty form to fill again.
        if reviewed {
            return try await page(req, title: req.t("mates.review.title", ["name": name]), tab: nil, script: nil, withTabs: false) {
                .section(
                    .class("card stack"),
                    .h1(.text(req.t("mates.review.title", ["name": name]))),
                    .p(.id("already-reviewed"), .class("notice"), .role("status"), .text(req.t("mates.review.done", ["name": name]))),
                    .a(.class("button wide"), .href(MatesPath.chat(matchID)), .text(req.t("mates.review.back")))
                )
            }
        }
        return try await page(
            req, title: req.t("mates.review.title", ["name": name]), tab: nil, script: "review", withTabs: false,
            config: ["match": ["id": matchID.uuidString.lowercased(), "open": match.endedAt == nil], "maxComment": MatesRules.maxReviewComment],
            alsoShows: [name]
        ) {
            let picks: Node<HTML.BodyContext> = .fieldset(
                .class("pick-grid"),
                .legend(req.t("mates.review.picks")),
                .forEach(Array(ReputationCategory.allCases.enumerated())) { index, category in
                    pick("pick", value: String(index), id: "pick-\(category.rawValue)", label: req.t("mates.reputation.\(category.rawValue)"))
                }
            )
            return .plainForm(
                .id("review-form"), .class("card stack"), .attribute(named: "novalidate", value: "novalidate"),
                .h1(.text(req.t("mates.review.title", ["name": name]))),
                picks,
                commentField(id: "review-comment", label: req.t("mates.review.comment"), placeholder: req.t("mates.review.placeholder"),
                             maxLength: MatesRules.maxReviewComment),
                .p(.class("form-error"), .id("review-error"), .role("alert"), .attribute(named: "hidden", value: "hidden")),
                .button(.type(.submit), .id("send-review"), .class("button primary wide"), .text(req.t("mates.review.send"))),
                .a(.class("button wide"), .href(MatesPath.chat(matchID)), .text(req.t("mates.review.back")))
            )
        }
    }

    func report(req: Request) async throws -> Response {
        let (match, _, partner, _) = try await pathMatch(req)
        guard let partner else { throw AppError.notFound("user_not_found") }
        let matchID = match.id
        return try await page(
            req, title: req.t("mates.report.title", ["name": partner.nickname]), tab: nil, script: "report", withTabs: false,
            config: ["match": ["id": matchID.uuidString.lowercased()], "user": partner.id.uuidString.lowercased(),
                     "maxComment": MatesRules.maxReportComment],
            alsoShows: [partner.nickname]
        ) {
            let categories: Node<HTML.BodyContext> = .fieldset(
                .class("pick-grid"),
                .legend(req.t("mates.report.categories")),
                .forEach(ReportCategory.allCases) { category in
                    pick("category", value: category.rawValue, id: "category-\(category.rawValue)", label: req.t("mates.report.category.\(category.rawValue)"))
                }
            )
            return .plainForm(
                .id("report-form"), .class("card stack"), .attribute(named: "novalidate", value: "novalidate"),
                .h1(.text(req.t("mates.report.title", ["name": partner.nickname]))),
                .p(.class("muted"), .text(req.t("mates.report.lead"))),
                categories,
                commentField(id: "report-comment", label: req.t("mates.report.comment"), placeholder: "", maxLength: MatesRules.maxReportComment),
                .p(.class("form-error"), .id("report-error"), .role("alert"), .attribute(named: "hidden", value: "hidden")),
                .button(.type(.submit), .id("send-report"), .class("button danger wide"), .text(req.t("mates.report.send"))),
                .a(.class("button wide"), .href(MatesPath.chat(matchID)), .text(req.t("mates.review.back")))
            )
        }
    }

    /// A checkbox drawn as a chip (the review's picks, the report's categories).
    private func pick(_ name: String, value: String, id: String, label: String) -> Node<HTML.BodyContext> {
        .label(.class("pick"),
               .input(.type(.checkbox), .attribute(named: "name", value: name), .value(value), .id(id)),
               .span(.text(label)))
    }

    private func commentField(id: String, label: String, placeholder: String, maxLength: Int) -> Node<HTML.BodyContext> {
        .div(
            .class("field"),
            .label(.for(id), .text(label)),
            .element(named: "textarea", nodes: [
                .id(id), .attribute(named: "name", value: "comment"), .attribute(named: "rows", value: "4"),
                .attribute(named: "maxlength", value: String(maxLength)), .attribute(named: "placeholder", value: placeholder),
            ])
        )
    }
}
