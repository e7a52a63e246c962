package import Plot
package import Vapor

/// Who is looking at a page, as the layout needs to know it (set by the session authenticator).
package struct WebViewer: Sendable {
    package let nickname: String
    package let isAdmin: Bool

    package init(nickname: String, isAdmin: Bool) {
        self.nickname = nickname
        self.isAdmin = isAdmin
    }
}

package struct WebViewerKey: StorageKey { package typealias Value = WebViewer }
/// How many unread notifications the signed-in viewer has, for the bell in every page's header
/// (the notifications inbox sets it).
package struct InboxBadgeKey: StorageKey { package typealias Value = Int }

/// What a service adds to the shared frame: its own stylesheet and scripts (ES modules, served
/// from `Public/`), a class on `<body>`, links beside the account menu, and a bar under the page
/// (the menu game's tab bar).
package struct PageExtras {
    package var stylesheets: [String] = []
    package var scripts: [String] = []
    /// A library's stylesheets and classic scripts from outside `Public/` (Leaflet), loaded
    /// before the page's own so its modules find them.
    package var vendorStylesheets: [VendorResource] = []
    package var vendorScripts: [VendorResource] = []
    package var bodyClass: String? = nil
    package var headerLinks: Node<HTML.BodyContext> = .empty
    package var bottomBar: Node<HTML.BodyContext> = .empty
    /// What a link to the page shows where it is pasted; the defaults when nil (`LinkPreview`).
    package var preview: LinkPreview? = nil
    /// What the page's Content-Security-Policy allows beyond this site: the map library's files and
    /// tiles, the postcode search's script and frame. A page with vendor files and no word of
    /// which is a map page (Leaflet's were the first).
    package var policy: PagePolicy = []

    package init(stylesheets: [String] = [], scripts: [String] = [], vendorStylesheets: [VendorResource] = [],
                 vendorScripts: [VendorResource] = [], bodyClass: String? = nil,
                 headerLinks: Node<HTML.BodyContext> = .empty, bottomBar: Node<HTML.BodyContext> = .empty, preview: LinkPreview? = nil) {
        self.preview = preview
        self.stylesheets = stylesheets
        self.scripts = scripts
        self.vendorStylesheets = vendorStylesheets
        self.vendorScripts = vendorScripts
        self.bodyClass = bodyClass
        self.headerLinks = headerLinks
        self.bottomBar = bottomBar
    }
}

