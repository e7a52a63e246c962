import Fluent
import Platform
import Vapor

/// `GET /api/v1/admin/audit`: what operators did, newest first (`AuditLog`), for administrators.
/// Nothing here changes an entry: the log is read-only to everyone.
struct AdminAuditAPI: RouteCollection {
    struct Actor: Content {
        let id: UUID
        /// Nil once the account is gone.
        @NullEncoded var nickname: String?
    }

    struct Entry: Content {
        let id: UUID
        @NullEncoded var actor: Actor?
        let action: String
        let subjectType: String
        let subjectId: String
        @NullEncoded var before: [String: String]?
        @NullEncoded var after: [String: String]?
        let at: Date
    }

    func boot(routes: any RoutesBuilder) throws {
        routes.get("api", "v1", "admin", "audit", use: audit)
    }

    func audit(req: Request) async throws -> CursorPage<Entry> {
        _ = try req.requireAdmin()
        let subjectType = req.query[String.self, at: "subjectType"]
        if let subjectType, subjectType.isEmpty || subjectType.count > 40 || !subjectType.allSatisfy({ $0.isASCII && ($0.isLowercase || $0 == "_") }) {
            throw AppError.badRequest("invalid_field", ["field": "subjectType"])
        }
        let page = try await AuditLog(database: req.db).page(try CursorPageRequest(from: req), subjectType: subjectType)
        // A page names a few operators: each read once.
        var nicknames: [UUID: String?] = [:]
        for id in Set(page.items.compactMap(\.actorID)) {
            nicknames[id] = try await AccountStore.person(id, on: req.db)?.nickname
        }
        return CursorPage(items: page.items.map { entry in
            Entry(id: entry.id, actor: entry.actorID.map { Actor(id: $0, nickname: nicknames[$0] ?? nil) }, action: entry.action,
                  subjectType: entry.subjectType, subjectId: entry.subjectID, before: entry.before, after: entry.after, at: entry.createdAt)
        }, nextCursor: page.nextCursor)
    }
}
