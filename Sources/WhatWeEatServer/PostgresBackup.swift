import Foundation
import Platform
import FluentPostgresDriver
#if canImport(Glibc)
import Glibc
#endif

/// `whatweeat backup DIR` and `whatweeat restore DIR` on PostgreSQL: a folder (0700) holding the
/// database in `pg_dump`'s own format (`database.dump`, which `pg_restore` reads), the server's
/// secret (`jwt-secret`), the uploaded files kept on disk (`uploads/`, when they are) and a
/// `backup.json` saying what made it. Photos kept in the database are in the dump; kept in a
/// bucket, the bucket keeps them.
///
/// A restore goes into an **empty** database (a new `CREATE DATABASE`), never over the one the
/// servers use: the old one stays until the operator points `DATABASE_URL` at the new one and
/// drops it. `pg_dump` and `pg_restore` come from the PostgreSQL client tools (Debian's
/// `postgresql-client`, in the Docker image); the password goes to them through `PGPASSWORD`,
/// never on a command line another user can read in `ps`.
enum PostgresBackup {
    static let dumpFile = "database.dump"
    static let manifestFile = "backup.json"
    static let secretFile = "jwt-secret"
    static let uploadsFolder = "uploads"

    struct Manifest: Codable {
        var format = "whatweeat-postgresql-backup"  // what restore looks for
        var version: String
        var build: String
        var createdAt: Date
        var uploadedFiles: Int
    }

    /// Writes the folder `directory` (which must not exist); the dump's size and the files carried.
    static func backup(url: String, to directory: String, uploads: String?, secret: String?, now: Date) async throws -> (bytes: Int, files: Int) {
        guard !FileManager.default.fileExists(atPath: directory) else {
            throw DatabaseFileCommands.Failure(description: "\(directory) exists; a backup never overwrites a file")
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            let connection = try LibpqConnection(url: url)
            let dump = (directory as NSString).appendingPathComponent(dumpFile)
            // zlib's fastest level: the photos (most of the bytes) are compressed already, but a dump
            // writes them as hex text, which level 1 halves as well as the default level 6 does, three
            // times faster (10,000 photos: 12.6 s against 38 s; docs/PERFORMANCE.md).
            try await ExternalTool.run("pg_dump", ["--format=custom", "--compress=1", "--no-owner", "--no-privileges", "--file=\(dump)",
                                                   "--dbname=\(connection.address)"], environment: connection.environment)
            chmod(dump, 0o600)
            var carried = 0
            if let uploads, FileManager.default.fileExists(atPath: uploads) {
                let target = (directory as NSString).appendingPathComponent(uploadsFolder)
                try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                for name in try FileManager.default.contentsOfDirectory(atPath: uploads) where !name.hasPrefix(".") {
                    try FileManager.default.copyItem(atPath: (uploads as NSString).appendingPathComponent(name),
                                                     toPath: (target as NSString).appendingPathComponent(name))
                    carried += 1
                }
            }
            if let secret { try writePrivately(secret + "\n", to: (directory as NSString).appendingPathComponent(secretFile)) }
            let manifest = Manifest(version: AppVersion.current, build: AppVersion.build, createdAt: now, uploadedFiles: carried)
            try writePrivately(String(decoding: try AppJSON.encoder().encode(manifest), as: UTF8.self),
                               to: (directory as NSString).appendingPathComponent(manifestFile))
            let size = (try FileManager.default.attributesOfItem(atPath: dump)[.size] as? Int) ?? 0
            return (size, carried)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)  // no half a backup left looking whole
            throw error
        }
    }

    /// Whether `path` is a folder this command wrote (checked before anything is restored).
    static func isBackup(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
            && FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(manifestFile))
    }

    /// Restores the folder into the empty database at `url`; the uploaded files written back to
    /// `uploads` (when kept on disk) and the secret the folder carries.
    static func restore(url: String, from directory: String, uploads: String?) async throws -> (files: Int, secret: String?) {
        let manifestPath = (directory as NSString).appendingPathComponent(manifestFile)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let data = FileManager.default.contents(atPath: manifestPath),
              let manifest = try? decoder.decode(Manifest.self, from: data), manifest.format == "whatweeat-postgresql-backup" else {
            throw DatabaseFileCommands.Failure(description: "\(directory) is not a WhatWeEat PostgreSQL backup (no \(manifestFile))")
        }
        let dump = (directory as NSString).appendingPathComponent(dumpFile)
        guard FileManager.default.fileExists(atPath: dump) else { throw DatabaseFileCommands.Failure(description: "\(dump) is missing") }
        let tables = try await tableCount(url)
        guard tables == 0 else {
            throw DatabaseFileCommands.Failure(description: "the database in DATABASE_URL holds \(tables) table(s): restore into an empty one "
                                               + "(CREATE DATABASE …; set DATABASE_URL to it), then point the servers at it")
        }
        let connection = try LibpqConnection(url: url)
        // The dump's table of contents without the extensions' comments: only an extension's owner
        // (a superuser) may set those, and the site's own role restores the rest.
        let list = NSTemporaryDirectory() + "whatweeat-restore-\(UUID().uuidString).list"
        defer { try? FileManager.default.removeItem(atPath: list) }
        try await ExternalTool.run("pg_restore", ["--list", "--file=\(list)", dump], environment: connection.environment)
        let entries = try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        try entries.filter { !$0.contains("COMMENT - EXTENSION") }.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        // One transaction: a restore that stops half-way leaves the database empty, not half-filled.
        try await ExternalTool.run("pg_restore", ["--no-owner", "--no-privileges", "--exit-on-error", "--single-transaction",
                                                  "--use-list=\(list)", "--dbname=\(connection.address)", dump], environment: connection.environment)
        var carried = 0
        let folder = (directory as NSString).appendingPathComponent(uploadsFolder)
        if let uploads, FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(atPath: uploads, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
                let target = (uploads as NSString).appendingPathComponent(name)
                guard !FileManager.default.fileExists(atPath: target) else { continue }  // a file's name is its content's hash
                try FileManager.default.copyItem(atPath: (folder as NSString).appendingPathComponent(name), toPath: target)
                carried += 1
            }
        }
        let secret = (try? String(contentsOfFile: (directory as NSString).appendingPathComponent(secretFile), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return (carried, secret?.isEmpty == false ? secret : nil)
    }

    /// How many tables the database's schema holds (a restore needs none).
    private static func tableCount(_ url: String) async throws -> Int {
        var configuration = try SQLPostgresConfiguration(url: url)
        configuration.searchPath = nil
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration.coreConfiguration, id: 1, logger: Logger(label: "whatweeat.restore"))
        } catch {
            throw DatabaseFileCommands.Failure(description: "cannot reach the database in DATABASE_URL: \(String(describing: error).prefix(200))")
        }
        defer { Task { try? await connection.close() } }
        let rows = try await connection.query("SELECT COUNT(*)::int AS n FROM information_schema.tables WHERE table_schema = current_schema()",
                                              logger: Logger(label: "whatweeat.restore"))
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    private static func writePrivately(_ text: String, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw DatabaseFileCommands.Failure(description: "could not write \(path)")
        }
    }
}

