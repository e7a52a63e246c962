import Platform
import Plot
import Vapor

/// A new email address on `/me` (with the password), and the pages its two links open:
/// `/confirm-email` (from the new inbox) and `/undo-email` (from the old one). A link's page
/// changes nothing by being opened — mail scanners open links — only by its button.
extension AccountPages {
    func emailSection(_ req: Request, email: String) -> Node<HTML.BodyContext> {
        .section(
            .class("card"), .id("email"),
            .h2(.text(req.t("me.email"))),
            .p(.class("muted"), .text(req.t("me.email_explain", ["email": email]))),
            .form(
                .action(AccountPath.email()), .method(.post), .class("stack"),
                Layout.csrfField(req),
                field(id: "new-email", label: req.t("me.email_new"), type: .email, value: nil, autocomplete: "email", name: "email"),
                field(id: "email-password", label: req.t("me.password_current"), type: .password, value: nil,
                      autocomplete: "current-password", name: "password"),
                .button(.type(.submit), .class("button"), .text(req.t("me.email_submit")))
            )
        )
    }

    struct EmailForm: Content { package var email: String?; package var password: String? }

    func changeEmail(req: Request) async throws -> Response {
        let user = try req.requireUser()
        let form = try req.content.decode(EmailForm.self)
        return try await respondOnMyPage(req, user: user, notice: "email_sent") {
            _ = try await req.accounts.requestEmailChange(user, to: form.email ?? "", password: form.password ?? "")
        }
    }

    struct LinkForm: Content { package var token: String? }

    func confirmEmailPage(req: Request) async throws -> Response {
        try await emailLinkPage(req, undo: false)
    }

    func undoEmailPage(req: Request) async throws -> Response {
        try await emailLinkPage(req, undo: true)
    }

    /// The new address lands on `/me` when signed in, else on the login page with it filled in.
    func confirmEmail(req: Request) async throws -> Response {
        let token = try req.content.decode(LinkForm.self).token ?? ""
        return try await req.submitForm {
            let user = try await req.accounts.confirmEmailChange(token: token)
            if req.auth.get(User.self)?.id == user.id { return Layout.redirect(to: AccountPath.me() + "?notice=email_changed") }
            return Layout.redirect(to: AccountPath.logIn() + "?email_changed=1")
        } onRuleBroken: { error in
            emailLinkView(req, token: token, undo: false, state: .failure(error))
        }
    }

    /// The old address is back and every session ended: sign in again (and change the password).
    func undoEmail(req: Request) async throws -> Response {
        let token = try req.content.decode(LinkForm.self).token ?? ""
        return try await req.submitForm {
            _ = try await req.accounts.undoEmailChange(token: token)
            let response = Layout.redirect(to: AccountPath.forgotPassword() + "?undone=1")
            response.cookies[WebSessionAuthenticator.cookieName] = .expired
            CSRFMiddleware.renewNonce(req)
            return response
        } onRuleBroken: { error in
            emailLinkView(req, token: token, undo: true, state: .failure(error))
        }
    }

    private func emailLinkPage(_ req: Request, undo: Bool) async throws -> Response {
        let token = req.query[String.self, at: "token"] ?? ""
        return emailLinkView(req, token: token, undo: undo, state: try await req.accounts.emailLinkState(token, undo: undo))
    }

    private func emailLinkView(_ req: Request, token: String, undo: Bool, state: Result<String, AppError>) -> Response {
        let prefix = undo ? "email_undo" : "email_confirm"
        let main: Node<HTML.BodyContext>
        switch state {
        case .failure(let problem):
            main = .section(
                .class("card narrow"),
                .h1(.text(req.t("reset.link_title"))),
                .p(.id("email-link-problem"), .class("form-error"), .role("alert"), .text(req.message(for: problem))),
                .a(.class("button wide"), .href(AccountPath.me()), .text(req.t("nav.me")))
            )
        case .success(let email):
            main = .section(
                .class("card narrow"),
                .h1(.text(req.t("\(prefix).title"))),
                .p(.id("email-link-address"), .text(req.t("\(prefix).explain", ["email": email]))),
                .form(
                    .action(undo ? AccountPath.undoEmail() : AccountPath.confirmEmail()), .method(.post),
                    Layout.csrfField(req),
                    .input(.type(.hidden), .name("token"), .value(token)),
                    .button(.type(.submit), .class(undo ? "button danger wide" : "button primary wide"), .id("email-link-submit"),
                            .text(req.t("\(prefix).submit")))
                )
            )
        }
        let status: HTTPResponseStatus = if case .failure(let problem) = state { problem.status } else { .ok }
        let response = Layout.page(req, title: req.t("\(prefix).title"), status: status, main: main)
        response.headers.replaceOrAdd(name: "Referrer-Policy", value: "no-referrer")
        return response
    }
}
