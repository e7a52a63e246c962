import Fluent
import SQLKit
import Vapor

/// Per-key budgets kept in PostgreSQL, so every instance that shares the database counts the same
/// events: one row per slot taken (`rate_limit_slots`). Taking a slot is one transaction holding
/// an advisory lock on the budget and key, so two instances that race for the last slot take it
/// once. Rows older than a day go (`pruneJob`). SQLite (one process) keeps budgets in memory.
public final class SharedBudgets: Sendable {
    package static let schema = "rate_limit_slots"
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
        try await database.transaction { database in
            let sql = database.sql
            try await sql.raw("SELECT pg_advisory_xact_lock(hashtext(\(bind: budget + "|" + key)))").run()
            let counted = try await sql.raw("""
                SELECT COUNT(*) AS taken, MIN(taken_at) AS oldest FROM \(ident: Self.schema)
                WHERE budget = \(bind: budget) AND key = \(bind: key) AND taken_at > \(bind: now.addingTimeInterval(-window))
                """).first()
            let taken = try counted?.decode(column: "taken", as: Int.self) ?? 0
            if taken >= limit {
                let oldest = try counted?.decode(column: "oldest", as: Date?.self) ?? now
                return .failure(RateLimiter.Wait(seconds: max(1, Int(oldest.addingTimeInterval(window).timeIntervalSince(now).rounded(.up)))))
            }
            let id = UUID()
            try await sql.raw("""
                INSERT INTO \(ident: Self.schema) (id, budget, key, taken_at) VALUES (\(bind: id), \(bind: budget), \(bind: key), \(bind: now))
                """).run()
            return .success(id)
        }
    }

    /// Gives a slot back (what it guarded does not count); a failure only leaves the slot taken.
    package func giveBack(_ id: UUID) async {
        try? await database.sql.raw("DELETE FROM \(ident: Self.schema) WHERE id = \(bind: id)").run()
    }

    /// Deletes the slots of a day ago and older: no budget's window is that long.
    package static func pruneJob() -> PeriodicJob {
        PeriodicJob("expired rate-limit slots", every: .seconds(600)) { app in
            let rows = try await app.db.sql.raw("""
                DELETE FROM \(ident: schema) WHERE taken_at < \(bind: Date().addingTimeInterval(-24 * 3600)) RETURNING id
                """).all()
            return rows.count
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