/// A `DATABASE_URL` as libpq's tools take it: the address without its password (`--dbname`, which
/// `ps` shows) and the password in `PGPASSWORD`. The driver's TLS mode names become libpq's
/// `sslmode` (a `PGSSLMODE` the operator set wins, as do their other `PG*` variables).
struct LibpqConnection {
    let address: String
    let environment: [String: String]

    init(url: String) throws {
        guard var components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            throw DatabaseFileCommands.Failure(description: "DATABASE_URL is not a postgres:// URL")
        }
        var environment = ProcessInfo.processInfo.environment
        if let password = components.password { environment["PGPASSWORD"] = password }
        components.password = nil
        components.scheme = "postgresql"
        let mode = components.queryItems?.last { ["tlsmode", "sslmode", "ssl", "tls"].contains($0.name.lowercased()) }?.value
        switch mode {
        case "disable", "false": components.queryItems = [URLQueryItem(name: "sslmode", value: "disable")]
        case "require", "true", "verify-ca", "verify-full": components.queryItems = [URLQueryItem(name: "sslmode", value: "require")]
        default: components.queryItems = nil  // libpq's default, prefer
        }
        guard let address = components.string else { throw DatabaseFileCommands.Failure(description: "DATABASE_URL is not a postgres:// URL") }
        self.address = address
        self.environment = environment
    }
}

/// Runs one of PostgreSQL's client tools to its end on a thread of its own (a dump of a large
/// site takes minutes: it must not hold one of the few threads requests run on). Its error
/// output becomes the failure's text.
enum ExternalTool {
    static func run(_ name: String, _ arguments: [String], environment: [String: String]) async throws {
        guard let executable = locate(name) else {
            throw DatabaseFileCommands.Failure(description: "\(name) not found: install PostgreSQL's client tools (Debian: apt-get install postgresql-client)")
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = arguments
                process.environment = environment
                let errors = Pipe()
                process.standardError = errors
                process.standardOutput = FileHandle.nullDevice
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: DatabaseFileCommands.Failure(description: "\(name) did not start: \(error)"))
                    return
                }
                let output = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                if process.terminationStatus == 0 {
                    continuation.resume()
                } else {
                    let said = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").prefix(5).joined(separator: "; ")
                    continuation.resume(throwing: DatabaseFileCommands.Failure(description: "\(name) failed (exit \(process.terminationStatus)): \(said.prefix(600))"))
                }
            }
        }
    }

    /// `PATH` first, then the newest of Debian's versioned folders.
    static func locate(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let candidate = "/usr/lib/postgresql/\(version)/bin/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
