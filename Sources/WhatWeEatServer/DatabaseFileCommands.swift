import FluentSQLiteDriver
import Foundation
import Platform
#if canImport(Glibc)
import Glibc
#endif

/// `whatweeat backup FILE` and `whatweeat restore FILE`: the SQLite database as one file.
///
/// They run before the application is made (`main.swift`), so no connection pool or background
/// job of this process holds the database while it is copied or replaced.
/// - **backup** writes a consistent copy while the server runs (`VACUUM INTO`: one read
///   transaction, so writers carry on under WAL), checks it, and never overwrites a file.
/// - **restore** refuses while a server uses the database (`serve` holds a shared lock on
///   `<database>.lock` for its lifetime; restore needs it exclusively, without waiting), checks the
///   file is a whatweeat database, keeps the current one beside it as
///   `<database>.before-restore-<time>`, and moves the copy in with one rename.
/// PostgreSQL has its own tools (`pg_dump`, `pg_restore`; README.md).
public enum DatabaseFileCommands {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs the command in `arguments` (without the program name) if it is one of these; false otherwise.
    public static func runIfAsked(_ arguments: [String], settings: Settings) async throws -> Bool {
        guard let command = arguments.first, command == "backup" || command == "restore" else { return false }
        guard arguments.count == 2, !arguments[1].hasPrefix("-") else {
            throw Failure(description: "usage: whatweeat \(command) FILE")
        }
        guard case .sqlite(let database) = settings.database else {
            throw Failure(description: "\(command) is for the SQLite database; for PostgreSQL use pg_dump and pg_restore (README.md, \"Backups\")")
        }
        let file = absolute(arguments[1])
        if command == "backup" {
            let size = try await backup(database: database, to: file)
            print("Backed up \(database) to \(file) (\(size) bytes).")
        } else {
            let kept = try await restore(database: database, from: file)
            print("Restored \(file) into \(database)." + (kept.map { " The database it replaced is kept as \($0)." } ?? ""))
        }
        return true
    }

    package static func backup(database: String, to file: String) async throws -> Int {
        guard FileManager.default.fileExists(atPath: database) else { throw Failure(description: "no database at \(database)") }
        guard !FileManager.default.fileExists(atPath: file) else { throw Failure(description: "\(file) exists; a backup never overwrites a file") }
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try await withConnection(database) { connection in
            _ = try await connection.query("PRAGMA busy_timeout = 10000", [])
            _ = try await connection.query("VACUUM INTO ?", [.text(file)])
        }
        try await check(file)
        return (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
    }

    /// Returns where the replaced database was kept (nil when there was none).
    package static func restore(database: String, from file: String) async throws -> String? {
        guard FileManager.default.fileExists(atPath: file) else { throw Failure(description: "no file at \(file)") }
        try await check(file)
        try FileManager.default.createDirectory(atPath: (database as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard let lock = DatabaseLock(database: database, mode: .exclusiveNow) else {
            throw Failure(description: "the database \(database) is in use by a running server; stop it first")
        }
        defer { lock.release() }
        var kept: String?
        if FileManager.default.fileExists(atPath: database) {
            // Fold the write-ahead log into the file first, so the kept copy is whole on its own.
            try await withConnection(database) { connection in
                _ = try await connection.query("PRAGMA wal_checkpoint(TRUNCATE)", [])
            }
            let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
            let keptPath = "\(database).before-restore-\(stamp)"
            try FileManager.default.moveItem(atPath: database, toPath: keptPath)
            kept = keptPath
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
        let incoming = database + ".restoring"
        try? FileManager.default.removeItem(atPath: incoming)
        try FileManager.default.copyItem(atPath: file, toPath: incoming)
        guard rename(incoming, database) == 0 else { throw Failure(description: "could not move the copy into place: \(String(cString: strerror(errno)))") }
        return kept
    }

    /// The file is a whole SQLite database that this server wrote.
    package static func check(_ file: String) async throws {
        try await withConnection(file) { connection in
            let integrity = try await connection.query("PRAGMA integrity_check", []).first?.column("integrity_check")?.string
            guard integrity == "ok" else { throw Failure(description: "\(file) is damaged: \(integrity ?? "not a database")") }
            let tables = try await connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '_fluent_migrations'", [])
            guard !tables.isEmpty else { throw Failure(description: "\(file) is not a whatweeat database") }
        }
    }

    private static func withConnection<T>(_ path: String, _ body: (SQLiteConnection) async throws -> T) async throws -> T {
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: path))
        } catch {
            throw Failure(description: "cannot open \(path) as a database: \(error)")
        }
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch let failure as Failure {
            try? await connection.close()
            throw failure
        } catch {
            try? await connection.close()
            throw Failure(description: "\(path): \(String(describing: error).prefix(200))")
        }
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}

/// An advisory lock on `<database>.lock`: every serving process holds it shared for its lifetime;
/// a restore needs it exclusively and does not wait.
public final class DatabaseLock: @unchecked Sendable {
    public enum Mode { case shared, exclusiveNow }
    private var descriptor: Int32

    public init?(database: String, mode: Mode) {
        descriptor = open(database + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        let operation = mode == .shared ? LOCK_SH : (LOCK_EX | LOCK_NB)
        guard flock(descriptor, operation) == 0 else {
            close(descriptor)
            return nil
        }
    }

    public func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
