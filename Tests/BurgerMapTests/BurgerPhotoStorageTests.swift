import AsyncHTTPClient
@testable import BurgerMap
import BurgerMapTesting
import Fluent
import Media
import NIOFoundationEssentialsCompat
import Platform
import Site
import WhatWeEatTesting
import XCTVapor

/// The map's photos wherever uploads are kept (Media's storages, tested in MediaTests): in the
/// database, served by every instance; in an S3-compatible bucket (a local S3 that checks
/// signatures), and a 503 that keeps nothing when the bucket cannot be reached.
final class BurgerPhotoStorageTests: XCTestCase {
    var s3: LocalS3!

    override func setUp() async throws {
        s3 = try LocalS3.start()
    }

    override func tearDown() async throws {
        s3?.stop()
    }

    /// Two instances on one database, each with its own data folder (as README's cluster runs
    /// them): a photo taken by one is served by the other, with the same immutable caching.
    func testAPhotoUploadedThroughOneInstanceIsServedByAnother() async throws {
        try await withTestApp(adjust: { $0[section: MediaSettings.self].storage = .database }) { first in
            let member = try await first.member("사진공유")
            let uploaded = try await first.uploadPhoto([UploadPart(data: TestImages.png(seed: 7))], token: member.token)
            XCTAssertEqual(uploaded.status, .created, uploaded.text)
            let url = try uploaded.json(BurgerMapJSON.Photo.self).url
            XCTAssertTrue(url.hasPrefix("/uploads/"), url)

            var settings = first.settings
            settings.dataDirectory = try TestDatabase.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: settings.dataDirectory) }
            let second = try await Application.make(.testing)
            do {
                try await configureSite(second, settings: settings, features: BurgerMapSite.features)
                let served = try await second.send(.GET, url)
                XCTAssertEqual(served.status, .ok)
                XCTAssertEqual(served.headers.contentType, .png)
                XCTAssertEqual(served.headers.first(name: .cacheControl), "public, max-age=31536000, immutable")
                let original = try await first.send(.GET, url)
                XCTAssertEqual(Data(buffer: served.body), Data(buffer: original.body), "the same bytes from both")
                XCTAssertFalse(FileManager.default.fileExists(atPath: settings.dataDirectory + "/uploads"), "nothing on the second's disk")

                // A browser that has the file is told so, without the bytes.
                let etag = try XCTUnwrap(served.headers.first(name: .eTag))
                let again = try await second.send(.GET, url, headers: ["If-None-Match": etag])
                XCTAssertEqual(again.status, .notModified)
                XCTAssertEqual(again.body.readableBytes, 0)
                let missing = try await second.send(.GET, "/uploads/" + String(repeating: "a", count: 64) + ".png", headers: ["If-None-Match": etag])
                XCTAssertEqual(missing.status, .notFound, "an ETag does not make a missing file exist")
            } catch {
                try? await second.asyncShutdown()
                throw error
            }
            try await second.asyncShutdown()
        }
    }

    func testPhotosAreKeptInTheBucketAndServedFromIt() async throws {
        let configuration = s3.configuration(bucket: "whatweeat-photos")
        try await S3Client(configuration, client: .shared).createBucket()
        try await withTestApp(adjust: { $0[section: MediaSettings.self].storage = .s3(configuration) }) { app in
            XCTAssertTrue(app.files.place.hasPrefix("S3 bucket"), app.files.place)
            let member = try await app.member("버킷사진")
            let png = TestImages.png(seed: 11)
            let uploaded = try await app.uploadPhoto([UploadPart(data: png)], token: member.token)
            XCTAssertEqual(uploaded.status, .created, uploaded.text)
            let url = try uploaded.json(BurgerMapJSON.Photo.self).url
            let key = String(url.dropFirst("/uploads/".count))
            let stored = try await S3Client(configuration, client: .shared).size("uploads/" + key)
            XCTAssertNotNil(stored, "the file is in the bucket")
            XCTAssertFalse(FileManager.default.fileExists(atPath: app.settings.dataDirectory + "/uploads/" + key), "not on this disk")

            let served = try await app.send(.GET, url)
            XCTAssertEqual(served.status, .ok)
            XCTAssertEqual(served.headers.contentType, .png)
            XCTAssertEqual(served.body.readableBytes, stored)
            XCTAssertEqual(served.headers.first(name: .cacheControl), "public, max-age=31536000, immutable")
            let counted = await app.files.byteCount(of: key)
            XCTAssertEqual(counted, stored)
            let ready = try await app.send(.GET, "/readyz")
            XCTAssertEqual(ready.status, .ok)
            XCTAssertEqual((try ready.object()["details"] as? [String: Any])?["files"] as? String, "ok", "the bucket answers")
        }
    }

    /// A bucket that cannot be reached refuses the upload with 503 in the reader's language,
    /// keeps no photo and gives the quota back.
    func testAnUnreachableBucketIs503AndKeepsNothing() async throws {
        var configuration = s3.configuration(bucket: "whatweeat-gone")
        configuration.endpoint = "http://127.0.0.1:\(try freePort())"
        try await withTestApp(adjust: { $0[section: MediaSettings.self].storage = .s3(configuration) }) { app in
            let member = try await app.member("끊긴버킷")
            let (body, contentType) = UploadPart.multipart([UploadPart(data: TestImages.png(seed: 12))])
            let refused = try await app.testable().performTest(request: TestingHTTPRequest(
                method: .POST, url: URI(path: "/api/v1/burger-map/photos"),
                headers: ["Authorization": "Bearer \(member.token)", "Content-Type": contentType, "Accept-Language": "ko"],
                body: ByteBuffer(data: body)))
            XCTAssertEqual(refused.status, .serviceUnavailable, refused.text)
            XCTAssertEqual(refused.errorCode, "file_storage_unavailable")
            XCTAssertEqual(refused.headers.first(name: "Retry-After"), "30")
            XCTAssertTrue(refused.errorMessage?.contains("사진 저장소") == true, refused.errorMessage ?? "")
            let photos = try await BurgerPhoto.query(on: app.db).filter(\.$owner.$id == member.id).count()
            XCTAssertEqual(photos, 0)
            let used = try await app.storageQuota.used(by: member.id, on: app.db)
            XCTAssertEqual(used, 0, "the quota was given back")
            let read = try await app.send(.GET, "/uploads/" + String(repeating: "c", count: 64) + ".png")
            XCTAssertEqual(read.status, .serviceUnavailable)
            let ready = try await app.send(.GET, "/readyz")
            XCTAssertEqual(ready.status, .serviceUnavailable, "not ready without the bucket its photos are in")
            XCTAssertEqual((try ready.object()["details"] as? [String: Any])?["files"] as? String, "unavailable")
        }
    }
}
