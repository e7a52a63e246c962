package import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import Metrics
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO
import SQLKit
import SQLiteNIO
import Vapor

extension Database {
    /// Runs `work` once what this database has written is committed: at once outside a
    /// transaction, after the commit inside `writeTransaction`'s (never, when it rolls back). For a
    /// version that must not move before the rows it stands for can be read (`ChangeVersion`).
    package func afterCommit(_ work: @escaping @Sendable () -> Void) {
        guard let joined = self as? JoinedTransaction else { return work() }
        joined.models.runAfterCommit(work)
    }

    /// The one way a store begins a transaction: writers wait their turn instead of failing.
    ///
    /// - **SQLite** begins `IMMEDIATE`: the write lock is taken first, so a transaction that read
    ///   before it wrote never meets a writer that committed in between (a deferred transaction
    ///   then gets `SQLITE_BUSY` at once, which no busy handler can wait out: "database is locked"
    ///   for likes sent together). A writer that finds the lock held waits up to `sqliteBusyTimeout`.
    /// - **PostgreSQL** (read committed) retries a deadlock or a serialization failure a few times
    ///   with a short random pause, and a unique-key collision once: the other writer committed, so
    ///   the second attempt sees its row and takes the idempotent path (a like already there).
    ///
    /// `work` may therefore run more than once (on PostgreSQL, when it wrote no Fluent model): it only
    /// touches the database it is given, and whatever it must tell the world (announcements, events)
    /// is collected per attempt and told after the commit. What still cannot be done is `DatabaseFailure`'s to answer: 503 with `Retry-After`
    /// (or 409 for a collision that held), never 500. Inside a transaction already, `work` joins it.
    package func writeTransaction<T: Sendable>(_ work: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        if inTransaction { return try await work(self) }
        let sqlite = sql.dialect.name == "sqlite"
        var attempt = 1
        while true {
            let models = ModelWrites()
            do {
                let result = try await oneWriteTransaction(sqlite: sqlite, models: models, work)
                models.committed()
                return result
            } catch {
                // SQLite waited its turn already (its busy timeout); a Fluent model that was written
                // carries that write in its own state (an id that "exists", changes marked saved), so
                // a second attempt would trap or skip it: those answer at once instead.
                guard !sqlite, !models.written, let failure = DatabaseFailure(error),
                      let pause = failure.pauseBeforeRetry(after: attempt) else { throw error }
                WriteRetries.counter(failure).increment()
                attempt += 1
                try await Task.sleep(nanoseconds: pause)
            }
        }
    }

    private func oneWriteTransaction<T: Sendable>(sqlite: Bool, models: ModelWrites,
                                                  _ work: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        guard sqlite else {
            return try await transaction { transaction in try await work(JoinedTransaction(transaction, models: models)) }
        }
        return try await withConnection { connection in
            let sql = connection.sql
            // The connection's own busy handler retries at once, forever (a busy loop on a thread of
            // the pool); a timeout sleeps between tries and gives up, which `DatabaseFailure` answers.
            try await sql.raw("PRAGMA busy_timeout = \(unsafeRaw: String(DatabaseFailure.sqliteBusyTimeoutMilliseconds))").run()
            try await sql.raw("BEGIN IMMEDIATE").run()
            do {
                let result = try await work(JoinedTransaction(connection, models: models))
                try await sql.raw("COMMIT").run()
                return result
            } catch {
                try? await sql.raw("ROLLBACK").run()
                throw error
            }
        }
    }
}

/// Whether an attempt wrote through a Fluent model (create, update, delete): such an attempt is not
/// tried again (see `writeTransaction`). Rows written with SQLKit carry no state and may be.
/// Also what the attempt asked to run once it committed (`afterCommit`).
private final class ModelWrites: Sendable {
    private let box = NIOLockedValueBox(false)
    private let afterCommit = NIOLockedValueBox<[@Sendable () -> Void]>([])
    var written: Bool { box.withLockedValue { $0 } }

