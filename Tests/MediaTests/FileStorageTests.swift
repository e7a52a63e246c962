import Fluent
@testable import Media
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Where uploads are kept: on PostgreSQL in the database by default, so every instance serves
/// every photo; files an earlier version left on disk are carried over; a browser that has a
/// file gets 304. Runs on SQLite (database storage asked for) and on PostgreSQL (its default).
final class FileStorageTests: XCTestCase {
    func useDatabase(_ settings: inout Settings) {
        settings[section: MediaSettings.self].storage = .database
    }

    func testTheDefaultFollowsTheDatabase() async throws {
        try await withTestApp { app in
            if TestDatabase.postgresURL == nil {
                XCTAssertTrue(app.files is DiskFileStorage, app.files.place)
            } else {
                XCTAssertTrue(app.files is DatabaseFileStorage, "instances share PostgreSQL: files go where all of them read")
            }
        }
    }

    func testTheDatabaseKeepsEachFileOnceAndGivesItBack() async throws {
        try await withTestApp(adjust: useDatabase) { app in
            let files = app.files
            let png = TestImages.png(seed: 41)
            let key = try await files.save(png, as: .png)
            XCTAssertEqual(key, DatabaseFileStorage.key(for: png, as: .png))
            let again = try await files.save(png, as: .png)
            XCTAssertEqual(again, key, "the same bytes are the same file")
            let database = try XCTUnwrap(files as? DatabaseFileStorage)
            let keys = try await database.keys()
            XCTAssertEqual(keys, [key], "stored once")
            let size = try await files.size(of: key)
            XCTAssertEqual(size, png.count)
            guard case .bytes(let back)? = try await files.content(of: key) else { return XCTFail("no content") }
            XCTAssertEqual(back, png, "byte for byte")
            let counted = await files.byteCount(of: key)
            XCTAssertEqual(counted, png.count)

            let climbing = try await files.content(of: "../" + key)
            XCTAssertNil(climbing, "a malformed key reads nothing")
            let unknown = try await files.size(of: String(repeating: "0", count: 64) + ".png")
            XCTAssertNil(unknown, "an unknown key is not there")
            try await files.delete(key: key)
            let deleted = try await files.content(of: key)
            XCTAssertNil(deleted)
            let countedAfter = await files.byteCount(of: key)
            XCTAssertEqual(countedAfter, 0)
            try await files.delete(key: key)  // deleting twice is harmless
        }
    }

    /// A server that kept files on disk and now keeps them in the database copies them over on
    /// start (and leaves the folder alone); a file whose bytes are not its name is not carried.
    func testFilesLeftOnDiskAreCarriedIntoTheDatabase() async throws {
        try await withTestApp(adjust: useDatabase) { app in
            let folder = app.settings.dataDirectory + "/uploads"
            let disk = try DiskFileStorage(directory: folder)
            let kept = try await disk.save(TestImages.png(seed: 3), as: .png)
            let forged = String(repeating: "b", count: 64) + ".png"
            try TestImages.png(seed: 4).write(to: URL(fileURLWithPath: folder + "/" + forged))
            try Data("not a key".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))

            let carried = try await app.carryOverDiskUploads(from: folder)
            XCTAssertEqual(carried, 1)
            let carriedSize = try await app.files.size(of: kept)
            XCTAssertEqual(carriedSize, TestImages.png(seed: 3).count)
            let forgedSize = try await app.files.size(of: forged)
            XCTAssertNil(forgedSize)
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/" + kept), "the folder is left as it was")
            let forgedBytesKey = DatabaseFileStorage.key(for: TestImages.png(seed: 4), as: .png)
            let forgedStored = try await app.files.size(of: forgedBytesKey)
            XCTAssertNil(forgedStored, "nor under the name its bytes would have")
            let carriedAgain = try await app.carryOverDiskUploads(from: folder)
            XCTAssertEqual(carriedAgain, 0, "once")
            // A file the folder gains later (a server that went back to the disk for a while) is carried too.
            let later = try await disk.save(TestImages.png(seed: 5), as: .png)
            let carriedLater = try await app.carryOverDiskUploads(from: folder)
            XCTAssertEqual(carriedLater, 1)
            let laterSize = try await app.files.size(of: later)
            XCTAssertEqual(laterSize, TestImages.png(seed: 5).count)
            let served = try await app.send(.GET, "/uploads/" + kept)
            XCTAssertEqual(served.status, .ok)
        }
    }

    func testOnDiskTheFolderIsNotCarriedAnywhere() async throws {
        try await withTestApp(adjust: { $0[section: MediaSettings.self].storage = .disk }) { app in
            XCTAssertTrue(app.files is DiskFileStorage)
            let carriedFromDisk = try await app.carryOverDiskUploads(from: app.settings.dataDirectory + "/uploads")
            XCTAssertEqual(carriedFromDisk, 0)
        }
    }
}
