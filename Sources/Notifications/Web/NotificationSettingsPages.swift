import Accounts
import Fluent
import FluentKit
import Platform
import Plot
import Vapor

/// `/notifications/settings`: whether this device shows pushes (its script subscribes through the
/// browser's `pushManager` and `/api/v1/push/subscriptions`), and which kinds the account wants
/// pushed — a plain form, so the switches work without scripts. The inbox gets every entry either
/// way; the switches decide only what reaches a lock screen.
struct NotificationSettingsPages: RouteCollection {
    /// The switches in the order the page shows them, each a `PushPreferences` field.
    static let kinds: [(field: String, keyPath: WritableKeyPath<PushPreferences, Bool>)] = [
        ("chat", \.chat), ("requests", \.requests), ("social", \.social), ("orders", \.orders), ("groupGames", \.groupGames),
    ]

    func boot(routes: any RoutesBuilder) throws {
        let settings = routes.grouped(SignInRequired())
        settings.get(InboxPath.settings, use: show)
        settings.post(InboxPath.settings, use: save)
    }

    func show(req: Request) async throws -> Response {
        let user = try req.requireUser().requireID()
        let preferences = try await PushStore(database: req.db).preferences(of: user)
        return try await page(req, preferences, saved: req.query[String.self, at: "saved"] == "1")
    }

    /// The form posts every switch that is on (an unchecked box sends nothing).
    func save(req: Request) async throws -> Response {
        let user = try req.requireUser().requireID()
        var preferences = PushPreferences()
        for kind in Self.kinds { preferences[keyPath: kind.keyPath] = Self.isOn(req, kind.field) }
        preferences.hideText = Self.isOn(req, "hideText")
        preferences.account = Self.isOn(req, "account")
        try await PushStore(database: req.db).setPreferences(preferences, of: user, now: req.application.notificationsEnvironment.now())
        return Layout.redirect(to: InboxPath.settings() + "?saved=1")
    }

    private static func isOn(_ req: Request, _ field: String) -> Bool {
        (try? req.content.get(String.self, at: field)) == "on"
    }

    private func page(_ req: Request, _ preferences: PushPreferences, saved: Bool) async throws -> Response {
        Layout.scriptedPage(
            req, title: req.t("push.settings.title"),
            extras: PageExtras(scripts: ["/js/shared/push-settings.js"]),
            stringPrefix: "push.", values: try await req.browserAPIValues(),
            main: .section(
                .class("notification-settings stack"),
                .div(
                    .class("inbox-heading"),
                    .h1(.text(req.t("push.settings.title"))),
                    .a(.href(InboxPath.inbox()), .text(req.t("push.settings.back")))
                ),
                deviceCard(req),
                .form(
                    .action(InboxPath.settings()), .method(.post), .class("card stack"), .id("push-preferences"),
                    Layout.csrfField(req),
                    .h2(.text(req.t("push.settings.kinds"))),
                    .p(.class("hint"), .text(req.t("push.settings.kinds_hint"))),
                    .forEach(Self.kinds) { kind in
                        switchField(req, kind.field, on: preferences[keyPath: kind.keyPath])
                    },
                    switchField(req, "account", on: preferences.account ?? true),
                    switchField(req, "hideText", on: preferences.hideText ?? false),
                    // With scripts each switch saves itself (push-settings.js hides this button);
                    // the status line says so, or why not.
                    .button(.type(.submit), .class("button primary wide"), .id("push-save"), .text(req.t("push.settings.save"))),
                    .p(.class(saved ? "notice" : "hint"), .id("push-preferences-status"), .role("status"),
                       .text(saved ? req.t("push.settings.saved") : ""))
                )
            )
        )
    }

    /// This device: the script fills the status and shows the one button that applies (turn on,
    /// turn off), or says why it cannot (no support, blocked, an iPhone outside the home screen).
    private func deviceCard(_ req: Request) -> Node<HTML.BodyContext> {
        .div(
            .class("card stack"), .id("push-device"),
            .h2(.text(req.t("push.device.title"))),
            .p(.id("push-device-status"), .role("status"), .text(req.t("push.device.checking"))),
            .button(.type(.button), .class("button primary wide"), .id("push-enable"), .attribute(named: "hidden", value: "hidden"),
                    .text(req.t("push.device.enable"))),
            .button(.type(.button), .class("button wide"), .id("push-disable"), .attribute(named: "hidden", value: "hidden"),
                    .text(req.t("push.device.disable"))),
            .p(.class("hint"), .id("push-device-help"), .attribute(named: "hidden", value: "hidden")),
            .element(named: "noscript", nodes: [.p(.class("hint"), .text(req.t("push.device.no_script")))])
        )
    }

    private func switchField(_ req: Request, _ field: String, on: Bool) -> Node<HTML.FormContext> {
        .div(
            .class("field switch-field"),
            .label(.for("push-\(field)"), .text(req.t("push.kind.\(field)"))),
            .input(.type(.checkbox), .id("push-\(field)"), .name(field), .attribute(named: "role", value: "switch"),
                   .attribute(named: "checked", value: on ? "checked" : nil)),
            .p(.class("hint"), .text(req.t("push.kind.\(field).hint")))
        )
    }
}
