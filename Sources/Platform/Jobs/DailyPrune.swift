package import Fluent
import Metrics
import NIOConcurrencyHelpers
import SQLKit
package import Vapor

/// Rows nobody needs any more — ended sessions, old login failures, used codes and links, read
/// notifications — removed once a day by one instance at a time. Each feature registers the
/// pruning of its own tables (its store does the deleting: one owner per table); the job claims
/// the day's run in `maintenance_runs` (a conditional write only one instance wins), runs every
/// part, counts what went in `whatweeat_pruned_rows_total{what}` and logs it. How long each kind
/// is kept is `Settings.Retention`.
package final class DailyPrune: Sendable {
    package typealias Part = @Sendable (Application, Date) async throws -> Int
    private let parts = NIOLockedValueBox<[(name: String, work: Part)]>([])

    package init() {}

    /// Adds a part (at start-up): `work` deletes what is past its time at `now` and says how many rows went.
    package func register(_ name: String, _ work: @escaping Part) {
        parts.withLockedValue { $0.append((name, work)) }
        AppMetrics.countersStartAtZero(["whatweeat_pruned_rows_total"], label: "what", values: [name])
    }

    /// Runs every part now (the job, or a test that moved the clock); a part that fails is logged
    /// and the others still run. Rows removed, by part.
    @discardableResult
    package func run(_ app: Application, now: Date) async -> [String: Int] {
        var removed: [String: Int] = [:]
        for part in parts.withLockedValue({ $0 }) {
            do {
                let count = try await part.work(app, now)
                removed[part.name] = count
                Counter(label: "whatweeat_pruned_rows_total", dimensions: [("what", part.name)]).increment(by: Int64(count))
            } catch {
                app.logger.warning("daily prune: \(part.name) failed: \(error)")
            }
        }
        return removed
    }

    /// Once an hour each instance asks whether the day's run is still to do; the one that claims
    /// it runs it.
    package static func job() -> PeriodicJob {
        PeriodicJob("daily prune", every: .seconds(3600)) { app in
            let now = app.siteClock()
            guard try await MaintenanceRuns(database: app.db).claim("daily_prune", every: 23 * 3600, now: now) else { return 0 }
            let removed = await app.dailyPrune.run(app, now: now)
            if !removed.isEmpty { app.logger.info("daily prune: \(removed.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))") }
            return removed.values.reduce(0, +)
        }
    }
}

extension Application {
    private struct DailyPruneKey: StorageKey { typealias Value = DailyPrune }

    package var dailyPrune: DailyPrune {
        if let prune = storage[DailyPruneKey.self] { return prune }
        let prune = DailyPrune()
        storage[DailyPruneKey.self] = prune
        return prune
    }
}

/// `maintenance_runs`: when each chore last started, so that of several instances one runs it.
package struct MaintenanceRuns {
    static let table = "maintenance_runs"

    enum Column: String, TableColumn {
        case name, startedAt = "started_at"
    }

    let database: any Database

    package init(database: any Database) { self.database = database }

    /// Whether this caller runs `name` now: true for exactly one caller once `every` seconds have
    /// passed since its last start (one conditional write; the others see it taken).
    package func claim(_ name: String, every interval: TimeInterval, now: Date) async throws -> Bool {
        let due = now.addingTimeInterval(-interval)
        let claimed = try await database.sql.insert(into: Self.table)
            .columns(Column.name, Column.startedAt)
            .values(SQLBind(name), SQLBind(now))
            .onConflict(with: [SQLIdentifier(Column.name)] as [any SQLExpression]) { conflict in
                conflict.set(excludedValueOf: SQLIdentifier(Column.startedAt) as any SQLExpression)
                    .where(SQLColumn(Column.startedAt.rawValue, table: Self.table), .lessThanOrEqual, SQLBind(due))
            }
            .returning(SQLIdentifier(Column.name))
            .all()
        return !claimed.isEmpty
    }
}

/// The table of chores' last starts.
package struct CreateMaintenanceRuns: NamedMigration {
    package func prepare(on database: any Database) async throws {
        try await database.schema(MaintenanceRuns.table)
            .field(MaintenanceRuns.Column.name.fieldKey, .string, .identifier(auto: false))
            .field(MaintenanceRuns.Column.startedAt.fieldKey, .datetime, .required)
            .create()
    }

    package func revert(on database: any Database) async throws {
        try await database.schema(MaintenanceRuns.table).delete()
    }

    package init() {}
}
