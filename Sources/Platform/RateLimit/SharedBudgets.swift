package import Fluent
import SQLKit
public import Vapor

/// Per-key budgets kept in PostgreSQL, so every instance that shares the database counts the same
/// events: one row per slot taken (`rate_limit_slots`). Taking a slot is one transaction holding
/// an advisory lock on the budget and key, so two instances that race for the last slot take it
/// once. Rows older than a day go (`pruneJob`). SQLite (one process) keeps budgets in memory.
/// The infrastructure's own table: this class is its only reader and writer, and names each
/// column once (`Column`).
public final class SharedBudgets: Sendable {
    package static let schema = "rate_limit_slots"

    enum Column: String, TableColumn {
        case id, budget, key, takenAt = "taken_at"
    }
    // The pool itself, not the application (which keeps this object: no cycle between them).
    private let databases: Databases
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger

    package init(application: Application) {
        databases = application.databases
        eventLoopGroup = application.eventLoopGroup
        logger = application.logger
    }

    private var database: any Database {
        get throws {
            guard let database = databases.database(logger: logger, on: eventLoopGroup.any()) else { throw NoDatabase() }
            return database
        }
    }

    package func take(budget: String, key: String, limit: Int, window: TimeInterval, now: Date) async throws -> Result<UUID, RateLimiter.Wait> {
        try await database.writeTransaction { database in
            let sql = database.sql
            try await sql.raw("SELECT pg_advisory_xact_lock(hashtext(\(bind: budget + "|" + key)))").run()
            let counted = try await sql.raw("""
                SELECT COUNT(*) AS taken, MIN(\(ident: Column.takenAt)) AS oldest FROM \(ident: Self.schema)
                WHERE \(ident: Column.budget) = \(bind: budget) AND \(ident: Column.key) = \(bind: key)
                  AND \(ident: Column.takenAt) > \(bind: now.addingTimeInterval(-window))
                """).first()
            let taken = try counted?.decode(column: "taken", as: Int.self) ?? 0
            if taken >= limit {
                let oldest = try counted?.decode(column: "oldest", as: Date?.self) ?? now
                return .failure(RateLimiter.Wait(seconds: max(1, Int(oldest.addingTimeInterval(window).timeIntervalSince(now).rounded(.up)))))
            }
            let id = UUID()
            try await sql.raw("""
                INSERT INTO \(ident: Self.schema) (\(ident: Column.id), \(ident: Column.budget), \(ident: Column.key), \(ident: Column.takenAt))
                VALUES (\(bind: id), \(bind: budget), \(bind: key), \(bind: now))
                """).run()
            return .success(id)
        }
    }

    /// Gives a slot back (what it guarded does not count); a failure only leaves the slot taken.
    package func giveBack(_ id: UUID) async {
        try? await database.sql.delete(from: Self.schema).where(SQLIdentifier(Column.id), .equal, SQLBind(id)).run()
    }

    /// Deletes the slots of a day ago and older: no budget's window is that long.
    package static func pruneJob() -> PeriodicJob {
        PeriodicJob("expired rate-limit slots", every: .seconds(600)) { app in
            try await app.db.sql.delete(from: schema).where(SQLIdentifier(Column.takenAt), .lessThan, SQLBind(app.siteClock().addingTimeInterval(-24 * 3600)))
                .returning(SQLIdentifier(Column.id)).all().count
        }
    }
}

struct NoDatabase: Error {}

/// The table of shared budgets (created on SQLite too, where it stays empty).
package struct CreateRateLimitSlots: NamedMigration {
    package func prepare(on database: any Database) async throws {
        try await database.schema(SharedBudgets.schema)
            .id()
            .field("budget", .string, .required)
            .field("key", .string, .required)
            .field("taken_at", .datetime, .required)
            .create()
        try await database.sql.create(index: "rate_limit_slots_budget_key").on(SharedBudgets.schema)
            .column("budget").column("key").column("taken_at").run()
    }

    package func revert(on database: any Database) async throws {
        try await database.schema(SharedBudgets.schema).delete()
    }

    package init() {}
}

extension Application {
    private struct SharedBudgetsKey: StorageKey { typealias Value = SharedBudgets }

    /// Set in `configure` on PostgreSQL; nil on SQLite, where budgets stay in memory.
    public var sharedBudgets: SharedBudgets? {
        get { storage[SharedBudgetsKey.self] }
        set { storage[SharedBudgetsKey.self] = newValue }
    }
}