/// The shared page frame every service's pages use: header with the brand, the signed-in
/// user's menu, the language switch, and a footer. Mobile-first; the stylesheet is `/css/app.css`.
package enum Layout {
    /// The brand's orange: `<meta name="theme-color">` and the installable app's manifest.
    package static let themeColor = "#c2410c"

    package static func page(
        _ request: Request, title: String, status: HTTPResponseStatus = .ok,
        headers: HTTPHeaders = [:], extras: PageExtras = PageExtras(), main: Node<HTML.BodyContext>...
    ) -> Response {
        let language = request.language
        var policy = extras.policy
        if policy.isEmpty, !extras.vendorScripts.isEmpty || !extras.vendorStylesheets.isEmpty { policy = .map }
        if !policy.isEmpty { request.storage[SecurityHeadersMiddleware.PagePolicyKey.self] = policy }
        // The frame is the same for every page of this shape and language: made once with
        // markers, then each request fills in only its own parts (`LayoutFrame`).
        let viewer = request.storage[WebViewerKey.self]
        let unread = request.storage[InboxBadgeKey.self] ?? 0
        let frame = LayoutFrame.template(for: LayoutFrame.Key(language: language, signedIn: viewer != nil, unreadShown: unread > 0, extras: extras)) {
            html(request, extras: extras, signedIn: viewer != nil, unreadShown: unread > 0)
        }
        return respond(
            request, frame: frame, status: status, headers: headers, title: Markup.escape("\(title) · \(request.t("app.name"))"),
            preview: { (extras.preview ?? LinkPreview()).tags(request, pageTitle: title) },
            headerLinks: { extras.headerLinks.render() }, bottomBar: { extras.bottomBar.render() },
            main: { Node<HTML.BodyContext>.group(main).render() }
        )
    }

    /// The frame filled with a request's own parts (`page`, `keptPage`).
    static func respond(
        _ request: Request, frame: LayoutFrame.Template, status: HTTPResponseStatus, headers: HTTPHeaders, title: String,
        preview: () -> String, headerLinks: () -> String, bottomBar: () -> String, main: () -> String, path: String? = nil
    ) -> Response {
        let viewer = request.storage[WebViewerKey.self]
        let unread = request.storage[InboxBadgeKey.self] ?? 0
        let body = frame.fill { slot in
            switch slot {
            case .title: return title
            case .preview: return preview()
            case .headerLinks: return headerLinks()
            case .bellLabel: return Markup.escape(request.t("inbox.bell", ["count": String(unread)]))
            case .unreadCount: return unread > 99 ? "99+" : String(unread)
            case .nickname: return Markup.escape(viewer?.nickname ?? "")
            case .main:
                // A new account lands back where it signed up, welcomed once (`AccountPages.signUp`).
                let welcome = viewer != nil && request.url.query?.contains("welcome=1") == true ? Layout.welcome(request).render() : ""
                return welcome + main()
            // `path` when the caller has it: Vapor decodes the path anew on every read.
            case .next: return Markup.escape(path ?? request.url.path)
            case .csrf: return Markup.escape(request.csrfToken)
            case .bottomBar: return bottomBar()
            // Only a kept page's body has these (`keptPage` fills them); never the frame.
            case .viewerID, .accessToken, .part0, .part1, .part2, .part3, .part4, .part5: return ""
            }
        }
        var allHeaders = headers
        allHeaders.replaceOrAdd(name: .contentType, value: "text/html; charset=utf-8")
        allHeaders.replaceOrAdd(name: .cacheControl, value: "no-store")
        return Response(status: status, headers: allHeaders, body: .init(string: body))
    }

    /// The whole page with `LayoutFrame`'s markers where each request's own parts go. Nothing
    /// here may depend on the request beyond the frame's key (language, signed in or not, whether
    /// the unread count shows, extras).
    static func html(_ request: Request, extras: PageExtras, signedIn: Bool, unreadShown: Bool) -> HTML {
        HTML(
            .attribute(named: "lang", value: request.language.rawValue),
            .head(
                .meta(.charset(.utf8)),
                .meta(.name("viewport"), .content("width=device-width, initial-scale=1, viewport-fit=cover")),
                .meta(.name("theme-color"), .content(Layout.themeColor), .attribute(named: "media", value: "(prefers-color-scheme: light)")),
                // The dark scheme's background (app.css), so the phone's bar matches the page.
                .meta(.name("theme-color"), .content("#151210"), .attribute(named: "media", value: "(prefers-color-scheme: dark)")),
                // Not Plot's `.title(…)`: it also writes the title into og/twitter `<meta content>`
                // attributes from inside Plot, where our escaping does not reach.
                .element(named: "title", nodes: [.raw(LayoutFrame.marker(.title))]),
                .raw(LayoutFrame.marker(.preview)),
                .forEach(extras.vendorStylesheets) { vendor in
                    .link(.rel(.stylesheet), .href(vendor.url),
                          vendor.integrity.map { .attribute(named: "integrity", value: $0) } ?? .empty,
                          vendor.integrity == nil ? .empty : .attribute(named: "crossorigin", value: "anonymous"))
                },
                .link(.rel(.stylesheet), .href("/css/app.css")),
                .forEach(extras.stylesheets) { .link(.rel(.stylesheet), .href($0)) },
                .link(.rel(.icon), .href("/images/icon.svg"), .type("image/svg+xml")),
                // Installable: the manifest and the home screen's icon on iOS.
                .link(.rel(.manifest), .href("/manifest.webmanifest")),
                .link(.rel(.appleTouchIcon), .href("/images/app/apple-touch-icon.png")),
                .forEach(extras.vendorScripts) { vendor in
                    .script(.src(vendor.url),
                            vendor.integrity.map { .attribute(named: "integrity", value: $0) } ?? .empty,
                            vendor.integrity == nil ? .empty : .attribute(named: "crossorigin", value: "anonymous"))
                },
                .forEach(extras.scripts) { .script(.attribute(named: "type", value: "module"), .src($0)) },
                .script(.attribute(named: "type", value: "module"), .src("/js/shared/install.js")),
                // The inbox bell follows new notifications on every page of a signed-in browser.
                signedIn ? .script(.attribute(named: "type", value: "module"), .src("/js/shared/bell.js")) : .empty
            ),
            .body(
                extras.bodyClass.map { .class($0) } ?? .empty,
                .a(.class("skip-link"), .href("#main"), .text(request.t("layout.skip_to_content"))),
                header(request, signedIn: signedIn, unreadShown: unreadShown),
                .main(.id("main"), .class("page"), .raw(LayoutFrame.marker(.main))),
                footer(request),
                troubleViews(request),
                .raw(LayoutFrame.marker(.bottomBar))
            )
        )
    }

    /// A page whose scripts call the API (the burger map's, the mates'): `main`, then the status
    /// line the scripts write short messages to (`#page-status`), then the config block with the
    /// texts under `stringPrefix` and `values` (`PageConfig`).
    package static func scriptedPage(
        _ request: Request, title: String, extras: PageExtras, stringPrefix: String, values: [String: Any], main: Node<HTML.BodyContext>
    ) -> Response {
        page(
            request, title: title, extras: extras,
            main: .group(
                main,
                .p(.class("page-status"), .id("page-status"), .role("status")),
                PageConfig.block(request, stringPrefixes: [stringPrefix], values: values)
            )
        )
    }

    /// A page for an error a browser navigated into.
    package static func errorPage(_ request: Request, status: HTTPResponseStatus, message: String) -> Response {
        page(
            request, title: request.t("error.page_title"), status: status,
            main: .section(
                .class("card narrow"),
                .h1(.text(request.t("error.page_title"))),
                .p(.class("error-message"), .role("alert"), .text(message)),
                .p(.a(.class("button"), .href("/"), .text(request.t("error.back_home"))))
            )
        )
    }

    /// A 303 to a path of this site. Anything that is not a safe relative path goes home instead,
    /// so no caller can send a browser to another host or put a control character in a header.
    package static func redirect(to path: String) -> Response {
        let response = Response(status: .seeOther)
        response.headers.replaceOrAdd(name: .location, value: safeNextPath(path) ?? "/")
        return response
    }

    /// A hidden `_csrf` input; every POST form includes it.
    package static func csrfField(_ request: Request) -> Node<HTML.FormContext> {
        .input(.type(.hidden), .name(CSRFMiddleware.formField), .value(request.pageCSRFToken))
    }

    /// The same field for a `plainForm`, whose content is body content.
    package static func csrfBodyField(_ request: Request) -> Node<HTML.BodyContext> {
        .input(.type(.hidden), .name(CSRFMiddleware.formField), .value(request.pageCSRFToken))
    }

    /// An inline alert shown above a form after a failed submission.
    package static func formError(_ message: String?) -> Node<HTML.BodyContext> {
        guard let message else { return .empty }
        return .p(.class("form-error"), .role("alert"), .text(message))
    }

    /// Only same-site paths are followed after a login, never another host: the value must parse
    /// as a path-absolute reference (`/` then anything but a second `/` or `\\`), with no
    /// backslash, control, format or whitespace character anywhere (browsers drop tabs and
    /// newlines before parsing, so `/\t/evil.example` would be `//evil.example`), and no quote
    /// or angle bracket.
    /// `page` with `?next=` the page to come back to, its whole value one encoded parameter (a
    /// query of its own comes along): the sign-in and sign-up pages bring the person back there.
    package static func path(_ page: String, returningTo back: String) -> String {
        page + "?next=" + (back.addingPercentEncoding(withAllowedCharacters: nextValueAllowed) ?? "/")
    }

    private static let nextValueAllowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/-._~")

    package static func safeNextPath(_ raw: String?) -> String? {
        guard let raw, raw.utf8.count <= 2048 else { return nil }
        var scalars = raw.unicodeScalars.makeIterator()
        guard scalars.next() == "/" else { return nil }
        if let second = scalars.next(), second == "/" || second == "\\" { return nil }
        let refused = raw.unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator: return true
            default: return scalar == "\\" || scalar == "\"" || scalar == "<" || scalar == ">"
            }
        }
        return refused ? nil : raw
    }

    /// The signed-in viewer's bell and account menu (their page, signing out), or the visitor's login and sign-up links:
    /// made per request (the count, the nickname and the CSRF token are the viewer's own).
    /// Part of the frame: the viewer's unread count, its label, their nickname and the CSRF token
    /// are markers.
    private static func accountMenu(_ request: Request, signedIn: Bool, unreadShown: Bool) -> Node<HTML.BodyContext> {
        guard signedIn else {
            return .div(
                .class("account-menu"),
                .a(.href(SitePath.logIn()), .text(request.t("nav.login"))),
                .a(.class("button small"), .href(SitePath.signUp()), .text(request.t("nav.signup")))
            )
        }
        return .div(
            .class("account-menu"),
            .a(
                .class("inbox-bell"), .id("inbox-bell"), .href(SitePath.inbox()),
                .ariaLabel(LayoutFrame.marker(.bellLabel)),
                .attribute(named: "data-label", value: request.t("inbox.bell", ["count": "{count}"])),
                .span(.ariaHidden(true), .text("🔔")),
                .span(.class("inbox-count"), .id("inbox-count"), .ariaHidden(true),
                      unreadShown ? .empty : .attribute(named: "hidden", value: "hidden"), .raw(LayoutFrame.marker(.unreadCount)))
            ),
            // bell.js says an arrival here: the bell's own label changes, but a label is not read out.
            .span(.class("visually-hidden"), .id("inbox-announce"), .attribute(named: "role", value: "status")),
            // The nickname opens the account's menu (no script: `<details>`); signing out is in it
            // and asks first (`GET /logout`), so one stray tap on a phone signs nobody out.
            .details(
                .class("account-details"),
                .summary(.class("nickname"), .raw(LayoutFrame.marker(.nickname))),
                .element(named: "nav", nodes: [
                    .class("account-popover"), .attribute(named: "aria-label", value: request.t("nav.account")),
                    .a(.id("account-me"), .href(SitePath.me()), .text(request.t("nav.me"))),
                    .a(.id("account-logout"), .href("/logout"), .text(request.t("nav.logout"))),
                ])
            )
        )
    }

    private static func header(_ request: Request, signedIn: Bool, unreadShown: Bool) -> Node<HTML.BodyContext> {
        .header(
            .class("site-header"),
            .a(.class("brand"), .href("/"), .span(.class("brand-mark"), .attribute(named: "aria-hidden", value: "true"), .text("🍚")),
               .text(request.t("app.name"))),
            .div(.class("header-actions"), .raw(LayoutFrame.marker(.headerLinks)), accountMenu(request, signedIn: signedIn, unreadShown: unreadShown))
        )
    }

    /// In the frame: the page's path (`next`) and the CSRF token are markers.
    private static func footer(_ request: Request) -> Node<HTML.BodyContext> {
        let current = request.language
        return .footer(
            .class("site-footer"),
            .form(
                .action("/language"), .method(.post), .class("language-switch"),
                .attribute(named: "aria-label", value: request.t("layout.language")),
                .input(.type(.hidden), .name(CSRFMiddleware.formField), .value(LayoutFrame.marker(.csrf))),
                .input(.type(.hidden), .name("next"), .value(LayoutFrame.marker(.next))),
                .forEach(Language.allCases) { language in
                    .button(
                        .type(.submit), .name("language"), .value(language.rawValue),
                        .class(language == current ? "language current" : "language"),
                        .attribute(named: "aria-pressed", value: language == current ? "true" : "false"),
                        .attribute(named: "lang", value: language.rawValue),
                        .text(languageName(language))
                    )
                }
            ),
            .p(.class("fine-print"), .text(request.t("layout.footer")))
        )
    }

    /// A `<select name="language">` of every language, `current` chosen (the account page's and
    /// the menu game settings' forms).
    package static func languageSelect<Context>(id: String, current: Language) -> Node<Context> {
        .element(named: "select", nodes: [
            .attribute(named: "id", value: id), .attribute(named: "name", value: "language"),
            .forEach(Language.allCases) { language in
                .element(named: "option", nodes: [
                    .attribute(named: "value", value: language.rawValue),
                    language == current ? .attribute(named: "selected") : .empty,
                    .text(languageName(language)),
                ])
            },
        ])
    }

    package static func languageName(_ language: Language) -> String {
        switch language {
        case .ko: return "한국어"
        case .en: return "English"
        case .ja: return "日本語"
        }
    }
}
