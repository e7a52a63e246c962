import Platform
import Plot
import Vapor

/// `/forgot-password/phone`: a number → a code by text message (when it is an account's
/// verified phone) → the code and a new password, which sign this browser in. The rules are
/// `AccountService+PhoneReset`'s, as on the API; where no code can reach a phone the page says so.
extension AccountPages {
    struct PhoneResetForm: Content { package var phone: String?; package var code: String?; package var password: String? }

    func phoneResetForm(req: Request) async throws -> Response {
        let unavailable = AccountService.offersPhoneReset(req.application) ? nil : AppError(.serviceUnavailable, "sms_unavailable")
        return phoneNumberPage(req, phone: req.query[String.self, at: "phone"], error: unavailable)
    }

    /// The same next page for every well-formed number: the code goes only where an account is.
    func sendPhoneResetCode(req: Request) async throws -> Response {
        let form = try req.content.decode(PhoneResetForm.self)
        let phone = form.phone ?? ""
        do {
            try await req.accounts.requestPhoneReset(phone: phone, language: req.language)
        } catch let error as AppError where error.status.code < 500 || error.code == "sms_unavailable" {
            let page = phoneNumberPage(req, phone: phone, error: error)
            page.headers.add(contentsOf: error.headers)
            return page
        }
        return phoneCodePage(req, phone: phone, error: nil, status: .accepted)
    }

    /// A right code and an acceptable password sign this browser in (every other session ended) and land on `/me`.
    func resetPasswordByPhone(req: Request) async throws -> Response {
        let form = try req.content.decode(PhoneResetForm.self)
        let phone = form.phone ?? ""
        return try await req.submitForm {
            let user = try await req.accounts.confirmPhoneReset(phone: phone, code: form.code ?? "", password: form.password ?? "")
            return try await startSession(req, user: user, next: AccountPath.me() + "?notice=password_reset")
        } onRuleBroken: { error in
            phoneCodePage(req, phone: phone, error: error, status: error.status)
        }
    }

    private func phoneNumberPage(_ req: Request, phone: String?, error: AppError?) -> Response {
        Layout.page(
            req, title: req.t("reset.phone_title"), status: error?.status ?? .ok,
            main: .section(
                .class("card narrow"),
                .h1(.text(req.t("reset.phone_title"))),
                .p(.class("lead"), .text(req.t("reset.phone_lead"))),
                Layout.formError(req, error),
                .form(
                    .action(AccountPath.forgotPasswordByPhone()), .method(.post), .class("stack"),
                    Layout.csrfField(req),
                    field(id: "phone", label: req.t("field.phone"), type: .tel, value: phone, autocomplete: "tel",
                          extra: [("inputmode", "tel")]),
                    .button(.type(.submit), .class("button primary wide"), .text(req.t("reset.send_code")))
                ),
                .p(.class("switch-link"), .a(.href(AccountPath.forgotPassword()), .text(req.t("reset.by_email")))),
                .p(.class("switch-link"), .a(.href(AccountPath.logIn()), .text(req.t("reset.back_to_login"))))
            )
        )
    }

    /// The code and the new password; the number rides along hidden.
    private func phoneCodePage(_ req: Request, phone: String, error: AppError?, status: HTTPResponseStatus) -> Response {
        let passwordError = error.flatMap { $0.code.hasPrefix("password_") ? req.message(for: $0) : nil }
        let again = AccountPath.forgotPasswordByPhone() + "?phone=" + (phone.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        return Layout.page(
            req, title: req.t("reset.code_title"), status: status,
            main: .section(
                .class("card narrow"),
                .h1(.text(req.t("reset.code_title"))),
                error == nil ? .p(.id("reset-code-sent"), .role("status"), .text(req.t("reset.code_sent_explain"))) : .empty,
                passwordError == nil ? Layout.formError(req, error) : .empty,
                .form(
                    .action(AccountPath.resetPasswordByPhone()), .method(.post), .class("stack"),
                    Layout.csrfField(req),
                    .input(.type(.hidden), .name("phone"), .value(phone)),
                    field(id: "code", label: req.t("reset.code_label"), type: .text, value: nil, autocomplete: "one-time-code",
                          hint: req.t("reset.code_hint", ["minutes": String(AccountService.phoneResetCodeMinutes(req.application))]),
                          extra: [("inputmode", "numeric"), ("pattern", "[0-9]{6}"), ("maxlength", "6")]),
                    field(id: "password", label: req.t("me.password_new"), type: .password, value: nil, autocomplete: "new-password",
                          hint: req.t("signup.password_hint"), extra: [("minlength", "8")], error: passwordError),
                    .button(.type(.submit), .class("button primary wide"), .text(req.t("reset.save")))
                ),
                .p(.class("switch-link"), .a(.id("reset-code-again"), .href(again), .text(req.t("reset.code_again"))))
            )
        )
    }
}
