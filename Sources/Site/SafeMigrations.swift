package import Fluent
import FluentPostgresDriver
import Foundation
import Payments
package import Platform
import SQLKit
package import Vapor
#if canImport(Glibc)
import Glibc
#endif

/// Migrations that cannot break a start (issue 58, item 2):
/// - one process prepares the database at a time (migrations, then the catalogs' seeding, which
///   two starts would otherwise race): PostgreSQL's advisory lock (held by a connection of its
///   own, so a process that dies lets go), or an exclusive lock on a file beside the SQLite
///   database; the others wait, then find nothing left to do;
/// - each migration runs in a transaction (both databases roll back DDL), so one that fails
///   half-way leaves the database as it was before it, and the next start tries it again;
/// - a database that holds a migration this binary does not know was migrated by a newer
///   WhatWeEat, and is refused before anything writes to it.
package enum SafeMigrations {
    /// Every migration a site of `features` knows, in the order they run: the payments tables (no
    /// feature owns them alone), then each feature's, in the order given.
    package static func all(for features: [any Feature.Type]) -> [any Migration] {
        [CreatePaymentRefunds(), AddPaymentRefundClaims(), AddPaymentRefundParts()] + features.flatMap { $0.migrations }
    }

    /// What `configureSite` registers: each of `all` in a transaction of its own.
    static func registered(for features: [any Feature.Type]) -> [any Migration] { all(for: features).map(InTransaction.init) }

    // MARK: The downgrade guard

    /// Refused: the database carries migrations this binary does not know.
    package struct NewerDatabase: Error, CustomStringConvertible {
        package let unknown: [String]
        package var description: String {
            let shown = unknown.prefix(3).map { $0.replacingOccurrences(of: "WhatWeEatServer.", with: "") }.joined(separator: ", ")
            return "this database was migrated by a newer WhatWeEat (it has \(unknown.count) migration(s) this version does not know: \(shown)); "
                + "run that version or a newer one, or restore a backup made before the upgrade (docs/UPGRADING.md)"
        }
    }

    /// Throws `NewerDatabase` when the migration log names a migration not in `all`.
    package static func refuseNewerDatabase(_ app: Application) async throws {
        let applied = try await appliedMigrations(app.db)
        let known = Set(all(for: app.siteFeatures).map(\.name))
        let unknown = applied.filter { !known.contains($0) }
        guard unknown.isEmpty else { throw NewerDatabase(unknown: unknown) }
    }

    /// The names in Fluent's migration log; none on a new database.
    package static func appliedMigrations(_ database: any Database) async throws -> [String] {
        let sql = database.sql
        let exists: Bool
        if sql.dialect.name == "sqlite" {
            exists = try await sql.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_fluent_migrations'").first() != nil
        } else {
            let found = try await sql.raw("SELECT to_regclass('_fluent_migrations')::text AS name").first(decodingColumn: "name", as: String?.self)
            exists = (found ?? nil) != nil
        }
        guard exists else { return [] }
        return try await sql.raw("SELECT name FROM _fluent_migrations ORDER BY batch, created_at").all(decodingColumn: "name", as: String.self)
    }

    // MARK: One at a time

    /// Runs `body` while no other process migrates or seeds this database.
    package static func holdingTheLock<T: Sendable>(_ app: Application, _ body: () async throws -> T) async throws -> T {
        switch app.settings.database {
        case .sqlite(let path):
            let lock = try await FileLock.acquire(path + ".migrate-lock")
            defer { lock.release() }
            return try await body()
        case .postgres(let url):
            let connection = try await PostgresConnection.connect(
                configuration: try SQLPostgresConfiguration(url: url).coreConfiguration, id: 0, logger: app.logger)
            do {
                // Waits for whoever migrates now; the session's end lets go, should this process die.
                _ = try await connection.query("SELECT pg_advisory_lock(hashtext('whatweeat.migrations'))", logger: app.logger)
                let result = try await body()
                try? await connection.close()
                return result
            } catch {
                try? await connection.close()
                throw error
            }
        }
    }

    /// An exclusive `flock` on a file, waited for without blocking a thread.
    final class FileLock: @unchecked Sendable {
        private var descriptor: Int32

        private init(descriptor: Int32) { self.descriptor = descriptor }

        static func acquire(_ path: String) async throws -> FileLock {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw Abort(.internalServerError, reason: "cannot open \(path)") }
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                try await Task.sleep(for: .milliseconds(100))
            }
            return FileLock(descriptor: descriptor)
        }

        func release() {
            guard descriptor >= 0 else { return }
            flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }

        deinit { release() }
    }
}

/// A migration run in a transaction of its own, under its own name (the log keeps the name).
package struct InTransaction: AsyncMigration {
    let base: any Migration

    package init(base: any Migration) {
        self.base = base
    }

    package var name: String { base.name }

    package func prepare(on database: any Database) async throws {
        try await database.transaction { transaction in try await base.prepare(on: transaction).get() }
    }

    package func revert(on database: any Database) async throws {
        try await database.transaction { transaction in try await base.revert(on: transaction).get() }
    }
}

/// An error from preparing the database as one line an operator can act on: PostgreSQL's own
/// message and SQLSTATE (its driver's description is deliberately generic), never the query's
/// values; anything else as it describes itself.
package enum StartFailure {
    package static func describe(_ error: any Error) -> String {
        if let postgres = error as? PSQLError {
            if let message = postgres.serverInfo?[.message] {
                let state = postgres.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
                return "PostgreSQL: \(message)\(state)"
            }
            return "PostgreSQL: \(postgres.code)"
        }
        return String(String(describing: error).prefix(300))
    }
}
