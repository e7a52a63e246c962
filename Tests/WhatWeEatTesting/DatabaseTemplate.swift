import Fluent
import FluentPostgresDriver
import Logging
package import Platform
import PostgresNIO
import Site
import SQLKit
import XCTVapor

/// Every test starts on a fresh database that is already migrated and seeded, copied from one
/// template made once per test process. Migrating and seeding again per test took ~1.5 s on
/// PostgreSQL (the CI's slowest stage was mostly that); copying a database takes ~0.06 s there
/// and a file copy on SQLite (issue 30, docs/DECISIONS.md).
///
/// The copy is what `prepareDatabase` would leave on an empty database, so tests still call it
/// (as a server start does); it finds nothing to do.
///
/// On PostgreSQL the next copy is made while the current test runs (`<suite>_next`, on the
/// server's own CPU), and a test's start only drops the suite's database and renames the copy:
/// making a copy takes ~0.35 s, which every one of ~500 tests waited for.
///
/// A template is made per list of features (a feature's tests run a site of that feature alone,
/// whose schema is only its own): a process that runs every target makes one per list.
package actor DatabaseTemplate {
    package static let shared = DatabaseTemplate()

    /// The SQLite template's file, by the features' key.
    private var sqliteTemplates: [String: String] = [:]
    /// The PostgreSQL template database's name, by the features' key.
    private var postgresTemplates: [String: String] = [:]
    /// One connection to the cluster's `postgres` database, for the whole process.
    private var maintenance: PostgresConnection?
    /// Making `<suite>_next` from a template, started after the previous test's start.
    private var nextCopy: (template: String, copy: Task<Void, any Error>)?

    /// Makes `settings.database` a fresh copy of the template for `features`: on SQLite only when
    /// its file does not exist yet (a test that restarts on the same folder keeps its data); on
    /// PostgreSQL the suite's database (`TEST_DATABASE_URL`) is dropped and copied again.
    package func provision(_ settings: Settings, features: [any Feature.Type]) async throws {
        let features = SiteFeatures.including(features)
        switch settings.database {
        case .sqlite(let path):
            guard !FileManager.default.fileExists(atPath: path) else { return }
            try FileManager.default.copyItem(atPath: try await sqliteTemplatePath(features), toPath: path)
        case .postgres(let url):
            guard let suiteURL = TestDatabase.postgresURL, url == suiteURL else { return }
            let template = try await postgresTemplateName(suiteURL: suiteURL, features: features)
            let suiteDatabase = try Self.databaseName(in: suiteURL)
            let next = suiteDatabase + "_next"
            let connection = try await maintenanceConnection(suiteURL: suiteURL)
            // The copy made ahead is of the last test's template; another target's is made here.
            let ahead = nextCopy.flatMap { $0.template == template ? $0.copy : nil }
            if let stale = nextCopy, stale.template != template { _ = try? await stale.copy.value }
            let copy = ahead ?? Self.copy(template, to: next, on: connection)
            nextCopy = nil
            do {
                try await copy.value
            } catch {
                // A copy that failed in the background (a connection lost) is made again here, in the open.
                try await Self.copy(template, to: next, on: connection).value
            }
            // FORCE: a server process a test started may still hold a connection.
            try await Self.run("DROP DATABASE IF EXISTS \(Self.quoted(suiteDatabase)) WITH (FORCE)", on: connection)
            try await Self.run("ALTER DATABASE \(Self.quoted(next)) RENAME TO \(Self.quoted(suiteDatabase))", on: connection)
            nextCopy = (template, Self.copy(template, to: next, on: connection))
        }
    }

    /// Names a list of features in a template's name: a short, stable digest (FNV-1a) of their
    /// type names, so a database name stays under PostgreSQL's 63 bytes.
    private static func key(_ features: [any Feature.Type]) -> String {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in features.map { String(reflecting: $0) }.joined(separator: ",").utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100000001b3
        }
        return String(hash, radix: 16)
    }

    /// Settings on an empty database, as a new site's first start meets it: a SQLite file not yet
    /// made in `directory`, or on PostgreSQL the suite's `<suite>_empty`, dropped and made anew.
    package func emptyDatabase(in directory: String) async throws -> Settings {
        var settings = TestDatabase.settings(dataDirectory: directory)
        guard let suiteURL = TestDatabase.postgresURL else { return settings }
        let name = try Self.databaseName(in: suiteURL) + "_empty"
        let connection = try await maintenanceConnection(suiteURL: suiteURL)
        try await Self.run("DROP DATABASE IF EXISTS \(Self.quoted(name)) WITH (FORCE)", on: connection)
        try await Self.run("CREATE DATABASE \(Self.quoted(name))", on: connection)
        settings.database = .postgres(url: try Self.url(suiteURL, database: name))
        return settings
    }

    /// A fresh, empty database beside the suite's (`<suite>_bare`), for `withTestDatabase`: its URL.
    package func emptyPostgresDatabase(suiteURL: String) async throws -> String {
        let name = try Self.databaseName(in: suiteURL) + "_bare"
        let connection = try await maintenanceConnection(suiteURL: suiteURL)
        try await Self.run("DROP DATABASE IF EXISTS \(Self.quoted(name)) WITH (FORCE)", on: connection)
        try await Self.run("CREATE DATABASE \(Self.quoted(name))", on: connection)
        return try Self.url(suiteURL, database: name)
    }

    private func maintenanceConnection(suiteURL: String) async throws -> PostgresConnection {
        if let maintenance, !maintenance.isClosed { return maintenance }
        let configuration = try SQLPostgresConfiguration(url: try Self.url(suiteURL, database: "postgres")).coreConfiguration
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: Logger(label: "test-database-template"))
        maintenance = connection
        return connection
    }

    private static func copy(_ template: String, to database: String, on connection: PostgresConnection) -> Task<Void, any Error> {
        Task {
            try await run("DROP DATABASE IF EXISTS \(quoted(database)) WITH (FORCE)", on: connection)
            try await run("CREATE DATABASE \(quoted(database)) TEMPLATE \(quoted(template))", on: connection)
        }
    }

    private static func run(_ statement: String, on connection: PostgresConnection) async throws {
        _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: Logger(label: "test-database-template")).collect()
    }

    /// A database name as an SQL identifier (names here come from the suite's URL).
    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    private func sqliteTemplatePath(_ features: [any Feature.Type]) async throws -> String {
        let key = Self.key(features)
        if let made = sqliteTemplates[key] { return made }
        if sqliteTemplates.isEmpty { Self.removeTemplatesOfEndedProcesses() }
        let directory = NSTemporaryDirectory() + Self.templatePrefix + String(getpid()) + "/" + key
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let settings = TestDatabase.settings(dataDirectory: directory)
        try await Self.migrateAndSeed(settings, features: features) { sql in
            // Everything in the main file, so copying that one file is the whole database.
            try await sql.raw("PRAGMA wal_checkpoint(TRUNCATE)").run()
        }
        guard case .sqlite(let path) = settings.database else { preconditionFailure("SQLite settings expected") }
        sqliteTemplates[key] = path
        return path
    }

    /// The SQLite template's folder is named after its process: a later run removes those of
    /// processes that have ended (a test process cannot clean up after itself at exit).
    private static let templatePrefix = "whatweeat-test-template-"

    private static func removeTemplatesOfEndedProcesses() {
        let temporary = NSTemporaryDirectory()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] where name.hasPrefix(templatePrefix) {
            guard let pid = pid_t(name.dropFirst(templatePrefix.count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: temporary + name)
        }
    }

    private func postgresTemplateName(suiteURL: String, features: [any Feature.Type]) async throws -> String {
        let key = Self.key(features)
        if let made = postgresTemplates[key] { return made }
        // Made anew per process: a template left by an earlier run may hold an older schema.
        let name = try Self.databaseName(in: suiteURL) + "_t" + key
        try await Self.onMaintenanceDatabase(of: suiteURL) { sql in
            try await sql.raw("DROP DATABASE IF EXISTS \(ident: name) WITH (FORCE)").run()
            try await sql.raw("CREATE DATABASE \(ident: name)").run()
        }
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var settings = TestDatabase.settings(dataDirectory: directory)
        settings.database = .postgres(url: try Self.url(suiteURL, database: name))
        try await Self.migrateAndSeed(settings, features: features) { _ in }
        postgresTemplates[key] = name
        return name
    }

    /// What a server's first start does to an empty database.
    private static func migrateAndSeed(
        _ settings: Settings, features: [any Feature.Type], finally: (any SQLDatabase) async throws -> Void
    ) async throws {
        let app = try await Application.make(.testing)
        do {
            try await configureSite(app, settings: settings, features: features)
            try await prepareDatabase(app)
            try await finally(app.db.sql)
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    /// Runs `body` on the cluster's `postgres` database: a database cannot be dropped or copied
    /// from a connection to itself.
    private static func onMaintenanceDatabase(of suiteURL: String, _ body: (any SQLDatabase) async throws -> Void) async throws {
        let app = try await Application.make(.testing)
        do {
            let configuration = try SQLPostgresConfiguration(url: try url(suiteURL, database: "postgres"))
            app.databases.use(.postgres(configuration: configuration), as: .psql)
            try await body(try XCTUnwrap(app.db as? any SQLDatabase))
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    private static func databaseName(in url: String) throws -> String {
        let path = try XCTUnwrap(URLComponents(string: url)).path
        return String(path.drop(while: { $0 == "/" }))
    }

    private static func url(_ url: String, database: String) throws -> String {
        var components = try XCTUnwrap(URLComponents(string: url))
        components.path = "/" + database
        return try XCTUnwrap(components.string)
    }
}
