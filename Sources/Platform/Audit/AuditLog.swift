package import Fluent
import Foundation
import SQLKit
import Vapor

/// One thing an operator did, as the audit log keeps it: who, what, to what, when, and the fields
/// it changed before and after (as text). Nobody edits an entry: the log only grows.
package struct AuditEntry: Sendable, Hashable, NewestFirstRow {
    package let id: UUID
    /// The operator's account (nil once that account is gone).
    package let actorID: UUID?
    /// What was done, `<service>.<thing>.<verb>`: `banchan.order.status`, `banchan.dish.change`.
    package let action: String
    /// What it was done to: a kind (`banchan_order`) and its id or key.
    package let subjectType: String
    package let subjectID: String
    package let before: [String: String]?
    package let after: [String: String]?
    package let createdAt: Date

    package init(actorID: UUID?, action: String, subjectType: String, subjectID: String,
                 before: [String: String]?, after: [String: String]?, at now: Date) {
        id = UUID()
        self.actorID = actorID
        self.action = action
        self.subjectType = subjectType
        self.subjectID = subjectID
        self.before = before
        self.after = after
        createdAt = now.wholeMicroseconds
    }

    init(row: any SQLRow) throws {
        typealias Column = AuditLog.Column
        func fields(_ column: Column) throws -> [String: String]? {
            try row.decode(column: column, as: String?.self).flatMap { try JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
        }
        id = try row.decode(column: Column.id, as: UUID.self)
        actorID = try row.decode(column: Column.actorID, as: UUID?.self)
        action = try row.decode(column: Column.action, as: String.self)
        subjectType = try row.decode(column: Column.subjectType, as: String.self)
        subjectID = try row.decode(column: Column.subjectID, as: String.self)
        before = try fields(.before)
        after = try fields(.after)
        createdAt = try row.decode(column: Column.createdAt, as: Date.self)
    }
}

/// The one owner of `audit_log`: every operator's action, written by the feature that performed it
/// (in the same transaction when it has one), read newest first by the console and
/// `GET /api/v1/admin/audit`. There is no update and no delete: what was done stays said.
package struct AuditLog {
    package static let table = "audit_log"

    enum Column: String, TableColumn, CaseIterable {
        case id, actorID = "actor_id", action, subjectType = "subject_type", subjectID = "subject_id", before, after, createdAt = "created_at"
    }

    let database: any Database
    private var sql: any SQLDatabase { database.sql }

    package init(database: any Database) { self.database = database }

    package func record(_ entry: AuditEntry) async throws {
        func json(_ fields: [String: String]?) throws -> String? {
            try fields.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        }
        try await sql.insert(into: Self.table).columns(Column.allCases)
            .values(SQLBind(entry.id), SQLBind(entry.actorID), SQLBind(entry.action), SQLBind(entry.subjectType), SQLBind(entry.subjectID),
                    SQLBind(try json(entry.before)), SQLBind(try json(entry.after)), SQLBind(entry.createdAt))
            .run()
        database.afterCommit { Self.changes.moveOn() }
    }

    /// Moves once an entry written in this process committed: the console's log is kept until it
    /// moves (an entry another instance wrote shows within the page's lifetime).
    package static let changes = ChangeVersion(topic: "platform.audit-log")

    /// Newest first, a page at a time; only `subjectType`'s entries when given.
    package func page(_ page: CursorPageRequest, subjectType: String? = nil) async throws -> (items: [AuditEntry], nextCursor: String?) {
        let query = sql.select().columns(Column.allCases).from(Self.table)
        if let subjectType { query.where(SQLIdentifier(Column.subjectType), .equal, SQLBind(subjectType)) }
        let rows = try await query.newestFirst(createdAt: SQLColumn(Column.createdAt.rawValue), id: SQLColumn(Column.id.rawValue), page).all()
        return page.page(of: try rows.map(AuditEntry.init(row:)))
    }
}

/// The audit log's table. Its rows name accounts without a foreign key: an entry outlives the
/// account that acted (the actor is then shown as gone).
package struct CreateAuditLog: NamedMigration {
    package init() {}

    package func prepare(on database: any Database) async throws {
        try await database.schema(AuditLog.table).id()
            .fields([(AuditLog.Column.actorID, .uuid), (.before, .string), (.after, .string)], optional: true)
            .fields([(AuditLog.Column.action, .string), (.subjectType, .string), (.subjectID, .string), (.createdAt, .datetime)])
            .create()
        try await database.sql.create(index: "audit_log_created").on(AuditLog.table).column(AuditLog.Column.createdAt.rawValue).run()
    }

    package func revert(on database: any Database) async throws {
        try await database.schema(AuditLog.table).delete()
    }
}
