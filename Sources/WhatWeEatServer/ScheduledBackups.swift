import Fluent
package import Foundation
import Media
import Metrics
package import Platform
package import Vapor

/// `BACKUP_DIR`, `BACKUP_EVERY` and `BACKUP_KEEP`: the server backs itself up while it runs.
package struct BackupSettings: SettingsSection, Equatable {
    /// Where scheduled backups go; nil: no schedule (`whatweeat backup` by hand or from cron).
    package var directory: String?
    package var every: TimeInterval = 24 * 3600
    /// How many scheduled backups stay; older ones are removed after each new one.
    package var keep = 7

    package init() {}

    package static func load(from environment: EnvironmentVariables) throws -> BackupSettings {
        var backups = BackupSettings()
        backups.keep = try environment.integer("BACKUP_KEEP", default: 7, in: 1...10_000)
        if let every = environment.value("BACKUP_EVERY") {
            guard let seconds = parseInterval(every), (60...(366 * 86_400)).contains(seconds) else {
                throw SettingsError(variable: "BACKUP_EVERY", value: every, expected: "an interval from 1m to 366d, like 30m, 6h or 1d")
            }
            backups.every = seconds
        }
        if let directory = environment.value("BACKUP_DIR") {
            guard directory.hasPrefix("/") else {
                throw SettingsError(variable: "BACKUP_DIR", value: directory, expected: "an absolute path (a folder the server can write)")
            }
            backups.directory = directory
        } else if environment.value("BACKUP_EVERY") != nil || environment.value("BACKUP_KEEP") != nil {
            throw SettingsError(variable: "BACKUP_DIR", value: "(unset)", expected: "the folder for scheduled backups, since BACKUP_EVERY or BACKUP_KEEP is set")
        }
        return backups
    }

    /// `90`, `90s`, `30m`, `6h`, `1d`: seconds.
    static func parseInterval(_ text: String) -> TimeInterval? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        if let unit = text.last, let scale = units[unit], let number = Double(text.dropLast()), number > 0 { return number * scale }
        return Double(text).flatMap { $0 > 0 ? $0 : nil }
    }
}

/// Backups on a schedule, made by one instance at a time: each checks once a minute whether one
/// is due (a claim in `maintenance_runs`, which only one instance wins), writes it under a
/// `.partial` name and renames it when whole (a backup cut short by a stop never counts as one),
/// then removes the oldest beyond `BACKUP_KEEP`. `whatweeat_backups_total{result}` and
/// `whatweeat_backup_last_success_timestamp_seconds` let an operator alert on a backup that stopped.
package enum ScheduledBackups {
    static let prefix = "whatweeat-"

    package static func job(_ backups: BackupSettings) -> PeriodicJob {
        let check = min(60, backups.every / 4)
        AppMetrics.countersStartAtZero(["whatweeat_backups_total"], label: "result", values: ["ok", "failed"])
        return PeriodicJob("scheduled backup", every: .seconds(check)) { app in
            let now = app.siteClock()
            guard try await MaintenanceRuns(database: app.db).claim("scheduled_backup", every: backups.every - check, now: now) else { return 0 }
            _ = try await run(app, now: now)
            return 1
        }
    }

    /// Writes one backup into `BACKUP_DIR` now and applies the retention; the new backup's path.
    @discardableResult
    package static func run(_ app: Application, now: Date) async throws -> String {
        let backups = app.settings[section: BackupSettings.self]
        guard let directory = backups.directory else { throw DatabaseFileCommands.Failure(description: "BACKUP_DIR is not set") }
        let started = ContinuousClock.now
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try removeLeftovers(in: directory)
            let settings = app.settings
            let uploads = DatabaseFileCommands.uploadsOnDisk(settings)
            let name: String, bytes: Int, files: Int
            switch settings.database {
            case .sqlite(let database):
                name = prefix + stamp(now) + ".sqlite"
                (bytes, files) = try await DatabaseFileCommands.backup(database: database, to: partial(directory, name), uploads: uploads, secret: settings.jwtSecret)
            case .postgres(let url):
                name = prefix + stamp(now)
                (bytes, files) = try await PostgresBackup.backup(url: url, to: partial(directory, name), uploads: uploads, secret: settings.jwtSecret, now: now)
            }
            let path = (directory as NSString).appendingPathComponent(name)
            try FileManager.default.moveItem(atPath: partial(directory, name), toPath: path)
            let removed = try applyRetention(in: directory, keep: backups.keep)
            let seconds = (ContinuousClock.now - started) / .seconds(1)
            Counter(label: "whatweeat_backups_total", dimensions: [("result", "ok")]).increment()
            Gauge(label: "whatweeat_backup_last_success_timestamp_seconds").record(now.timeIntervalSince1970)
            Gauge(label: "whatweeat_backup_last_duration_seconds").record(seconds)
            app.logger.info("scheduled backup: \(path) (\(bytes) bytes, \(files) uploaded files) in \(String(format: "%.1f", seconds)) s; removed \(removed) older")
            return path
        } catch {
            Counter(label: "whatweeat_backups_total", dimensions: [("result", "failed")]).increment()
            app.logger.error("scheduled backup failed: \(error)")
            throw error
        }
    }

    /// The scheduled backups in `directory`, oldest first (their names sort by time).
    package static func existing(in directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { name in
            name.hasPrefix(prefix) && !name.hasSuffix(".partial")
                && name.dropFirst(prefix.count).prefix(15).allSatisfy { $0.isNumber || $0 == "T" }
        }.sorted()
    }

    /// Removes the oldest scheduled backups beyond `keep`; how many went. Other files stay.
    static func applyRetention(in directory: String, keep: Int) throws -> Int {
        let all = try existing(in: directory)
        let old = all.dropLast(keep)
        for name in old { try FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(name)) }
        return old.count
    }

    /// What a backup that was cut short (the process stopped mid-way) left behind.
    private static func removeLeftovers(in directory: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasPrefix(prefix) && name.hasSuffix(".partial") {
            try? FileManager.default.removeItem(atPath: (directory as NSString).appendingPathComponent(name))
        }
    }

    private static func partial(_ directory: String, _ name: String) -> String {
        (directory as NSString).appendingPathComponent(name + ".partial")
    }

    /// `20261206T103000`, in UTC: names that sort by time.
    static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss"
        return formatter.string(from: date)
    }
}
