import FluentSQLiteDriver
import Foundation
import WhatWeEatServer
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTest

/// A database from before files travelled in backups has no `stored_files`: a backup that would
/// leave the uploads behind is refused, says what to do, and leaves no half-made file.
final class BackupOfAnOlderDatabaseTests: XCTestCase {
    func testABackupThatCannotCarryItsFilesIsRefusedAndRemoved() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/whatweeat.sqlite"
        let connection = try await SQLiteConnection.open(storage: .file(path: database))
        _ = try await connection.query("CREATE TABLE _fluent_migrations (id TEXT PRIMARY KEY)", [])
        try await connection.close()
        let uploads = directory + "/uploads"
        try FileManager.default.createDirectory(atPath: uploads, withIntermediateDirectories: true)
        let backup = directory + "/backup.sqlite"

        do {
            _ = try await DatabaseFileCommands.backup(database: database, to: backup, uploads: uploads)
            XCTFail("a backup without its files was made")
        } catch let failure as DatabaseFileCommands.Failure {
            XCTAssertTrue(failure.description.contains("start the server once"), failure.description)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: backup), "no backup that lacks its files")

        // Without files on disk to carry (they are in the database or a bucket), the copy is made.
        let made = try await DatabaseFileCommands.backup(database: database, to: backup, uploads: nil)
        XCTAssertGreaterThan(made.bytes, 0)
        XCTAssertEqual(made.files, 0)
    }
}
