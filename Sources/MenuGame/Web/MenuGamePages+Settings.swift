import Accounts
import Fluent
import Platform
import Plot
import Vapor

/// Settings (disliked foods, language, feedback, version) and the administrators' feedback inbox.
extension MenuGamePages {
    // MARK: Settings

    func settings(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        let notice = req.query[String.self, at: "notice"].flatMap { ["saved", "feedback_sent"].contains($0) ? $0 : nil }
        return settingsPage(req, device: device, notice: notice, error: nil, feedback: nil)
    }

    func settingsPage(_ req: Request, device: MenuGameDevice, notice: String?, error: AppError?, feedback: String?) -> Response {
        let current = req.language
        return MenuGamePages.page(req, device: device, keep: error == nil && feedback == nil) {
            Layout.PageParts(
                title: req.t("menu_game.settings.title"), status: error?.status ?? .ok,
                extras: MenuGamePages.extras(req, tab: nil),
                main: .group(
                    .h1(.text(req.t("menu_game.settings.title"))),
                    notice.map { .p(.class("notice"), .role("status"), .text(req.t("menu_game.settings.\($0)"))) } ?? .empty,
                    .section(
                        .class("card"), .id("dislikes-settings"), .ariaLabelledBy("dislikes-settings-title"),
                        .h2(.id("dislikes-settings-title"), .text(req.t("menu_game.disliked.title"))),
                        .p(.class("muted"), .text(req.t("menu_game.disliked.lead"))),
                        .form(
                            .action(PlayPath.preferences()), .method(.post), .class("stack"),
                            Layout.csrfField(req),
                            .input(.type(.hidden), .name("next"), .value(PlayPath.settings() + "?notice=saved")),
                            MenuGamePages.dislikedTiles(req, selected: device.disliked),
                            .button(.type(.submit), .class("button primary wide"), .id("save-dislikes"), .text(req.t("menu_game.settings.save")))
                        )
                    ),
                    .section(
                        .class("card"), .ariaLabelledBy("language-settings-title"),
                        .h2(.id("language-settings-title"), .text(req.t("field.language"))),
                        .form(
                            .action(AccountPath.language()), .method(.post), .class("stack"),
                            Layout.csrfField(req),
                            .input(.type(.hidden), .name("next"), .value(PlayPath.settings())),
                            .label(.for("settings-language"), .class("visually-hidden"), .text(req.t("field.language"))),
                            Layout.languageSelect(id: "settings-language", current: current),
                            .button(.type(.submit), .class("button"), .text(req.t("menu_game.settings.save")))
                        )
                    ),
                    .section(
                        .class("card"), .id("feedback"), .ariaLabelledBy("feedback-title"),
                        .h2(.id("feedback-title"), .text(req.t("menu_game.feedback.title"))),
                        .p(.class("muted"), .text(req.t("menu_game.feedback.lead"))),
                        Layout.formError(req, error),
                        .form(
                            .action(PlayPath.feedback()), .method(.post), .class("stack"),
                            Layout.csrfField(req),
                            .label(.for("feedback-message"), .text(req.t("menu_game.feedback.label"))),
                            .textarea(.id("feedback-message"), .name("message"), .rows(4), .required(true),
                                      .attribute(named: "maxlength", value: String(MenuGameFeedback.maxLength)),
                                      .text(feedback ?? "")),
                            .button(.type(.submit), .class("button"), .id("send-feedback"), .text(req.t("menu_game.feedback.send")))
                        )
                    ),
                    .section(
                        .class("card"), .ariaLabelledBy("about-title"),
                        .h2(.id("about-title"), .text(req.t("menu_game.settings.about"))),
                        .dl(
                            .class("about-list"),
                            .dt(.text(req.t("menu_game.settings.version"))), .dd(.id("app-version"), .text(AppVersion.current)),
                            .dt(.text(req.t("menu_game.settings.licenses"))), .dd(.a(.href("/licenses"), .text(req.t("menu_game.settings.licenses_link"))))
                        )
                    )
                )
            )
        }
    }

    struct FeedbackForm: Content { package var message: String? }

    func sendFeedback(req: Request) async throws -> Response {
        let device = try await MenuGameDevice.resolve(req)
        let message = try req.content.decode(FeedbackForm.self).message ?? ""
        return try await req.submitForm {
            try await req.application.feedbackLimiter.withSlot(req.clientNetwork) {
                try await req.menuGame.leaveFeedback(message, userID: req.auth.get(User.self)?.id, language: req.language)
            }
            return Layout.redirect(to: PlayPath.settings() + "?notice=feedback_sent#feedback")
        } onRuleBroken: { settingsPage(req, device: device, notice: nil, error: $0, feedback: message) }
    }

    /// Administrators read the notes here, newest first, a page at a time.
    func feedbackInbox(req: Request) async throws -> Response {
        guard try req.requireUser().role == .admin else { throw AppError.forbidden }
        let page = try CursorPageRequest(from: req)
        // Kept per address (each page of notes) until a note is left on any instance.
        return try await Layout.keptPage(req, version: req.application.menuGameEnvironment.feedback.current) {
            let (notes, next) = try await MenuPlayerStore(database: req.db).feedbackPage(page)
            let list: Node<HTML.BodyContext> = notes.isEmpty
                ? .p(.class("muted"), .text(req.t("menu_game.feedback.inbox_empty")))
                : .ul(
                    .class("feedback-list"),
                    .forEach(notes) { note in
                        .li(
                            .p(.class("feedback-message"), .text(note.message)),
                            .p(.class("muted"), .text("\(PageDates.machine(note.createdAt)) · \(note.language)"))
                        )
                    }
                )
            return Layout.PageParts(
                title: req.t("menu_game.feedback.inbox"),
                extras: MenuGamePages.extras(req, tab: nil),
                main: .section(
                    .class("card"),
                    .h1(.text(req.t("menu_game.feedback.inbox"))),
                    list,
                    next.map { .a(.class("button"), .href(PlayPath.feedback() + "?cursor=\($0)"), .text(req.t("menu_game.feedback.older"))) } ?? .empty
                )
            )
        }
    }
}