    func runAfterCommit(_ work: @escaping @Sendable () -> Void) {
        afterCommit.withLockedValue { $0.append(work) }
    }

    /// The attempt committed: what waited for it runs.
    func committed() {
        for work in afterCommit.withLockedValue({ $0 }) { work() }
    }
    func note(_ action: DatabaseQuery.Action) {
        switch action {
        case .read, .aggregate: return
        default: box.withLockedValue { $0 = true }
        }
    }
}

/// What a database error means for the person waiting: try again in a moment (the database was busy
/// or away), or a collision with another writer. Anything else is not a `DatabaseFailure` (a bug:
/// 500, logged).
package enum DatabaseFailure: Sendable, Equatable {
    /// Another writer held what this one needed (SQLite busy past its timeout, a PostgreSQL
    /// deadlock or serialization failure, a lock wait that gave up).
    case busy
    /// The database could not be reached (stopped, restarting, out of connections, the pool's wait over).
    case unavailable
    /// A unique key another writer took at the same moment, still there on the retry.
    case collision

    /// How long a SQLite writer waits for the write lock before its request is answered 503.
    package static let sqliteBusyTimeoutMilliseconds = 5_000

    package init?(_ error: any Error) {
        switch error {
        case let error as SQLiteError:
            switch error.reason {
            case .busy, .locked, .busyInRecovery, .busyInSnapshot, .busyTimeout, .lockedBySharedCache, .lockedVirtualTable:
                self = .busy
            case .cantOpen, .full, .ioError, .ioErrorFailedRead, .ioErrorFailedWrite, .ioErrorFailedSync:
                self = .unavailable
            case .constraintUniqueFailed, .constraintPrimaryKeyFailed:
                self = .collision
            default:
                return nil
            }
        case let error as PSQLError:
            switch error.code {
            case .server:
                guard let state = error.serverInfo?[.sqlState], let failure = Self(sqlState: state) else { return nil }
                self = failure
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed,
                 .queryCancelled, .sslUnsupported, .failedToAddSSLHandler:
                self = .unavailable
            default:
                return nil
            }
        case is IOError, is ChannelError, is NIOConnectionError:
            self = .unavailable
        default:
            // The connection pools' own errors (AsyncKit's: the wait for a connection ran out, the
            // pool shut down), known by their module like the multipart parser's.
            let type = String(reflecting: Swift.type(of: error))
            guard type.hasPrefix("AsyncKit.ConnectionPool") || type.hasPrefix("PostgresNIO.PostgresError") else { return nil }
            self = .unavailable
        }
    }

    /// PostgreSQL's SQLSTATE classes that mean "not now" rather than "wrong".
    private init?(sqlState: String) {
        switch sqlState {
        case "40001", "40P01", "55P03", "57014": self = .busy  // serialization, deadlock, lock wait, cancelled
        case "23505": self = .collision  // unique_violation
        case "57P01", "57P02", "57P03", "53300", "53000": self = .unavailable  // shutting down, starting, too many connections
        default:
            guard sqlState.hasPrefix("08") else { return nil }  // connection exceptions
            self = .unavailable
        }
    }

    /// The pause before another attempt of a write transaction, or nil when it should not be tried
    /// again: a deadlock or serialization failure up to four attempts, a collision twice (the other
    /// writer committed; the second attempt sees its row), SQLite's busy never (it waited already)
    /// and an absent database never (the pool waited already).
    func pauseBeforeRetry(after attempt: Int) -> UInt64? {
        switch self {
        case .busy:
            guard attempt < 4 else { return nil }
            // PostgreSQL's busy answers come at once; SQLite's only after its timeout.
            return UInt64.random(in: 5_000_000...25_000_000) * UInt64(attempt)
        case .collision:
            return attempt < 2 ? 0 : nil
        case .unavailable:
            return nil
        }
    }

    /// The answer a person gets: 503 with `Retry-After` for a busy or absent database, 409 for a
    /// collision that held.
    package var appError: AppError {
        switch self {
        case .busy: AppError(.serviceUnavailable, "service_unavailable", headers: ["Retry-After": "1"])
        case .unavailable: AppError(.serviceUnavailable, "service_unavailable", headers: ["Retry-After": "5"])
        case .collision: AppError(.conflict, "write_conflict")
        }
    }

    static let allLabels = ["busy", "unavailable", "collision"]

    var label: String {
        switch self {
        case .busy: "busy"
        case .unavailable: "unavailable"
        case .collision: "collision"
        }
    }
}

