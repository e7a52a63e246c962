import Fluent
import Media
import NIOFoundationEssentialsCompat
import Platform
import Site
import SQLKit
@testable import WhatWeEatServer
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// Issue 58, item 4: a SQLite site moves into an empty PostgreSQL database whole: after
/// `migrate-to-postgres` a person signs in with the same password, finds the same chat, order and
/// photo. Runs in the PostgreSQL pass of `.ci/run` (it needs a PostgreSQL server to move to).
final class MoveToPostgresTests: XCTestCase {
    func testASQLiteSiteMovesIntoAnEmptyPostgreSQLDatabaseWhole() async throws {
        try await moveASite(photosInto: nil)
    }

    /// The photos on disk go to the target's bucket when the moved site keeps its files in S3.
    func testThePhotosGoToTheBucketWhenTheSiteUsesOne() async throws {
        guard TestDatabase.postgresURL != nil else { throw XCTSkip("needs TEST_DATABASE_URL (the PostgreSQL pass of .ci/run)") }
        let s3 = try LocalS3.start()
        defer { s3.stop() }
        let bucket = s3.configuration(bucket: "whatweeat-moved")
        try await S3Client(bucket, client: .shared).createBucket()
        try await moveASite(photosInto: bucket)
    }

    private func moveASite(photosInto bucket: S3Client.Configuration?) async throws {
        guard TestDatabase.postgresURL != nil else { throw XCTSkip("needs TEST_DATABASE_URL (the PostgreSQL pass of .ci/run)") }
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var sqliteSettings = TestDatabase.settings(dataDirectory: directory)
        sqliteSettings.database = .sqlite(path: directory + "/whatweeat.sqlite")
        var target = try await DatabaseTemplate.shared.emptyDatabase(in: directory)
        if let bucket { target[section: MediaSettings.self].storage = .s3(bucket) }

        // A site on SQLite: two people who matched and chatted, an order, a profile picture.
        let source = try await Application.make(.testing)
        let mina: Member, match: UUID, pictureURL: String, picture: String, orderID: String, device = "move-to-postgres-device-1"
        do {
            try await configure(source, settings: sqliteSettings)
            try await prepareDatabase(source)
            mina = try await source.mate("미나")
            let joon = try await source.mate("준호", gender: "male")
            match = try await source.matchPair(mina, joon)
            for (who, text) in [(mina, "안녕하세요 🌱"), (joon, "내일 점심 어때요?")] {
                let sent = try await source.send(.POST, "\(Application.mates)/chat/\(match)/messages", json: ["text": text], token: who.token)
                XCTAssertEqual(sent.status, .created, sent.text)
            }
            let ordered = try await source.send(.POST, "/api/v1/banchan/orders", raw: #"{"items": [{"hash": "HU6Z5", "quantity": 2}]}"#,
                                                headers: ["X-Device-Token": device, "Content-Type": "application/json"])
            XCTAssertEqual(ordered.status, .created, ordered.text)
            orderID = try XCTUnwrap(try ordered.object()["id"] as? String)
            let uploaded = try await source.testable().performTest(request: TestingHTTPRequest(
                method: .PUT, url: URI(path: "/api/v1/me/profile-image"),
                headers: ["Authorization": "Bearer \(mina.token)", "Content-Type": "image/png"], body: ByteBuffer(data: TestImages.png(seed: 9))))
            XCTAssertEqual(uploaded.status, .ok, uploaded.text)
            pictureURL = try XCTUnwrap(try uploaded.object()["profileImageURL"] as? String)
            picture = try await source.send(.GET, pictureURL).text

            // Moved, while the source is as a stopped server leaves it.
            let destination = try await Application.make(.testing)
            do {
                try await configure(destination, settings: target)
                let report = try await MoveToPostgresCommand.move(from: source.db.sql, to: destination, console: Terminal())
                XCTAssertGreaterThan(report.rows, 0)
                let photos = try await destination.carryOverDiskUploads(from: directory + "/uploads")
                XCTAssertEqual(photos, 1)
                // A second move into the now full database is refused.
                do {
                    _ = try await MoveToPostgresCommand.move(from: source.db.sql, to: destination, console: Terminal())
                    XCTFail("the target is no longer empty")
                } catch let failure as CommandFailure {
                    XCTAssertTrue(failure.description.contains("empty"), failure.description)
                }
            } catch {
                try? await destination.asyncShutdown()
                throw error
            }
            try await destination.asyncShutdown()
        } catch {
            try? await source.asyncShutdown()
            throw error
        }
        try await source.asyncShutdown()

        // The PostgreSQL site, started as a server would be: the same people, words, order and photo.
        let moved = try await Application.make(.testing)
        do {
            try await configure(moved, settings: target)
            try await prepareDatabase(moved)
            let login = try await moved.send(.POST, "/api/v1/auth/login", json: ["email": try XCTUnwrap(mina.email), "password": "password1"])
            XCTAssertEqual(login.status, .ok, login.text)
            let token = try XCTUnwrap(try login.object()["accessToken"] as? String)
            let stillSignedIn = try await moved.send(.GET, "/api/v1/me", token: mina.token)
            XCTAssertEqual(stillSignedIn.status, .ok, "the session moved too (the same secret)")
            let chat = try await moved.send(.GET, "\(Application.mates)/chat/\(match)/messages", token: token).json(MatesJSON.Chat.self)
            XCTAssertEqual(chat.items.filter { $0.kind == "text" }.map(\.text).sorted(), ["내일 점심 어때요?", "안녕하세요 🌱"].sorted())
            let order = try await moved.send(.GET, "/api/v1/banchan/orders/\(orderID)", headers: ["X-Device-Token": device])
            XCTAssertEqual(order.status, .ok, order.text)
            XCTAssertEqual((try order.object()["items"] as? [[String: Any]])?.first?["quantity"] as? Int, 2)
            let photo = try await moved.send(.GET, pictureURL)
            XCTAssertEqual(photo.status, .ok)
            XCTAssertEqual(photo.text, picture, "byte for byte")
            if let bucket {
                let key = try XCTUnwrap(pictureURL.split(separator: "/").last)
                let stored = try await S3Client(bucket, client: .shared).get("uploads/" + key)
                XCTAssertEqual(stored.map { String(decoding: $0, as: UTF8.self) }, picture, "the photo is in the bucket")
                let inDatabase = try await moved.db.sql.raw("SELECT COUNT(*) AS n FROM stored_files").first(decodingColumn: "n", as: Int.self)
                XCTAssertEqual(inDatabase, 0, "and not in the database")
            }
        } catch {
            try? await moved.asyncShutdown()
            throw error
        }
        try await moved.asyncShutdown()
    }
}
