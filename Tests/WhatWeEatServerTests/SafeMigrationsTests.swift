import Fluent
import Platform
import Site
import SQLKit
@testable import WhatWeEatServer
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// Issue 58, item 2: migrations cannot break a start. Two processes starting together on an empty
/// database both come up; a migration that fails half-way leaves nothing behind and runs again
/// on the next start; a database migrated by a newer version is refused; the command line is
/// read before any database is touched. On SQLite and on PostgreSQL (`.ci/run` runs both).
final class SafeMigrationsTests: XCTestCase {
    func testTwoInstancesStartingTogetherOnAnEmptyDatabaseBothComeUp() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let settings = try await DatabaseTemplate.shared.emptyDatabase(in: directory)
        let apps = [try await Application.make(.testing), try await Application.make(.testing)]
        do {
            for app in apps { try await configure(app, settings: settings) }
            // Both start at once, as two systemd units at boot.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for app in apps { group.addTask { try await prepareDatabase(app) } }
                try await group.waitForAll()
            }
            let applied = try await SafeMigrations.appliedMigrations(apps[0].db)
            XCTAssertEqual(applied, SafeMigrations.all.map(\.name), "each migration once, in order")
            // The catalogs were seeded once: a later start finds them all and adds nothing.
            let menus = try await apps[1].db.sql.raw("SELECT COUNT(*) AS n FROM menus").first(decodingColumn: "n", as: Int.self)
            XCTAssertGreaterThan(try XCTUnwrap(menus), 0)
            try await prepareDatabase(apps[1])
            let menusAfter = try await apps[1].db.sql.raw("SELECT COUNT(*) AS n FROM menus").first(decodingColumn: "n", as: Int.self)
            XCTAssertEqual(menusAfter, menus)
        } catch {
            for app in apps { try? await app.asyncShutdown() }
            throw error
        }
        for app in apps { try await app.asyncShutdown() }
    }

    func testAMigrationThatFailsHalfWayLeavesNothingAndRunsAgainNextStart() async throws {
        try await withTestApp { app in
            let failing = HalfWayMigration(fails: true)
            app.migrations.add(InTransaction(base: failing))
            do {
                try await prepareDatabase(app)
                XCTFail("the migration failed: so must the start")
            } catch {}
            let batches = try await app.db.sql.raw("SELECT MAX(batch) AS n FROM _fluent_migrations").first(decodingColumn: "n", as: Int.self)
            XCTAssertLessThan(try XCTUnwrap(batches), 1000, "the rows changed before the failure were rolled back")
            let tables = try await Self.tableExists("half_way_things", app.db.sql)
            XCTAssertFalse(tables, "so was the table")
            let logged = try await SafeMigrations.appliedMigrations(app.db)
            XCTAssertFalse(logged.contains(failing.name))
            // Next start, with the obstacle gone: it runs whole.
            failing.fails = false
            try await prepareDatabase(app)
            let made = try await Self.tableExists("half_way_things", app.db.sql)
            XCTAssertTrue(made)
            let loggedNow = try await SafeMigrations.appliedMigrations(app.db)
            XCTAssertTrue(loggedNow.contains(failing.name))
        }
    }

    func testADatabaseMigratedByANewerVersionIsRefused() async throws {
        try await withTestApp { app in
            try await SafeMigrations.refuseNewerDatabase(app)
            try await app.db.sql.raw("""
                INSERT INTO _fluent_migrations (id, name, batch, created_at, updated_at)
                VALUES (\(bind: UUID()), 'WhatWeEatServer.AddSomethingFromTheFuture', 99, \(bind: Date()), \(bind: Date()))
                """).run()
            do {
                try await prepareDatabase(app)
                XCTFail("a newer database must be refused")
            } catch let refusal as SafeMigrations.NewerDatabase {
                XCTAssertEqual(refusal.unknown, ["WhatWeEatServer.AddSomethingFromTheFuture"])
                XCTAssertTrue(refusal.description.contains("migrated by a newer WhatWeEat"), refusal.description)
                XCTAssertTrue(refusal.description.contains("AddSomethingFromTheFuture"), refusal.description)
            }
        }
    }

    func testAStartThatFailsSaysWhyInOneLineWithoutTheValues() async throws {
        try await withTestApp { app in
            do {
                try await app.db.sql.raw("SELECT * FROM no_such_table WHERE x = \(bind: "secret-value")").run()
                XCTFail("the table does not exist")
            } catch {
                let line = StartFailure.describe(error)
                XCTAssertTrue(line.contains("no_such_table"), line)
                XCTAssertFalse(line.contains("secret-value"), line)
                XCTAssertFalse(line.contains("Generic description"), "PostgreSQL's own message, not the driver's placeholder: \(line)")
            }
        }
    }

    func testTheCommandLineIsReadBeforeAnythingElse() {
        XCTAssertEqual(Invocation.parse([]), .run)
        XCTAssertEqual(Invocation.parse(["--version"]), .version)
        XCTAssertEqual(Invocation.parse(["-V"]), .version)
        XCTAssertEqual(Invocation.parse(["--help"]), .help)
        XCTAssertEqual(Invocation.parse(["serve", "--port", "8081"]), .run)
        XCTAssertEqual(Invocation.parse(["--hostname", "0.0.0.0", "--port=8081"]), .run)
        XCTAssertEqual(Invocation.parse(["--env", "production", "migrate", "--yes"]), .run)
        XCTAssertEqual(Invocation.parse(["user", "create", "--admin"]), .run)
        XCTAssertEqual(Invocation.parse(["--verison"]), .usageError("unknown option --verison"))
        XCTAssertEqual(Invocation.parse(["serve", "--frobnicate"]), .usageError("unknown option --frobnicate"))
        XCTAssertEqual(Invocation.parse(["serve", "--port"]), .usageError("--port needs a value"))
        XCTAssertEqual(Invocation.parse(["sevre"]), .usageError("unknown command sevre"))
        XCTAssertTrue(Invocation.versionLine.hasPrefix("whatweeat \(AppVersion.current) ("), Invocation.versionLine)
    }

    private static func tableExists(_ name: String, _ sql: any SQLDatabase) async throws -> Bool {
        if sql.dialect.name == "sqlite" {
            return try await sql.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name = \(bind: name)").first() != nil
        }
        let found = try await sql.raw("SELECT to_regclass(\(bind: name))::text AS name").first(decodingColumn: "name", as: String?.self)
        return (found ?? nil) != nil
    }
}

/// Makes a table, changes rows elsewhere, then fails while `fails` (an index in the way, a typo).
private final class HalfWayMigration: AsyncMigration, @unchecked Sendable {
    var fails: Bool
    init(fails: Bool) { self.fails = fails }

    var name: String { "WhatWeEatServer.HalfWayMigrationForTests" }

    func prepare(on database: any Database) async throws {
        try await database.sql.raw("CREATE TABLE half_way_things (id INTEGER PRIMARY KEY)").run()
        try await database.sql.raw("UPDATE _fluent_migrations SET batch = batch + 1000").run()
        if fails { try await database.sql.raw("SELECT * FROM no_such_table").run() }
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw("DROP TABLE half_way_things").run()
    }
}
