package import Fluent
import Foundation
import SQLKit

/// A piece of work waiting in `work_items`, as its handler gets it.
package struct WorkItem: Sendable, Equatable {
    package let id: UUID
    /// Which handler runs it (`WorkQueue.register`).
    package let kind: String
    /// What the work needs, as JSON (`WorkQueue.enqueue` encoded it; `decode` reads it back).
    package let payload: String
    /// Attempts that failed before this one.
    package let attempts: Int
    package let createdAt: Date

    package func decode<Payload: Decodable>(_ type: Payload.Type) throws -> Payload {
        try JSONDecoder().decode(type, from: Data(payload.utf8))
    }
}

/// The one owner of `work_items`, the durable queue behind `WorkQueue`: the only code that reads or
/// writes it, naming each column once. Nothing about the queue is kept in memory, so a write has
/// nothing to announce (an instance finds due work by asking).
package struct WorkQueueStore {
    package static let table = "work_items"

    enum Column: String, TableColumn {
        case id, kind, payload, attempts, dueAt = "due_at", lastError = "last_error", createdAt = "created_at"
        /// Unique among items not yet claimed: work asked for once per key while one waits
        /// (`WorkQueue.enqueue(oncePer:)`); a claim clears it, so new work may be asked for meanwhile.
        case onceKey = "once_key"
    }

    let database: any Database
    private var sql: any SQLDatabase { database.sql }

    package init(database: any Database) { self.database = database }

    /// Adds work to run at `due` or later; with `onceKey`, nothing when an unclaimed item holds that
    /// key already (false).
    @discardableResult
    func add(id: UUID, kind: String, payload: String, due: Date, now: Date, onceKey: String? = nil) async throws -> Bool {
        try await sql.insert(into: Self.table).columns(Column.id, .kind, .payload, .attempts, .dueAt, .createdAt, .onceKey)
            .values(SQLBind(id), SQLBind(kind), SQLBind(payload), SQLBind(0), SQLBind(due), SQLBind(now), SQLBind(onceKey))
            .ignoringConflicts(with: [SQLIdentifier(Column.onceKey)] as [any SQLExpression])
            .returning(SQLIdentifier(Column.id)).all().isEmpty == false
    }

    /// Takes the due work of these kinds, oldest due first, until `leaseEnd`: one statement moves
    /// its due time past the lease, so no other claim sees it until the lease lapses (an instance
    /// that dies mid-work leaves it to the next claim). On PostgreSQL the rows are picked `FOR UPDATE
    /// SKIP LOCKED`, so two instances never claim the same item at once.
    func claimDue(kinds: [String], limit: Int, now: Date, leaseEnd: Date) async throws -> [WorkItem] {
        guard !kinds.isEmpty else { return [] }
        // The runner asks every second: when nothing is due, a read answers without taking SQLite's write lock.
        let anyDue = try await sql.select().column(Column.id).from(Self.table)
            .where(Column.dueAt, .lessThanOrEqual, SQLBind(now)).where(Column.kind, .in, SQLBind.group(kinds)).limit(1).first()
        guard anyDue != nil else { return [] }
        let skipLocked = sql.dialect.name == "postgresql" ? " FOR UPDATE SKIP LOCKED" : ""
        return try await sql.raw("""
            UPDATE \(ident: Self.table) SET \(Column.dueAt) = \(bind: leaseEnd), \(Column.onceKey) = NULL
            WHERE \(Column.id) IN (SELECT \(Column.id) FROM \(ident: Self.table)
                         WHERE \(Column.dueAt) <= \(bind: now) AND \(Column.kind) IN (\(binds: kinds))
                         ORDER BY \(Column.dueAt) LIMIT \(literal: limit)\(unsafeRaw: skipLocked))
            RETURNING \(Column.id), \(Column.kind), \(Column.payload), \(Column.attempts), \(Column.createdAt)
            """).all().map { row in
            WorkItem(id: try row.decode(column: Column.id, as: UUID.self), kind: try row.decode(column: Column.kind, as: String.self),
                     payload: try row.decode(column: Column.payload, as: String.self), attempts: try row.decode(column: Column.attempts, as: Int.self),
                     createdAt: try row.decode(column: Column.createdAt, as: Date.self))
        }
    }

    /// The work is done (or given up): it goes.
    func remove(_ id: UUID) async throws {
        try await sql.delete(from: Self.table).where(Column.id, .equal, SQLBind(id)).run()
    }

    /// Runs the work again at `due`, noting the failure that put it off.
    func postpone(_ id: UUID, attempts: Int, error: String?, until due: Date) async throws {
        try await sql.update(Self.table).set(Column.attempts, to: SQLBind(attempts)).set(Column.lastError, to: SQLBind(error))
            .set(Column.dueAt, to: SQLBind(due)).where(Column.id, .equal, SQLBind(id)).run()
    }

    /// How much work waits, and when the oldest of it was added: the queue's gauges.
    func backlog() async throws -> (count: Int, oldest: Date?) {
        let row = try await sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "waiting")
            .column(SQLFunction("MIN", args: Column.createdAt), as: "oldest").from(Self.table).first()
        return (try row?.decode(column: "waiting", as: Int.self) ?? 0, try row?.decode(column: "oldest", as: Date?.self) ?? nil)
    }
}

/// Work asked for once per key while one waits (`once_key`, unique; empty keys do not collide).
package struct AddWorkItemOnceKey: NamedMigration {
    package init() {}

    package func prepare(on database: any Database) async throws {
        try await database.schema(WorkQueueStore.table).field(WorkQueueStore.Column.onceKey.fieldKey, .string).update()
        try await database.sql.create(index: "work_items_once_key").unique().on(WorkQueueStore.table).column(WorkQueueStore.Column.onceKey).run()
    }

    package func revert(on database: any Database) async throws {
        try await database.sql.drop(index: "work_items_once_key").run()
        try await database.schema(WorkQueueStore.table).deleteField(WorkQueueStore.Column.onceKey.fieldKey).update()
    }
}

/// The queue's table (one for every kind of work).
package struct CreateWorkItems: NamedMigration {
    package init() {}

    package func prepare(on database: any Database) async throws {
        typealias Column = WorkQueueStore.Column
        try await database.schema(WorkQueueStore.table).id()
            .fields([(Column.kind, .string), (.payload, .string), (.attempts, .int), (.dueAt, .datetime), (.createdAt, .datetime)])
            .fields([(Column.lastError, .string)], optional: true)
            .create()
        try await database.sql.create(index: "work_items_due").on(WorkQueueStore.table).column(Column.dueAt).run()
    }

    package func revert(on database: any Database) async throws {
        try await database.schema(WorkQueueStore.table).delete()
    }
}
