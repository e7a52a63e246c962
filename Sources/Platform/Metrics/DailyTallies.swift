package import Fluent
import Foundation
import SQLKit
import Vapor

/// What went wrong today, counted in the database so every instance adds to the same figure (the
/// console's "today" page reads it whichever instance serves it; Prometheus counters stay per
/// process, as Prometheus sums them itself). One row per tally and day in Korea's time
/// (`daily_tallies`); this is the table's only reader and writer, and names each column once.
package struct DailyTallies: Sendable {
    package static let schema = "daily_tallies"

    enum Column: String, TableColumn {
        case name, day, count
    }

    /// The tallies kept: each one's name in the table.
    package enum Tally: String, Sendable, CaseIterable {
        /// A push the push service refused or could not take (each try counts).
        case pushFailed = "push_failed"
        /// A text the SMS provider refused, or a carrier did not deliver.
        case smsFailed = "sms_failed"
    }

    /// How many days of tallies are kept.
    static let keptDays = 90

    let database: any Database
    var sql: any SQLDatabase { database.sql }

    package init(database: any Database) {
        self.database = database
    }

    /// Korea's day of `date`, as the table keys it (`2026-12-02`).
    static func day(of date: Date) -> String {
        let parts = Calendar.korea.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// Adds one to today's tally.
    package func add(_ tally: Tally, at now: Date) async throws {
        try await sql.raw("""
            INSERT INTO \(ident: Self.schema) (\(ident: Column.name), \(ident: Column.day), \(ident: Column.count))
            VALUES (\(bind: tally.rawValue), \(bind: Self.day(of: now)), 1)
            ON CONFLICT (\(ident: Column.name), \(ident: Column.day))
            DO UPDATE SET \(ident: Column.count) = \(ident: Self.schema).\(ident: Column.count) + 1
            """).run()
    }

    /// Today's tallies (0 for those with none yet).
    package func today(at now: Date) async throws -> [Tally: Int] {
        let rows = try await sql.select().columns(SQLIdentifier(Column.name), SQLIdentifier(Column.count)).from(Self.schema)
            .where(SQLIdentifier(Column.day), .equal, SQLBind(Self.day(of: now))).all()
        var tallies = Dictionary(uniqueKeysWithValues: Tally.allCases.map { ($0, 0) })
        for row in rows {
            guard let tally = Tally(rawValue: try row.decode(column: Column.name, as: String.self)) else { continue }
            tallies[tally] = try row.decode(column: Column.count, as: Int.self)
        }
        return tallies
    }

    /// Forgets the days older than `keptDays`; how many rows went.
    func prune(at now: Date) async throws -> Int {
        let oldest = Self.day(of: now.addingTimeInterval(-Double(Self.keptDays) * 24 * 3600))
        return try await sql.delete(from: Self.schema).where(SQLIdentifier(Column.day), .lessThan, SQLBind(oldest))
            .returning(SQLIdentifier(Column.name)).all().count
    }

    package static func pruneJob() -> PeriodicJob {
        PeriodicJob("old daily tallies", every: .seconds(6 * 3600)) { app in
            try await DailyTallies(database: app.db).prune(at: app.siteClock())
        }
    }
}

extension Application {
    private struct DailyTallyChangesKey: StorageKey { typealias Value = ChangeVersion }

    /// Moves after every tally added, here and on every instance (the console's Today is kept at it).
    package var dailyTallyChanges: ChangeVersion {
        if let existing = storage[DailyTallyChangesKey.self] { return existing }
        let made = ChangeVersion(topic: "platform.daily-tallies")
        storage[DailyTallyChangesKey.self] = made
        return made
    }

    /// Adds one to today's tally; a failure to count is logged, never passed on (the work that
    /// failed has its own outcome).
    package func tally(_ tally: DailyTallies.Tally) async {
        do {
            try await DailyTallies(database: db).add(tally, at: siteClock())
            await dailyTallyChanges.changed(announcingOn: events)
        } catch {
            logger.warning("a daily tally was not counted", metadata: ["tally": "\(tally.rawValue)", "error": "\(error)"])
        }
    }
}

/// The table of daily tallies.
package struct CreateDailyTallies: NamedMigration {
    package func prepare(on database: any Database) async throws {
        typealias Column = DailyTallies.Column
        try await database.schema(DailyTallies.schema)
            .fields([(Column.name, .string), (.day, .string), (.count, .int64)])
            .unique(on: Column.name.fieldKey, Column.day.fieldKey)
            .create()
    }

    package func revert(on database: any Database) async throws {
        try await database.schema(DailyTallies.schema).delete()
    }

    package init() {}
}
