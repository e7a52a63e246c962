import FluentSQLiteDriver
import Foundation
import Platform
@testable import WhatWeEatServer
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// `BACKUP_DIR` + `BACKUP_EVERY` + `BACKUP_KEEP` (issue 58, item 6): the running server writes
/// whole backups into the folder and keeps the newest few; a backup cut short never counts, and
/// other files in the folder are left alone. The clock is moved, not waited for.
final class ScheduledBackupsTests: XCTestCase {
    func testEachRunWritesAWholeBackupAndOnlyTheNewestStay() async throws {
        let folder = try TestDatabase.temporaryDirectory() + "/backups"
        defer { try? FileManager.default.removeItem(atPath: (folder as NSString).deletingLastPathComponent) }
        try await withTestApp(adjust: { settings in
            settings[section: BackupSettings.self].directory = folder
            settings[section: BackupSettings.self].keep = 2
        }) { app in
            let member = try await app.mate("백업미나")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            // What a stopped backup leaves, and an operator's own file.
            try Data("half".utf8).write(to: URL(fileURLWithPath: folder + "/whatweeat-20200101T000000.sqlite.partial"))
            try Data("mine".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))

            let start = Date(timeIntervalSince1970: 1_796_000_000)
            var written: [String] = []
            for day in 0..<3 {
                written.append(try await ScheduledBackups.run(app, now: start.addingTimeInterval(Double(day) * 86_400)))
            }
            XCTAssertEqual(Set(try ScheduledBackups.existing(in: folder)), Set(written.suffix(2).map { ($0 as NSString).lastPathComponent }),
                           "the two newest stay")
            XCTAssertFalse(FileManager.default.fileExists(atPath: written[0]), "the oldest went")
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/whatweeat-20200101T000000.sqlite.partial"), "the cut-short one went")
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/notes.txt"), "other files stay")
            for backup in written.suffix(2) {
                let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? NSNumber).intValue
                XCTAssertEqual(mode & 0o077, 0, "\(backup) is the server's alone")
            }

            // Each is a whole backup of this site, the member included.
            let newest = try XCTUnwrap(written.last)
            switch app.settings.database {
            case .sqlite:
                try await DatabaseFileCommands.check(newest)
                let copy = try await SQLiteConnection.open(storage: .file(path: newest))
                let rows = try await copy.query("SELECT COUNT(*) AS n FROM users WHERE nickname = ?", [.text(member.nickname)])
                try await copy.close()
                XCTAssertEqual(rows.first?.column("n")?.integer, 1)
                XCTAssertTrue(newest.hasSuffix(".sqlite"))
            case .postgres:
                XCTAssertTrue(PostgresBackup.isBackup(newest), newest)
                let secret = try String(contentsOfFile: newest + "/jwt-secret", encoding: .utf8)
                XCTAssertEqual(secret.trimmingCharacters(in: .whitespacesAndNewlines), app.settings.jwtSecret)
                let dump = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: newest + "/database.dump")[.size] as? Int)
                XCTAssertGreaterThan(dump, 10_000)
            }
        }
    }

    func testTheScheduleIsReadAndCheckedFromTheEnvironment() throws {
        let load = { (values: [String: String]) in try BackupSettings.load(from: EnvironmentVariables(values: values, appEnvironment: .development)) }
        XCTAssertNil(try load([:]).directory, "no schedule unless asked")
        let scheduled = try load(["BACKUP_DIR": "/srv/backups", "BACKUP_EVERY": "6h", "BACKUP_KEEP": "14"])
        XCTAssertEqual(scheduled.directory, "/srv/backups")
        XCTAssertEqual(scheduled.every, 6 * 3600)
        XCTAssertEqual(scheduled.keep, 14)
        XCTAssertEqual(try load(["BACKUP_DIR": "/srv/backups"]).every, 86_400, "once a day by default")
        XCTAssertEqual(try load(["BACKUP_DIR": "/b", "BACKUP_EVERY": "90"]).every, 90)
        for (values, variable) in [(["BACKUP_EVERY": "6h"], "BACKUP_DIR"), (["BACKUP_DIR": "backups"], "BACKUP_DIR"),
                                   (["BACKUP_DIR": "/b", "BACKUP_EVERY": "10s"], "BACKUP_EVERY"), (["BACKUP_DIR": "/b", "BACKUP_EVERY": "daily"], "BACKUP_EVERY"),
                                   (["BACKUP_DIR": "/b", "BACKUP_EVERY": "-1h"], "BACKUP_EVERY"), (["BACKUP_DIR": "/b", "BACKUP_KEEP": "0"], "BACKUP_KEEP")] {
            XCTAssertThrowsError(try load(values), "\(values)") { error in
                XCTAssertEqual((error as? SettingsError)?.variable, variable, "\(values)")
            }
        }
    }
}
