import Fluent
import Media
import NIOFoundationEssentialsCompat
import Platform
import Plot
import Vapor

/// `/signup`, `/login`, `/logout`, `/me` and the language switch.
struct AccountPages: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        routes.get(AccountPath.signUp, use: signUpForm)
        routes.post(AccountPath.signUp, use: signUp)
        routes.get(AccountPath.logIn, use: logInForm)
        routes.post(AccountPath.logIn, use: logIn)
        routes.get(AccountPath.logOut, use: logOutConfirm)
        routes.post(AccountPath.logOut, use: logOut)
        let me = routes.grouped(SignInRequired(returnTo: AccountPath.me()))
        me.get(AccountPath.me, use: myPage)
        me.post(AccountPath.profile, use: saveProfile)
        me.post(AccountPath.photo, use: uploadPhoto)
        me.post(AccountPath.photoDelete, use: deletePhoto)
        me.post(AccountPath.password, use: changePassword)
        me.post(AccountPath.withdraw, use: withdraw)
        me.post(AccountPath.endDevice, use: endDevice)
        me.post(AccountPath.email, use: changeEmail)
        me.post(AccountPath.signOutOthers, use: signOutOthers)
        routes.post(AccountPath.language, use: switchLanguage)
        routes.get(AccountPath.forgotPassword, use: forgotPasswordForm)
        routes.post(AccountPath.forgotPassword, use: forgotPassword)
        routes.get(AccountPath.forgotPasswordByPhone, use: phoneResetForm)
        routes.post(AccountPath.forgotPasswordByPhone, use: sendPhoneResetCode)
        routes.post(AccountPath.resetPasswordByPhone, use: resetPasswordByPhone)
        routes.get(AccountPath.resetPassword, use: resetPasswordForm)
        routes.post(AccountPath.resetPassword, use: resetPassword)
        routes.get(AccountPath.confirmEmail, use: confirmEmailPage)
        routes.post(AccountPath.confirmEmail, use: confirmEmail)
        routes.get(AccountPath.undoEmail, use: undoEmailPage)
        routes.post(AccountPath.undoEmail, use: undoEmail)
    }

    // MARK: Sign up

    struct SignUpForm: Content {
        package var email: String?; package var nickname: String?; package var password: String?
        /// Where the person was when they chose to sign up: they land back there.
        package var next: String?
    }

    func signUpForm(req: Request) async throws -> Response {
        if req.auth.has(User.self) { return Layout.redirect(to: AccountPath.me()) }
        let next = Layout.safeNextPath(req.query[String.self, at: "next"]) ?? Self.cameFrom(req)
        return signUpPage(req, values: SignUpForm(next: next), problems: [:], error: nil)
    }

    /// The same-site page a form was opened from (its `Referer`), unless it is a sign-in page.
    static func cameFrom(_ req: Request) -> String? {
        guard let referer = req.headers.first(name: .referer), let url = URL(string: referer),
              let host = url.host, host == req.headers.first(name: .host)?.split(separator: ":").first.map(String.init) else { return nil }
        let path = url.path + (url.query.map { "?" + $0 } ?? "")
        guard ![AccountPath.signUp(), AccountPath.logIn(), AccountPath.logOut()].contains(url.path) else { return nil }
        return Layout.safeNextPath(path)
    }

    /// Every field's problem at once, beside the field, with what was typed kept (a valid password
    /// too); a new account lands back where it started, welcomed (`?welcome=1`).
    func signUp(req: Request) async throws -> Response {
        let form = try req.content.decode(SignUpForm.self)
        let problems = try await req.accounts.signUpProblems(email: form.email ?? "", password: form.password ?? "", nickname: form.nickname ?? "")
        if let first = ["email", "nickname", "password"].compactMap({ problems[$0] }).first {
            return signUpPage(req, values: form, problems: problems, error: AppError(first.status, "fix_fields"))
        }
        return try await req.submitForm {
            let user = try await req.accounts.signUp(email: form.email ?? "", password: form.password ?? "", nickname: form.nickname ?? "")
            let back = Layout.safeNextPath(form.next) ?? "/"
            return try await startSession(req, user: user, next: back + (back.contains("?") ? "&" : "?") + "welcome=1")
        } onRuleBroken: { signUpPage(req, values: form, problems: [:], error: $0) }
    }

    private func signUpPage(_ req: Request, values: SignUpForm, problems: [String: AppError], error: AppError?) -> Response {
        let problem = { (field: String) in problems[field].map(req.message(for:)) }
        // The empty form is kept by where it leads back to; a form sent back with its problems is made once.
        let blank = problems.isEmpty && error == nil
        return Layout.keptPage(req, shown: FormShown(next: values.next), keeps: blank) { _ in
            Layout.PageParts(title: req.t("signup.title"), status: error?.status ?? .ok, main: .section(
                .class("card narrow"),
                .h1(.text(req.t("signup.title"))),
                .p(.class("lead"), .text(req.t("signup.lead"))),
                Layout.formError(problems.isEmpty ? error.map(req.message(for:)) : req.t("signup.fix_fields")),
                .form(
                    .action(AccountPath.signUp()), .method(.post), .class("stack"),
                    Layout.csrfField(req),
                    .input(.type(.hidden), .name("next"), .value(Layout.safeNextPath(values.next) ?? "")),
                    field(id: "email", label: req.t("field.email"), type: .email, value: values.email, autocomplete: "email",
                          error: problem("email")),
                    field(id: "nickname", label: req.t("field.nickname"), type: .text, value: values.nickname,
                          autocomplete: "nickname", hint: req.t("signup.nickname_hint"), extra: [("minlength", "1"), ("maxlength", "20")],
                          error: problem("nickname")),
                    // A valid password is kept while another field is fixed; one that broke a rule is typed again.
                    field(id: "password", label: req.t("field.password"), type: .password, value: problems["password"] == nil ? values.password : nil,
                          autocomplete: "new-password", hint: req.t("signup.password_hint"), extra: [("minlength", "8")],
                          error: problem("password")),
                    .button(.type(.submit), .class("button primary wide"), .text(req.t("signup.submit")))
                ),
                .p(.class("switch-link"), .text(req.t("signup.have_account") + " "),
                   .a(.id("to-login"), .href(Self.keepingNext(AccountPath.logIn(), values.next)), .text(req.t("nav.login"))))
            ))
        }
    }

    /// What the blank sign-up and log-in forms show beyond their address: where they lead back to
    /// (from `next` or the page the person came from) and the log-in page's notice.
    private struct FormShown: Hashable, Sendable {
        let next: String?
        var notice: String?
    }

    // MARK: Log in and out

    struct LogInForm: Content { package var email: String?; package var password: String?; package var next: String? }

    func logInForm(req: Request) async throws -> Response {
        // As sign-up: the page the header's link was followed from, unless one is named.
        let next = Layout.safeNextPath(req.query[String.self, at: "next"]) ?? Self.cameFrom(req)
        if req.auth.has(User.self) { return Layout.redirect(to: next ?? AccountPath.me()) }
        let notice = req.query[String.self, at: "email_changed"] == "1" ? req.t("login.email_changed") : nil
        return logInPage(req, values: LogInForm(next: next), error: nil, notice: notice)
    }

    func logIn(req: Request) async throws -> Response {
        let form = try req.content.decode(LogInForm.self)
        return try await req.submitForm {
            let user = try await req.accounts.authenticate(email: form.email ?? "", password: form.password ?? "")
            return try await startSession(req, user: user, next: Layout.safeNextPath(form.next) ?? AccountPath.me())
        } onRuleBroken: { logInPage(req, values: form, error: $0) }
    }

    private func logInPage(_ req: Request, values: LogInForm, error: AppError?, notice: String? = nil) -> Response {
        // A form sent back with its error (and the address typed) is made once, not kept.
        Layout.keptPage(req, shown: FormShown(next: values.next, notice: notice), keeps: error == nil && values.email == nil) { _ in
            Layout.PageParts(title: req.t("login.title"), status: error?.status ?? .ok, main: .section(
                .class("card narrow"),
                .h1(.text(req.t("login.title"))),
                notice.map { .p(.class("notice"), .id("login-notice"), .role("status"), .text($0)) } ?? .empty,
                Layout.formError(req, error),
                .form(
                    .action(AccountPath.logIn()), .method(.post), .class("stack"),
                    Layout.csrfField(req),
                    .input(.type(.hidden), .name("next"), .value(Layout.safeNextPath(values.next) ?? "")),
                    field(id: "email", label: req.t("field.email"), type: .email, value: values.email, autocomplete: "username"),
                    field(id: "password", label: req.t("field.password"), type: .password, value: nil, autocomplete: "current-password"),
                    .button(.type(.submit), .class("button primary wide"), .text(req.t("login.submit")))
                ),
                .p(.class("switch-link"), .a(.id("forgot-password"), .href(AccountPath.forgotPassword()), .text(req.t("login.forgot")))),
                .p(.class("switch-link"), .text(req.t("login.no_account") + " "),
                   .a(.id("to-signup"), .href(Self.keepingNext(AccountPath.signUp(), values.next)), .text(req.t("nav.signup"))))
            ))
        }
    }

    /// `path` with the page the person came from (`next`, when it is one of ours), so switching
    /// between signing in and signing up still ends where they were.
    static func keepingNext(_ path: String, _ next: String?) -> String {
        guard let next = Layout.safeNextPath(next) else { return path }
        return Layout.path(path, returningTo: next)
    }

    func startSession(_ req: Request, user: User, next: String) async throws -> Response {
        let (token, expiresAt) = try await req.accounts.startWebSession(for: user, userAgent: req.headers.first(name: .userAgent))
        await req.handDeviceOver(to: user.id, from: .browserCookie)
        let response = Layout.redirect(to: next)
        response.cookies[WebSessionAuthenticator.cookieName] = WebSessionAuthenticator.cookie(
            token, expiresAt: expiresAt, secure: req.application.settings.usesSecureCookies)
        CSRFMiddleware.renewNonce(req)
        return response
    }

    func logOutConfirm(req: Request) async throws -> Response {
        guard req.auth.has(User.self) else { return Layout.redirect(to: "/") }
        return Layout.keptPage(req, version: 0) {
            Layout.PageParts(title: req.t("logout.title"), main: .section(
                .class("card narrow"),
                .h1(.text(req.t("logout.title"))),
                .p(.text(req.t("logout.question"))),
                .form(
                    .action(AccountPath.logOut()), .method(.post),
                    Layout.csrfField(req),
                    .button(.type(.submit), .class("button primary wide"), .id("confirm-logout"), .text(req.t("nav.logout")))
                ),
                .a(.class("button wide"), .id("cancel-logout"), .href(AccountPath.me()), .text(req.t("logout.stay")))
            ))
        }
    }

    func logOut(req: Request) async throws -> Response {
        if let session = req.signedInAccount?.session {
            try await req.accounts.revokeSession(session)
        }
        let response = Layout.redirect(to: "/")
        response.cookies[WebSessionAuthenticator.cookieName] = .expired
        CSRFMiddleware.renewNonce(req)
        return response
    }

    // MARK: My page

    func myPage(req: Request) async throws -> Response {
        let user = try req.requireUser()
        let notice = req.query[String.self, at: "notice"].flatMap { ["profile_saved", "photo_saved", "photo_removed", "password_changed", "password_reset", "device_signed_out", "others_signed_out",
                                                                       "email_sent", "email_changed"].contains($0) ? $0 : nil }
        return try await myPageView(req, user: user, notice: notice, error: nil)
    }

    /// Everything `/me` shows, read fresh per request; the page is kept by it (`Layout.keptPage`).
    private struct MyPageShown: Hashable, Sendable {
        let nickname: String
        let email: String
        let isAdmin: Bool
        let imageURL: String?
        let language: Platform.Language
        let notice: String?
        let devices: [DeviceShown]
    }

    private func myPageView(_ req: Request, user: User, notice: String?, error: AppError?) async throws -> Response {
        let devices = try await req.accounts.signedInDevices(of: user, current: req.signedInAccount?.session)
        let shown = MyPageShown(
            nickname: user.nickname, email: user.email, isAdmin: user.role == .admin,
            imageURL: user.profileImageKey.map(req.application.files.urlPath(for:)), language: user.language ?? req.language,
            notice: notice, devices: devicesShown(req, devices)
        )
        // A rule broken shows its message once: that page is made, not kept.
        return Layout.keptPage(req, shown: shown, keeps: error == nil) { shown in
            Layout.PageParts(title: req.t("me.title"), status: error?.status ?? .ok, main: myPageBody(req, shown, error: error))
        }
    }

    private func myPageBody(_ req: Request, _ shown: MyPageShown, error: AppError?) -> Node<HTML.BodyContext> {
        let avatar: Node<HTML.BodyContext> = shown.imageURL.map {
            .img(.class("avatar"), .src($0), .alt(req.t("me.photo_alt", ["nickname": shown.nickname])))
        } ?? .div(.class("avatar placeholder"), .attribute(named: "aria-hidden", value: "true"), .text(String(shown.nickname.prefix(1))))
        let current = shown.language
        return .group(
                .section(
                    .class("card profile"),
                    avatar,
                    .div(.h1(.text(shown.nickname)), .p(.class("muted"), .text(shown.email)),
                         shown.isAdmin ? .span(.class("badge"), .text(req.t("me.admin"))) : .empty)
                ),
                shown.notice.map { .p(.class("notice"), .role("status"), .text(req.t("me.\($0)"))) } ?? .empty,
                Layout.formError(req, error),
                .section(
                    .class("card"),
                    .h2(.text(req.t("me.profile"))),
                    .form(
                        .action(AccountPath.profile()), .method(.post), .class("stack"),
                        Layout.csrfField(req),
                        field(id: "nickname", label: req.t("field.nickname"), type: .text, value: shown.nickname,
                              autocomplete: "nickname", extra: [("minlength", "1"), ("maxlength", "20")]),
                        .label(.for("language"), .text(req.t("field.language"))),
                        Layout.languageSelect(id: "language", current: current),
                        .button(.type(.submit), .class("button primary"), .text(req.t("me.save")))
                    )
                ),
                .section(
                    .class("card"),
                    .h2(.text(req.t("me.photo"))),
                    .form(
                        .action(AccountPath.photo()), .method(.post), .enctype(.multipartData), .class("stack"),
                        Layout.csrfField(req),
                        .label(.for("photo"), .text(req.t("me.photo_choose"))),
                        .input(.id("photo"), .name("photo"), .type(.file), .required(true),
                               .attribute(named: "accept", value: "image/jpeg,image/png,image/gif,image/webp")),
                        .p(.class("hint"), .text(req.t("me.photo_hint"))),
                        .button(.type(.submit), .class("button"), .text(req.t("me.photo_upload")))
                    ),
                    shown.imageURL == nil ? .empty : .form(
                        .action(AccountPath.photoDelete()), .method(.post),
                        Layout.csrfField(req),
                        .button(.type(.submit), .class("link-button"), .text(req.t("me.photo_remove")))
                    )
                ),
                emailSection(req, email: shown.email),
                devicesSection(req, shown.devices),
                .section(
                    .class("card"),
                    .h2(.text(req.t("me.password"))),
                    .p(.class("muted"), .text(req.t("me.password_explain"))),
                    .form(
                        .action(AccountPath.password()), .method(.post), .class("stack"),
                        Layout.csrfField(req),
                        field(id: "current-password", label: req.t("me.password_current"), type: .password, value: nil,
                              autocomplete: "current-password", name: "currentPassword"),
                        field(id: "new-password", label: req.t("me.password_new"), type: .password, value: nil,
                              autocomplete: "new-password", hint: req.t("signup.password_hint"),
                              extra: [("minlength", String(AccountRules.passwordMinLength))], name: "newPassword"),
                        .button(.type(.submit), .class("button"), .text(req.t("me.password_submit")))
                    )
                ),
                .section(
                    .class("card danger-zone"),
                    .h2(.text(req.t("me.withdraw"))),
                    .p(.class("muted"), .text(req.t("me.withdraw_explain"))),
                    .form(
                        .action(AccountPath.withdraw()), .method(.post), .class("stack"),
                        Layout.csrfField(req),
                        field(id: "withdraw-password", label: req.t("field.password"), type: .password, value: nil,
                              autocomplete: "current-password", name: "password"),
                        .button(.type(.submit), .class("button danger"), .text(req.t("me.withdraw_submit")))
                    )
                )
        )
    }

    struct ProfileForm: Content { package var nickname: String?; package var language: String? }

    func saveProfile(req: Request) async throws -> Response {
        let user = try req.requireUser()
        let form = try req.content.decode(ProfileForm.self)
        let language = form.language.flatMap(Platform.Language.init(rawValue:))
        return try await respondOnMyPage(req, user: user, notice: "profile_saved") {
            _ = try await req.accounts.updateProfile(user, nickname: form.nickname, language: language)
        }
    }

    struct PhotoForm: Content { package var photo: File? }

    func uploadPhoto(req: Request) async throws -> Response {
        let user = try req.requireUser()
        let form = try req.content.decode(PhotoForm.self)
        let data = form.photo.map { Data(buffer: $0.data) } ?? Data()
        return try await respondOnMyPage(req, user: user, notice: "photo_saved") {
            _ = try await req.accounts.setProfileImage(user, data: data, from: req.clientNetwork.key)
        }
    }

    func deletePhoto(req: Request) async throws -> Response {
        let user = try req.requireUser()
        return try await respondOnMyPage(req, user: user, notice: "photo_removed") {
            _ = try await req.accounts.removeProfileImage(user)
        }
    }

    struct PasswordForm: Content { package var currentPassword: String?; package var newPassword: String? }

    /// The password changed; every other browser and app signed in as this account is signed out
    /// (and its live sockets closed), this browser stays.
    func changePassword(req: Request) async throws -> Response {
        let user = try req.requireUser()
        let form = try req.content.decode(PasswordForm.self)
        return try await respondOnMyPage(req, user: user, notice: "password_changed") {
            try await req.accounts.changePassword(user, current: form.currentPassword ?? "", new: form.newPassword ?? "",
                                                  keeping: req.signedInAccount?.session)
        }
    }

    struct WithdrawForm: Content { package var password: String? }

    func withdraw(req: Request) async throws -> Response {
        let user = try req.requireUser()
        let form = try req.content.decode(WithdrawForm.self)
        return try await req.submitForm {
            try await req.accounts.withdraw(user, password: form.password ?? "")
            let response = Layout.redirect(to: "/?notice=withdrawn")
            response.cookies[WebSessionAuthenticator.cookieName] = .expired
            CSRFMiddleware.renewNonce(req)
            return response
        } onRuleBroken: { try await myPageView(req, user: user, notice: nil, error: $0) }
    }

    /// Runs a profile change; success goes back to `/me` with a notice, a rule violation shows
    /// the page again with the message (and the unchanged account, re-read from the database).
    func respondOnMyPage(_ req: Request, user: User, notice: String, _ change: () async throws -> Void) async throws -> Response {
        try await req.submitForm {
            try await change()
            return Layout.redirect(to: AccountPath.me() + "?notice=\(notice)")
        } onRuleBroken: { error in
            var fresh = user
            if let id = user.id, let read = try await AccountStore(database: req.db, application: req.application).user(id) { fresh = read }
            return try await myPageView(req, user: fresh, notice: nil, error: error)
        }
    }

    // MARK: Language switch

    struct LanguageForm: Content { package var language: String?; package var next: String? }

    /// Remembers the choice in a cookie, and on the account when signed in.
    func switchLanguage(req: Request) async throws -> Response {
        let form = try req.content.decode(LanguageForm.self)
        guard let raw = form.language, let language = Platform.Language(rawValue: raw) else {
            throw AppError.badRequest("invalid_value", ["field": "language"])
        }
        if let user = req.auth.get(User.self) {
            _ = try await req.accounts.updateProfile(user, nickname: nil, language: language)
        }
        let response = Layout.redirect(to: Layout.safeNextPath(form.next) ?? "/")
        response.cookies[Request.languageCookie] = HTTPCookies.Value(
            string: language.rawValue, maxAge: 60 * 60 * 24 * 365, path: "/",
            isSecure: req.application.settings.usesSecureCookies, isHTTPOnly: false, sameSite: .lax)
        return response
    }

    // MARK: Form pieces

    /// A labelled input with its hint, and its problem (then `aria-invalid`) when the form came back.
    func field(
        id: String, label: String, type: HTMLInputType, value: String?, autocomplete: String,
        hint: String? = nil, extra: [(String, String)] = [], name: String? = nil, error: String? = nil
    ) -> Node<HTML.FormContext> {
        let described = [error.map { _ in "\(id)-error" }, hint.map { _ in "\(id)-hint" }].compactMap { $0 }.joined(separator: " ")
        return .div(
            .class(error == nil ? "field" : "field invalid"),
            .label(.for(id), .text(label)),
            .selfClosedElement(named: "input", attributes: [
                .id(id), .name(name ?? id), .type(type), .required(true), .value(value ?? ""),
                .attribute(named: "autocomplete", value: autocomplete),
                described.isEmpty ? .empty : .ariaDescribedBy(described),
                error == nil ? .empty : .attribute(named: "aria-invalid", value: "true"),
            ] + extra.map { Attribute<HTML.InputContext>.attribute(named: $0.0, value: $0.1) }),
            error.map { .p(.id("\(id)-error"), .class("field-error"), .text($0)) } ?? .empty,
            hint.map { .small(.id("\(id)-hint"), .class("hint"), .text($0)) } ?? .empty
        )
    }
}
