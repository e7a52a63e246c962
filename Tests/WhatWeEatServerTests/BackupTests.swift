import AsyncHTTPClient
import Banchan
import BanchanApp
import BurgerMap
import LookForRealBurgerApp
import Mates
import MenuGame
import MenuGameApp
import NIOConcurrencyHelpers
import Platform
import SesacStudyApp
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// `whatweeat backup FILE` while the server takes writes, `restore` refused while it runs, and a
/// restore into a new data directory that then serves the same accounts and orders. On the
/// PostgreSQL pass the same drill runs through pg_dump and pg_restore into an empty database.
final class BackupTests: XCTestCase {
    struct OrderItem: Encodable { let hash: String; let quantity: Int }
    struct OrderBody: Encodable { let items: [OrderItem] }

    func testBackupDuringWritesRestoresIntoANewDataDirectory() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        let restoredDirectory = try TestDatabase.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: restoredDirectory)
        }
        // On PostgreSQL the backup is a folder (pg_dump's format, the secret, backup.json) and the
        // restore goes into an empty database, named here for the restored server.
        let onPostgres = TestDatabase.postgresURL != nil
        let backupFile = directory + (onPostgres ? "/backups/whatweeat-backup" : "/backups/whatweeat-backup.sqlite")
        var restoredEnvironment: [String: String] = [:]
        if onPostgres, case .postgres(let url) = try await DatabaseTemplate.shared.emptyDatabase(in: restoredDirectory).database {
            restoredEnvironment["DATABASE_URL"] = url
        }

        let server = try ServerProcess(dataDirectory: directory, extraEnvironment: ["AUTH_ATTEMPTS_PER_MINUTE": "1000000"])
        try await server.waitUntilHealthy()
        let device = "backup-test-device-\(UUID().uuidString.prefix(8))"
        let run = UUID().uuidString.prefix(6).lowercased()

        // Accounts and orders written before the backup starts must all be in it.
        var before: [String] = []
        var ordersBefore: [String] = []
        for index in 0..<5 {
            let email = "b\(run)\(index)@example.com"
            let created = try await server.post("/api/v1/auth/signup", json: ["email": email, "password": "password1", "nickname": "b\(run)\(index)"])
            XCTAssertEqual(created.status, .created)
            before.append(email)
            let order = try await server.send(.POST, "/api/v1/banchan/orders", json: OrderBody(items: [OrderItem(hash: "HU6Z5", quantity: 1)]),
                                              headers: ["X-Device-Token": device])
            XCTAssertEqual(order.status, .created)
            ordersBefore.append(try XCTUnwrap(order.json["id"] as? String))
        }

        // A profile picture: its file travels with the backup.
        let pictured = try await server.post("/api/v1/auth/signup", json: ["email": "p\(run)@example.com", "password": "password1", "nickname": "p\(run)"])
        let token = try XCTUnwrap(pictured.json["accessToken"] as? String)
        let picture = try await server.send(.PUT, "/api/v1/me/profile-image", body: TestImages.png(seed: 5), contentType: "image/png", token: token)
        XCTAssertEqual(picture.status, .ok, picture.text)
        let pictureURL = try XCTUnwrap(picture.json["profileImageURL"] as? String)
        let pictureBytes = try await server.get(pictureURL)
        XCTAssertEqual(pictureBytes.status, .ok)

        // Writers keep going while the backup runs.
        let writing = Task {
            var index = 100
            while !Task.isCancelled {
                index += 1
                _ = try? await server.post("/api/v1/auth/signup", json: ["email": "w\(run)\(index)@example.com", "password": "password1",
                                                                          "nickname": "w\(run)\(index)"])
            }
        }
        if onPostgres {
            // What an earlier version left on disk was carried into the database: not backed up twice.
            try FileManager.default.createDirectory(atPath: directory + "/uploads", withIntermediateDirectories: true)
            try Data("old".utf8).write(to: URL(fileURLWithPath: directory + "/uploads/left-over.jpg"))
        }
        let backup = try ServerProcess.run(["backup", backupFile], dataDirectory: directory)
        writing.cancel()
        _ = await writing.value
        XCTAssertEqual(backup.status, 0, backup.output)
        // Files kept on disk (SQLite's default) travel inside it; PostgreSQL keeps them in the database, so in the dump.
        XCTAssertEqual(backup.output.contains("uploaded files"), !onPostgres, backup.output)
        XCTAssertEqual(backup.output.contains("1 uploaded files"), !onPostgres, backup.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: backupFile))

        // A second backup to the same file is refused; it never overwrites.
        let again = try ServerProcess.run(["backup", backupFile], dataDirectory: directory)
        XCTAssertNotEqual(again.status, 0)
        XCTAssertTrue(again.output.contains("never overwrites"), again.output)

        // Restoring under a running server (on PostgreSQL: into a database that is not empty) is
        // refused and changes nothing.
        let refused = try ServerProcess.run(["restore", backupFile], dataDirectory: directory)
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.output.contains(onPostgres ? "restore into an empty one" : "in use"), refused.output)
        let stillThere = try await server.get("/api/v1/auth/email-available?email=w\(run)101@example.com")
        XCTAssertEqual(stillThere.json["available"] as? Bool, false, "the running database was left alone")
        server.stop(signal: SIGTERM)

        // Something that is not a backup is refused too.
        let notADatabase = directory + "/notes.txt"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notADatabase))
        let garbage = try ServerProcess.run(["restore", notADatabase], dataDirectory: restoredDirectory, extraEnvironment: restoredEnvironment)
        XCTAssertNotEqual(garbage.status, 0, garbage.output)

        // Into a new data directory: it serves the same accounts (passwords work) and orders.
        let restore = try ServerProcess.run(["restore", backupFile], dataDirectory: restoredDirectory, extraEnvironment: restoredEnvironment)
        XCTAssertEqual(restore.status, 0, restore.output)
        let restored = try ServerProcess(dataDirectory: restoredDirectory, extraEnvironment: restoredEnvironment)
        defer { restored.stop(signal: SIGINT) }
        try await restored.waitUntilHealthy()
        for email in before {
            let login = try await restored.post("/api/v1/auth/login", json: ["email": email, "password": "password1"])
            XCTAssertEqual(login.status, .ok, "\(email) signs in on the restored database")
        }
        // The server's secret came with it: a session from before the backup goes on, and the
        // backup and the secret are the owner's alone.
        let stillSignedIn = try await restored.get("/api/v1/me", token: token)
        XCTAssertEqual(stillSignedIn.status, .ok, "a token signed before the backup still works: \(restore.output)")
        let secret = try String(contentsOfFile: directory + "/jwt-secret", encoding: .utf8)
        XCTAssertEqual(try String(contentsOfFile: restoredDirectory + "/jwt-secret", encoding: .utf8), secret)
        let backupFiles = onPostgres ? ["", "/database.dump", "/jwt-secret", "/backup.json"].map { backupFile + $0 } : [backupFile]
        for file in backupFiles + [restoredDirectory + "/jwt-secret"] {
            let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber).intValue
            XCTAssertEqual(mode & 0o077, 0, "\(file) is readable by its owner alone")
        }
        let restoredPicture = try await restored.get(pictureURL)
        XCTAssertEqual(restoredPicture.status, .ok, "the profile picture came back with the database")
        XCTAssertEqual(restoredPicture.text, pictureBytes.text)
        XCTAssertEqual(restore.output.contains("1 uploaded files"), !onPostgres, restore.output)
        for order in ordersBefore {
            let found = try await restored.send(.GET, "/api/v1/banchan/orders/\(order)", json: String?.none, headers: ["X-Device-Token": device])
            XCTAssertEqual(found.status, .ok, "order \(order) is in the restored database")
        }
    }
}
