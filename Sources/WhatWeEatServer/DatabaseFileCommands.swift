import FluentSQLiteDriver
import Foundation
import Media
public import Platform
#if canImport(Glibc)
import Glibc
import Site
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
/// Uploaded files travel with the database: kept on disk (SQLite's default), backup copies them
/// into the copy's `stored_files` table and restore writes them back to `DATA_DIR/uploads`; kept
/// in the database, they are in the copy already; kept in a bucket, the bucket keeps them.
/// On PostgreSQL the same two commands write and read a folder through `pg_dump` and
/// `pg_restore` (`PostgresBackup`).
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
        let file = absolute(arguments[1])
        let uploads = uploadsOnDisk(settings)
        let environmentSets = ProcessInfo.processInfo.environment["JWT_SECRET"] != nil
        guard case .sqlite(let database) = settings.database else {
            guard case .postgres(let url) = settings.database else { return false }
            if command == "backup" {
                let (size, files) = try await PostgresBackup.backup(url: url, to: file, uploads: uploads, secret: settings.jwtSecret, now: WallClock.now())
                print("Backed up the PostgreSQL database to \(file)/ (\(size) bytes\(uploads == nil ? "" : ", \(files) uploaded files")).")
            } else {
                guard PostgresBackup.isBackup(file) else {
                    throw Failure(description: "\(file) is not a PostgreSQL backup (a folder `whatweeat backup` wrote with DATABASE_URL set)")
                }
                let (files, secret) = try await PostgresBackup.restore(url: url, from: file, uploads: uploads)
                print("Restored \(file) into the database in DATABASE_URL\(uploads == nil ? "" : " and \(files) uploaded files into \(uploads ?? "")").")
                print(try placeSecret(secret, into: settings, environmentSets: environmentSets))
            }
            return true
        }
        if command == "restore", PostgresBackup.isBackup(file) {
            throw Failure(description: "\(file) is a PostgreSQL backup: set DATABASE_URL to an empty PostgreSQL database to restore it")
        }
        if command == "backup" {
            let (size, files) = try await backup(database: database, to: file, uploads: uploads, secret: settings.jwtSecret)
            print("Backed up \(database) to \(file) (\(size) bytes\(uploads == nil ? "" : ", \(files) uploaded files")).")
        } else {
            let (kept, files) = try await restore(database: database, from: file, uploads: uploads)
            print("Restored \(file) into \(database)\(uploads == nil ? "" : " and \(files) uploaded files into \(uploads ?? "")")."
                  + (kept.map { " The database it replaced is kept as \($0)." } ?? ""))
            print(try placeSecret(try await takeSecret(from: database), into: settings, environmentSets: environmentSets))
        }
        return true
    }

    /// `DATA_DIR/uploads` when uploads are kept on disk; nil when the database or a bucket keeps them
    /// (on PostgreSQL by default: a folder an earlier version left there was carried into the database).
    static func uploadsOnDisk(_ settings: Settings) -> String? {
        switch settings[section: MediaSettings.self].storage {
        case .disk: return uploadsDirectory(settings)
        case .automatic:
            if case .postgres = settings.database { return nil }
            return uploadsDirectory(settings)
        case .database, .s3: return nil
        }
    }

    /// Writes the copy; with `uploads`, the files there go into the copy's `stored_files`.
    /// Returns the copy's size and how many files it carries.
    package static func backup(database: String, to file: String, uploads: String? = nil, secret: String? = nil) async throws -> (bytes: Int, files: Int) {
        guard FileManager.default.fileExists(atPath: database) else { throw Failure(description: "no database at \(database)") }
        guard !FileManager.default.fileExists(atPath: file) else { throw Failure(description: "\(file) exists; a backup never overwrites a file") }
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try await withConnection(database) { connection in
            _ = try await connection.query("PRAGMA busy_timeout = 10000", [])
            _ = try await connection.query("VACUUM INTO ?", [.text(file)])
        }
        chmod(file, 0o600)  // whatever the umask of the process that asked (a scheduled backup runs in the server)
        var carried = 0
        if let uploads, let disk = try? DiskFileStorage(directory: uploads) {
            do {
                carried = try await carry(disk, into: file)
            } catch {
                try? FileManager.default.removeItem(atPath: file)  // no backup that lacks its files
                throw error
            }
        }
        if let secret {
            do {
                try await withConnection(file) { connection in
                    _ = try await connection.query("CREATE TABLE \(secretTable) (name TEXT PRIMARY KEY, value TEXT NOT NULL)", [])
                    _ = try await connection.query("INSERT INTO \(secretTable) (name, value) VALUES ('jwt-secret', ?)", [.text(secret)])
                }
            } catch {
                try? FileManager.default.removeItem(atPath: file)
                throw error
            }
        }
        try await check(file)
        return ((try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0, carried)
    }

    /// The server's secret rides in the copy (a restore that made a new one signed everyone out);
    /// restore takes it out again. The copy is its owner's alone (0600), like the database.
    static let secretTable = "backup_secret"

    /// The secret a restored SQLite copy carries, taken out of the database.
    static func takeSecret(from database: String) async throws -> String? {
        try await withConnection(database) { connection in
            guard try await hasTable(secretTable, connection) else { return nil }
            let value = try await connection.query("SELECT value FROM \(secretTable) WHERE name = 'jwt-secret'", []).first?.column("value")?.string
            _ = try await connection.query("DROP TABLE \(secretTable)", [])
            return value
        }
    }

    /// Puts the secret a restored backup carries where the server reads it (`DATA_DIR/jwt-secret`,
    /// 0600; one there before is kept beside it). With `JWT_SECRET` in the environment the
    /// environment wins, and the line says whether they differ.
    static func placeSecret(_ carried: String?, into settings: Settings, environmentSets: Bool) throws -> String {
        guard let carried else { return "The backup carries no secret: keep the server's JWT_SECRET or DATA_DIR/jwt-secret as it was." }
        if environmentSets {
            return carried == settings.jwtSecret ? "The backup's secret is the JWT_SECRET set here." :
                "The backup's secret differs from the JWT_SECRET set here: sessions made before the backup end unless JWT_SECRET is set back."
        }
        let path = (settings.dataDirectory as NSString).appendingPathComponent("jwt-secret")
        if let existing = try? String(contentsOfFile: path, encoding: .utf8), existing.trimmingCharacters(in: .whitespacesAndNewlines) != carried {
            let stamp = ISO8601DateFormatter().string(from: WallClock.now()).replacingOccurrences(of: ":", with: "")
            try FileManager.default.moveItem(atPath: path, toPath: "\(path).before-restore-\(stamp)")
        }
        try? FileManager.default.removeItem(atPath: path)
        guard FileManager.default.createFile(atPath: path, contents: Data((carried + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw Failure(description: "could not write \(path)")
        }
        return "The server's secret came back with it (\(path)): sessions made before the backup go on."
    }

    /// Copies every file of `disk` into the `stored_files` of the database copy at `file`.
    private static func carry(_ disk: DiskFileStorage, into file: String) async throws -> Int {
        try await withConnection(file) { connection in
            let copy = DatabaseFileStorage(database: { connection.sql() })
            guard try await hasTable(DatabaseFileStorage.schema, connection) else {
                throw Failure(description: "the database predates uploaded files in backups: start the server once (it upgrades the database), then back up")
            }
            // One transaction for them all: a commit per file synced the copy to disk each time
            // (16 ms a photo, half an hour per 100,000); the copy is checked whole at the end.
            _ = try await connection.query("BEGIN", [])
            var carried = 0
            for key in try disk.keys() {
                guard let path = disk.path(for: key), let type = ImageType(rawValue: String(key.split(separator: ".")[1])) else { continue }
                _ = try await copy.save(try Data(contentsOf: URL(fileURLWithPath: path)), as: type)
                carried += 1
            }
            _ = try await connection.query("COMMIT", [])
            return carried
        }
    }

    /// Returns where the replaced database was kept (nil when there was none) and, with `uploads`,
    /// how many files the copy carried back to that folder (they leave its `stored_files`).
    package static func restore(database: String, from file: String, uploads: String? = nil) async throws -> (kept: String?, files: Int) {
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
            let stamp = ISO8601DateFormatter().string(from: WallClock.now()).replacingOccurrences(of: ":", with: "")
            let keptPath = "\(database).before-restore-\(stamp)"
            try FileManager.default.moveItem(atPath: database, toPath: keptPath)
            kept = keptPath
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
        let incoming = database + ".restoring"
        try? FileManager.default.removeItem(atPath: incoming)
        try FileManager.default.copyItem(atPath: file, toPath: incoming)
        guard rename(incoming, database) == 0 else { throw Failure(description: "could not move the copy into place: \(String(cString: strerror(errno)))") }
        var carried = 0
        if let uploads {
            let disk = try DiskFileStorage(directory: uploads)
            carried = try await withConnection(database) { connection in
                let restored = DatabaseFileStorage(database: { connection.sql() })
                // A backup from before files travelled with it has no such table: nothing to write back.
                guard try await hasTable(DatabaseFileStorage.schema, connection) else { return 0 }
                // One transaction for the rows that leave (a commit each synced every time).
                _ = try await connection.query("BEGIN", [])
                var carried = 0
                for key in try await restored.keys() {
                    guard case .bytes(let data)? = try await restored.content(of: key),
                          let type = ImageType(rawValue: String(key.split(separator: ".")[1])) else { continue }
                    // Bytes that are not what their name says stay behind in the table, unserved.
                    guard try await disk.save(data, as: type) == key else { continue }
                    try await restored.delete(key: key)
                    carried += 1
                }
                _ = try await connection.query("COMMIT", [])
                return carried
            }
        }
        return (kept, carried)
    }

    /// The file is a whole SQLite database that this server wrote.
    package static func check(_ file: String) async throws {
        try await withConnection(file) { connection in
            let integrity = try await connection.query("PRAGMA integrity_check", []).first?.column("integrity_check")?.string
            guard integrity == "ok" else { throw Failure(description: "\(file) is damaged: \(integrity ?? "not a database")") }
            guard try await hasTable("_fluent_migrations", connection) else { throw Failure(description: "\(file) is not a whatweeat database") }
        }
    }

    /// Whether the SQLite database on `connection` has a table of this name (a read failure throws).
    private static func hasTable(_ name: String, _ connection: SQLiteConnection) async throws -> Bool {
        try await !connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]).isEmpty
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
