import Platform
import Plot
import Vapor

/// `/forgot-password` (an address → a link by mail) and `/reset-password?token=…` (the link's
/// page: a new password, or why the link no longer works). The rules are
/// `AccountService+PasswordReset`'s, as on the API.
extension AccountPages {
    struct ForgotPasswordForm: Content { package var email: String? }

    func forgotPasswordForm(req: Request) async throws -> Response {
        let notice = req.query[String.self, at: "undone"] == "1" ? req.t("reset.email_undone") : nil
        return forgotPasswordPage(req, email: nil, error: nil, notice: notice)
    }

    /// The same page for every well-formed address: the mail goes only where an account is.
    func forgotPassword(req: Request) async throws -> Response {
        let form = try req.content.decode(ForgotPasswordForm.self)
        do {
            try await req.accounts.requestPasswordReset(email: form.email ?? "", language: req.language)
        } catch let error as AppError where error.status.code < 500 || error.code == "mail_unavailable" {
            let page = forgotPasswordPage(req, email: form.email, error: error)
            page.headers.add(contentsOf: error.headers)
            return page
        }
        return Layout.page(
            req, title: req.t("reset.sent_title"),
            main: .section(
                .class("card narrow"),
                .h1(.text(req.t("reset.sent_title"))),
                .p(.id("reset-sent"), .role("status"), .text(req.t("reset.sent_explain"))),
                .p(.class("muted"), .text(req.t("reset.sent_hint", ["minutes": String(Int(AccountService.passwordResetLifetime / 60))]))),
                .a(.class("button wide"), .href(AccountPath.logIn()), .text(req.t("reset.back_to_login")))
            )
        )
    }

    private func forgotPasswordPage(_ req: Request, email: String?, error: AppError?, notice: String? = nil) -> Response {
        Layout.page(
            req, title: req.t("reset.forgot_title"), status: error?.status ?? .ok,
            main: .section(
                .class("card narrow"),
                .h1(.text(req.t("reset.forgot_title"))),
                notice.map { .p(.class("notice"), .id("forgot-notice"), .role("status"), .text($0)) } ?? .empty,
                .p(.class("lead"), .text(req.t("reset.forgot_lead"))),
                Layout.formError(req, error),
                .form(
                    .action(AccountPath.forgotPassword()), .method(.post), .class("stack"),
                    Layout.csrfField(req),
                    field(id: "email", label: req.t("field.email"), type: .email, value: email, autocomplete: "email"),
                    .button(.type(.submit), .class("button primary wide"), .text(req.t("reset.send_link")))
                ),
                AccountService.offersPhoneReset(req.application)
                    ? .p(.class("switch-link"), .a(.id("reset-by-phone"), .href(AccountPath.forgotPasswordByPhone()), .text(req.t("reset.by_phone"))))
                    : .empty,
                .p(.class("switch-link"), .a(.href(AccountPath.logIn()), .text(req.t("reset.back_to_login"))))
            )
        )
    }

    struct ResetPasswordForm: Content { package var token: String?; package var password: String? }

    func resetPasswordForm(req: Request) async throws -> Response {
        let token = req.query[String.self, at: "token"] ?? ""
        let problem = try await req.accounts.resetLinkProblem(token)
        return resetPasswordPage(req, token: token, linkProblem: problem, error: nil)
    }

    /// A new password signs this browser in (every other session ended) and lands on `/me`.
    func resetPassword(req: Request) async throws -> Response {
        let form = try req.content.decode(ResetPasswordForm.self)
        let token = form.token ?? ""
        return try await req.submitForm {
            let user = try await req.accounts.confirmPasswordReset(token: token, password: form.password ?? "")
            return try await startSession(req, user: user, next: AccountPath.me() + "?notice=password_reset")
        } onRuleBroken: { error in
            // A link that stopped working says so instead of the form; a weak password keeps the form.
            let linkProblem = error.code.hasPrefix("reset_link_") || error.code == "account_suspended" ? error : nil
            return resetPasswordPage(req, token: token, linkProblem: linkProblem, error: linkProblem == nil ? error : nil)
        }
    }

    private func resetPasswordPage(_ req: Request, token: String, linkProblem: AppError?, error: AppError?) -> Response {
        let main: Node<HTML.BodyContext>
        if let linkProblem {
            main = .section(
                .class("card narrow"),
                .h1(.text(req.t("reset.link_title"))),
                .p(.id("reset-link-problem"), .class("form-error"), .role("alert"), .text(req.message(for: linkProblem))),
                .a(.class("button primary wide"), .href(AccountPath.forgotPassword()), .text(req.t("reset.new_link")))
            )
        } else {
            main = .section(
                .class("card narrow"),
                .h1(.text(req.t("reset.new_title"))),
                Layout.formError(req, error),
                .form(
                    .action(AccountPath.resetPassword()), .method(.post), .class("stack"),
                    Layout.csrfField(req),
                    .input(.type(.hidden), .name("token"), .value(token)),
                    field(id: "password", label: req.t("me.password_new"), type: .password, value: nil, autocomplete: "new-password",
                          hint: req.t("signup.password_hint"), extra: [("minlength", "8")],
                          error: error.map(req.message(for:))),
                    .button(.type(.submit), .class("button primary wide"), .text(req.t("reset.save")))
                )
            )
        }
        let response = Layout.page(req, title: req.t(linkProblem == nil ? "reset.new_title" : "reset.link_title"),
                                   status: linkProblem?.status ?? error?.status ?? .ok, main: main)
        // The link's token is in this page's address: it goes in no Referer, not even to us.
        response.headers.replaceOrAdd(name: "Referrer-Policy", value: "no-referrer")
        return response
    }
}
