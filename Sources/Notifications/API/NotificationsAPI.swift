import Accounts
package import Fluent
import Media
package import Platform
package import Vapor

/// A notification as clients see it, its message already in the reader's language.
struct NotificationResponse: Content {
    let id: UUID
    let service: String
    let kind: String
    @NullEncoded var actor: PersonSummary?
    @NullEncoded var subjectId: UUID?
    @NullEncoded var link: String?
    @NullEncoded var excerpt: String?
    let message: String
    let read: Bool
    let createdAt: Date
    /// How many events it stands for ("3 new messages"); 1 for most.
    let count: Int

    /// A listed row (the inbox page and its API).
    init(_ row: NotificationStore.Listed, req: Request) {
        id = row.id
        service = row.service
        kind = row.kind
        actor = row.actor.map { PersonSummary(id: $0.id, nickname: $0.nickname, profileImageURL: $0.profileImageKey.map(req.application.files.urlPath(for:))) }
        subjectId = row.subjectID
        link = row.link
        excerpt = row.excerpt
        message = Self.message(row, req: req)
        read = row.readAt != nil
        createdAt = row.createdAt
        count = row.count
    }

    /// `notification.<kind>` in the reader's language; `notification.<kind>.many` with the count
    /// for an entry that stands for several events.
    static func message(_ row: NotificationStore.Listed, req: Request) -> String {
        let arguments = ["actor": row.actor?.nickname ?? req.t("notification.someone"), "count": String(row.count)]
        return req.t(row.count > 1 ? "notification.\(row.kind).many" : "notification.\(row.kind)", arguments)
    }
}

/// `{items, nextCursor}` with the unread count beside them (the badge).
struct NotificationsPage: Content {
    let items: [NotificationResponse]
    @NullEncoded var nextCursor: String?
    let unreadCount: Int
}

struct UnreadCount: Content {
    let unreadCount: Int
}

/// `/api/v1/notifications`: the inbox of the signed-in account.
struct NotificationsAPI: RouteCollection {
    struct ReadBody: Content {
        /// The notifications to mark read; absent or null marks every one.
        let ids: [UUID]?
    }

    func boot(routes: any RoutesBuilder) throws {
        let inbox = routes.grouped("api", "v1", "notifications")
        inbox.get(use: list)
        inbox.post("read", use: markRead)
        inbox.get("live", use: live)
    }

    func list(req: Request) async throws -> NotificationsPage {
        let user = try req.requireUser().requireID()
        let page = try await req.inbox.page(for: user, CursorPageRequest(from: req))
        return NotificationsPage(items: page.items.map { NotificationResponse($0, req: req) }, nextCursor: page.nextCursor,
                                 unreadCount: try await req.inbox.unreadCount(for: user))
    }

    func markRead(req: Request) async throws -> UnreadCount {
        let user = try req.requireUser().requireID()
        let body = req.body.data == nil ? ReadBody(ids: nil) : try req.decodeJSON(ReadBody.self)
        if let ids = body.ids, ids.count > CursorPageRequest.maxLimit {
            throw AppError.badRequest("too_many_ids", ["max": String(CursorPageRequest.maxLimit)])
        }
        try await req.inbox.markRead(for: user, ids: body.ids)
        return UnreadCount(unreadCount: try await req.inbox.unreadCount(for: user))
    }

    /// A WebSocket that sends `{"unreadCount": n}` at once, then `{"unreadCount": n, "notification": {…}}`
    /// when one arrives and `{"unreadCount": n}` when some are read (on any instance).
    func live(req: Request) async throws -> Response {
        try Self.liveSocket(for: try req.requireUser().requireID(), req)
    }

    /// The live socket of `user`'s inbox; the API route and the pages' (`/notifications/live`) share it.
    static func liveSocket(for user: UUID, _ req: Request) throws -> Response {
        try req.liveSocket(feature: "notifications") { req, socket, _ in
            // Subscribe before counting: an arrival in between is sent after the count, never lost.
            let stream = req.application.events.subscribe(to: NotificationStore.topic(for: user))
            if let message = try? await Self.message(for: user, arrived: nil, req: req) { try? await socket.send(message) }
            let forwarding = Task {
                for await event in stream {
                    // Nothing more for a session that ended (its close may have been missed).
                    guard await req.signedInSessionIsLive() else {
                        try? await socket.close(code: OpenSockets.sessionEndedCode)
                        return
                    }
                    guard let message = try? await Self.message(for: user, arrived: UUID(uuidString: event), req: req) else { continue }
                    try? await socket.send(message)
                }
            }
            socket.onClose.whenComplete { _ in forwarding.cancel() }
        }
    }

    struct LiveMessage: Content {
        let unreadCount: Int
        let notification: NotificationResponse?
    }

    static func message(for user: UUID, arrived id: UUID?, req: Request) async throws -> String {
        var notification: NotificationStore.Listed?
        if let id { notification = try await req.inbox.notification(id, for: user) }
        let message = LiveMessage(unreadCount: try await req.inbox.unreadCount(for: user),
                                  notification: notification.map { NotificationResponse($0, req: req) })
        return String(decoding: try AppJSON.encoder().encode(message), as: UTF8.self)
    }
}