private enum WriteRetries {
    static func counter(_ failure: DatabaseFailure) -> Counter {
        Counter(label: "whatweeat_database_write_retries_total", dimensions: [("reason", failure.label)])
    }
}

/// The connection inside the transaction `writeTransaction` began: Fluent and SQLKit see it as a
/// database in a transaction (a store's own `transaction` joins it), and Fluent's model writes are noted.
private struct JoinedTransaction: Database, SQLDatabase {
    let base: any Database
    let models: ModelWrites
    init(_ base: any Database, models: ModelWrites) {
        self.base = base
        self.models = models
    }

    var context: DatabaseContext { base.context }
    var inTransaction: Bool { true }

    func execute(query: DatabaseQuery, onOutput: @escaping @Sendable (any DatabaseOutput) -> ()) -> EventLoopFuture<Void> {
        models.note(query.action)
        return base.execute(query: query, onOutput: onOutput)
    }
    func execute(schema: DatabaseSchema) -> EventLoopFuture<Void> { base.execute(schema: schema) }
    func execute(enum: DatabaseEnum) -> EventLoopFuture<Void> { base.execute(enum: `enum`) }
    func transaction<T>(_ closure: @escaping @Sendable (any Database) -> EventLoopFuture<T>) -> EventLoopFuture<T> { closure(self) }
    func withConnection<T>(_ closure: @escaping @Sendable (any Database) -> EventLoopFuture<T>) -> EventLoopFuture<T> { closure(self) }

    // SQLDatabase: the connection's own.
    var logger: Logger { base.sql.logger }
    var eventLoop: any EventLoop { base.sql.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { base.sql.version }
    var dialect: any SQLDialect { base.sql.dialect }
    var queryLogLevel: Logger.Level? { base.sql.queryLogLevel }
    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) -> EventLoopFuture<Void> {
        base.sql.execute(sql: query, onRow)
    }
    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) async throws {
        try await base.sql.execute(sql: query, onRow)
    }
    func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        try await closure(self)
    }
}

extension SQLDatabase {
    /// Inside `writeTransaction`: a later writer that takes the same `key` waits here until this
    /// transaction ends, so a rule over several rows (at most ten addresses, exactly one default)
    /// holds under concurrency. PostgreSQL takes an advisory lock of the transaction; SQLite holds
    /// its one write lock from `BEGIN IMMEDIATE` already.
    package func lockUntilCommit(_ key: String) async throws {
        guard dialect.name == "postgresql" else { return }
        try await raw("SELECT pg_advisory_xact_lock(hashtext(\(bind: key)))").run()
    }
}

extension Application {
    /// SQLite: every connection of the pool (one per event loop) waits up to the busy timeout for the
    /// write lock, also for a single statement outside `writeTransaction` (SQLiteNIO's own busy
    /// handler retries at once, without end). Run once the database is open; `writeTransaction`
    /// sets it again on its connection, for one the pool opened since.
    package func waitForTheSQLiteWriteLock() async throws {
        guard db.sql.dialect.name == "sqlite" else { return }
        for eventLoop in eventLoopGroup.makeIterator() {
            guard let database = databases.database(logger: logger, on: eventLoop) else { continue }
            try await database.withConnection { connection in
                try await connection.sql.raw("PRAGMA busy_timeout = \(unsafeRaw: String(DatabaseFailure.sqliteBusyTimeoutMilliseconds))").run()
            }
        }
    }
}
