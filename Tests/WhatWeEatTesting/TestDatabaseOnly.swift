package import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import Platform
import Vapor

/// A database alone (issue 59), migrated with `migrations` and nothing else: no site, no feature,
/// no route, no seed, no event bus. What a store's own tests need — the store runs on it as in the
/// server — while the test builds and boots nothing beside it. SQLite in a temporary folder; on
/// PostgreSQL (`TEST_DATABASE_URL`, CI's second pass) a fresh empty database beside the suite's.
/// A store that reaches for anything it was not given (an environment, the application) cannot
/// find it here: it fails to compile or fails the test, not quietly gets a whole site.
package func withTestDatabase(migrations: [any Migration], _ body: (any Database) async throws -> Void) async throws {
    let directory = try TestDatabase.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let app = try await Application.make(.testing)
    do {
        if let suiteURL = TestDatabase.postgresURL {
            var configuration = try SQLPostgresConfiguration(url: try await DatabaseTemplate.shared.emptyPostgresDatabase(suiteURL: suiteURL))
            configuration.searchPath = nil
            app.databases.use(.postgres(configuration: configuration, maxConnectionsPerEventLoop: 2), as: .psql)
        } else {
            app.databases.use(.sqlite(.file(directory + "/store.sqlite")), as: .sqlite)
        }
        app.migrations.add(migrations)
        try await app.autoMigrate()
        try await body(app.db)
    } catch {
        try? await app.asyncShutdown()
        throw error
    }
    try await app.asyncShutdown()
}
