import Accounts
import FluentKit
import Platform
import Plot
package import Vapor

/// Counts the viewer's unread notifications for pages (GET requests of a signed-in browser):
/// one indexed count, so the bell is right on first paint; `bell.js` keeps it live after that.
package struct InboxBadgeMiddleware: AsyncMiddleware {
    package func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        if request.method == .GET, request.storage[WebViewerKey.self] != nil, let user = request.auth.get(User.self)?.id {
            request.storage[InboxBadgeKey.self] = try await request.inbox.unreadCount(for: user)
        }
        return try await next.respond(to: request)
    }

    package init() {}
}

/// `/notifications`: the inbox of a signed-in browser, for every service. Opening it marks what
/// it shows as read (those stay marked "new" on this visit); `bell.js` adds arrivals live over
/// `/notifications/live`, the API's socket behind the session cookie.
struct NotificationsPages: RouteCollection {
    func boot(routes: any RoutesBuilder) throws {
        let inbox = routes.grouped(SignInRequired())
        inbox.get(InboxPath.inbox, use: list)
        inbox.post(InboxPath.markAllRead, use: markAllRead)
        inbox.get(InboxPath.live, use: live)
    }

    func list(req: Request) async throws -> Response {
        let user = try req.requireUser().requireID()
        let page = try await req.inbox.page(for: user, CursorPageRequest(from: req))
        let unreadShown = page.items.filter { $0.readAt == nil }.map(\.id)
        if !unreadShown.isEmpty { try await req.inbox.markRead(for: user, ids: unreadShown) }
        let remaining = try await req.inbox.unreadCount(for: user)
        req.storage[InboxBadgeKey.self] = remaining
        let now = req.application.notificationsEnvironment.now()
        let shown = InboxShown(items: page.items.map { InboxRowShown(NotificationResponse($0, req: req), req: req, now: now) },
                               nextCursor: page.nextCursor)
        return Layout.keptPage(req, shown: shown) { shown in
            let items = shown.items
            return Layout.PageParts(title: req.t("inbox.title"), main: .section(
                    .class("inbox"),
                    .div(
                        .class("inbox-heading"),
                        .h1(.text(req.t("inbox.title"))),
                        .div(
                            .class("inbox-actions"),
                            // Always there, so the way to clear the bell is where people look for it.
                            .form(
                                .action(InboxPath.markAllRead()), .method(.post), .class("inline-form"),
                                Layout.csrfField(req),
                                .button(.type(.submit), .class("link-button"), .id("mark-all-read"), .text(req.t("inbox.mark_all_read")))
                            ),
                            .a(.href(InboxPath.settings()), .id("inbox-settings"), .text("⚙️ " + req.t("push.settings.title")))
                        )
                    ),
                    .p(.class("inbox-empty muted"), .id("inbox-empty"), items.isEmpty ? .empty : .attribute(named: "hidden", value: "hidden"),
                       .text(req.t("inbox.empty"))),
                    .ol(.class("notification-list"), .id("notification-list"),
                        // Each service's name, for the rows bell.js adds as they arrive.
                        .data(named: "services", value: Self.serviceNames(req)),
                        .forEach(items) { row(req, $0) }),
                    shown.nextCursor.map { cursor in
                        .a(.class("button wide"), .id("inbox-more"), .href(InboxPath.inbox() + "?cursor=\(cursor)"), .text(req.t("inbox.more")))
                    } ?? .empty
            ))
        }
    }

    /// What the inbox page shows (kept by it: `Layout.keptPage(shown:)`).
    private struct InboxShown: Hashable, Sendable {
        let items: [InboxRowShown]
        let nextCursor: String?
    }

    /// One notification as its row shows it, its time already worded ("3분 전").
    struct InboxRowShown: Hashable, Sendable {
        let id: UUID
        let service: String
        let message: String
        let excerpt: String?
        let link: String?
        let read: Bool
        let machineTime: String
        let mediumTime: String
        let relativeTime: String

        init(_ item: NotificationResponse, req: Request, now: Date) {
            id = item.id
            service = item.service
            message = item.message
            excerpt = item.excerpt
            link = item.link
            read = item.read
            machineTime = PageDates.machine(item.createdAt)
            mediumTime = PageDates.medium(item.createdAt, req.language)
            relativeTime = PageDates.relative(item.createdAt, now: now, req.language, translate: req.t)
        }
    }

    /// One notification; `bell.js` builds the same markup for arrivals.
    func row(_ req: Request, _ item: InboxRowShown) -> Node<HTML.ListContext> {
        .li(
            .class(item.read ? "notification" : "notification unread"), .data(named: "id", value: item.id.uuidString.lowercased()),
            .a(
                .href(Layout.safeNextPath(item.link) ?? InboxPath.inbox()),
                .span(.class("notification-service"), .text(Self.serviceName(req, item.service))),
                .span(.class("notification-message"), .text(item.message)),
                item.excerpt.map { .span(.class("notification-excerpt"), .text($0)) } ?? .empty,
                .element(named: "time", nodes: [.datetime(item.machineTime), .title(item.mediumTime), .text(item.relativeTime)])
            )
        )
    }

    /// A notification's service (`burger-map`) by its name in the reader's language.
    static func serviceName(_ req: Request, _ service: String) -> String {
        req.t("service.\(service.replacingOccurrences(of: "-", with: "_")).name")
    }

    /// `{"menu-game": "우리뭐먹지", …}` in the reader's language.
    static func serviceNames(_ req: Request) -> String {
        let names = Dictionary(uniqueKeysWithValues: ["menu-game", "burger-map", "mates", "banchan", "accounts"].map { ($0, serviceName(req, $0)) })
        // Strings to strings always encode; were it ever to fail, arrivals would only lack the label.
        return String(decoding: (try? JSONSerialization.data(withJSONObject: names, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
    }

    func markAllRead(req: Request) async throws -> Response {
        try await req.inbox.markRead(for: try req.requireUser().requireID(), ids: nil)
        return Layout.redirect(to: InboxPath.inbox())
    }

    /// The inbox socket for pages, opened only by a page of this origin.
    func live(req: Request) async throws -> Response {
        try req.requireSameOriginSocket()
        return try NotificationsAPI.liveSocket(for: try req.requireUser().requireID(), req)
    }
}
