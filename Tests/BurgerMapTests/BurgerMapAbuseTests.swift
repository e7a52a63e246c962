import Accounts
@testable import BurgerMap
import BurgerMapTesting
import Fluent
import LookForRealBurgerApp
import Media
import NIOFoundationEssentialsCompat
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// What the 2026-11-26 probe did with the burger map and its uploads, each tried again: GPS in a
/// camera's second frame, pictures declaring billions of pixels, three fresh accounts hiding any
/// review (again after an admin's restore), one account storing 200 MB, 379 comments in 10 s.
final class BurgerMapAbuseTests: XCTestCase {
    /// A camera's multi-picture JPEG (MPO): an APP2 index, the first frame, then a second whole
    /// JPEG carrying its own EXIF with the position.
    static func cameraMPO() -> Data {
        var first = [UInt8](TestImages.phoneJPEG(width: 320, height: 240, seed: 7))
        let index = TestImages.jpegSegment(0xE2, Array("MPF".utf8) + [0] + Array("MM".utf8) + [0, 0x2A, 0, 0, 0, 8] + [UInt8](repeating: 0, count: 16))
        first.insert(contentsOf: index, at: 2)
        return Data(first) + TestImages.phoneJPEG(width: 160, height: 120, seed: 8)
    }

    static func assertNoPosition(_ stored: Data, _ path: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNil(stored.range(of: Data(TestImages.gpsText.utf8)), "\(path): no position in the stored file", file: file, line: line)
        XCTAssertNil(stored.range(of: Data("MPF".utf8)), "\(path): no multi-picture index", file: file, line: line)
        XCTAssertEqual(Array(stored.suffix(2)), [0xFF, 0xD9], "\(path): ends with the first picture", file: file, line: line)
    }

    // MARK: Item 5: GPS past the first scan, on all three upload paths

    func testAMultiPictureFileLosesEveryFramesPositionOnEveryUploadPath() async throws {
        try await withLSLPApp { app in
            let mpo = Self.cameraMPO()
            XCTAssertEqual(mpo.ranges(of: Data(TestImages.gpsText.utf8)).count, 2, "both frames carry the position")
            // The map's photos.
            let member = try await app.member("사진가")
            let uploaded = try await app.uploadPhoto([UploadPart(filename: "DSC_0001.JPG", contentType: "image/jpeg", data: mpo)], token: member.token)
            XCTAssertEqual(uploaded.status, .created, uploaded.text)
            let url = try uploaded.json(BurgerMapJSON.Photo.self).url
            Self.assertNoPosition(Data(buffer: try await app.send(.GET, url).body), "/api/v1/burger-map/photos")
            // The LookForRealBurger app's files.
            let client = try await LSLPClient.member(app, nick: "앱사진가")
            let files = try await client.uploadFiles([mpo])
            XCTAssertEqual(files.status, .ok, files.text)
            let path = try XCTUnwrap((try files.object()["files"] as? [String])?.first)
            let served = try await client.call(.GET, "/v1/\(path)")
            XCTAssertEqual(served.status, .ok)
            Self.assertNoPosition(Data(buffer: served.body), "/v1/posts/files")
            // Profile pictures.
            let profile = try await app.testable().performTest(request: TestingHTTPRequest(
                method: .PUT, url: URI(path: "/api/v1/me/profile-image"),
                headers: ["Authorization": "Bearer \(member.token)", "Content-Type": "image/jpeg"], body: ByteBuffer(data: mpo)))
            XCTAssertEqual(profile.status, .ok, profile.text)
            let picture = try XCTUnwrap(try profile.object()["profileImageURL"] as? String)
            Self.assertNoPosition(Data(buffer: try await app.send(.GET, picture).body), "/api/v1/me/profile-image")
            // And where files are kept: no stored file holds the position.
            let stored = try await app.storedUploads()
            XCTAssertGreaterThan(stored.count, 0)
            for (key, bytes) in stored {
                XCTAssertNil(bytes.range(of: Data(TestImages.gpsText.utf8)), key)
            }
        }
    }

    // MARK: Item 12: declared sizes

    func testPicturesDeclaringMorePixelsThanAPhotoAreRefusedEverywhere() async throws {
        try await withLSLPApp { app in
            let member = try await app.member("큰그림")
            let bomb = TestImages.phoneJPEG(width: 60_000, height: 60_000)
            let photo = try await app.uploadPhoto([UploadPart(filename: "big.jpg", contentType: "image/jpeg", data: bomb)], token: member.token)
            XCTAssertEqual(photo.status, .unprocessableEntity, photo.text)
            XCTAssertEqual(photo.errorCode, "image_too_many_pixels")
            XCTAssertTrue(photo.errorMessage?.contains("12000") == true, photo.text)
            let client = try await LSLPClient.member(app, nick: "큰그림앱")
            let files = try await client.uploadFiles([bomb])
            XCTAssertEqual(files.status, .badRequest, "the app's client error: \(files.text)")
            let profile = try await app.testable().performTest(request: TestingHTTPRequest(
                method: .PUT, url: URI(path: "/api/v1/me/profile-image"),
                headers: ["Authorization": "Bearer \(member.token)", "Content-Type": "image/jpeg"], body: ByteBuffer(data: bomb)))
            XCTAssertEqual(profile.status, .unprocessableEntity)
            let stored = try await BurgerPhoto.query(on: app.db).filter(\.$owner.$id == member.id).count()
            XCTAssertEqual(stored, 0, "nothing kept")
        }
    }

    // MARK: Item 6: reports

    func testFreshAccountsCannotHideAReviewAndARestoredOneStaysUp() async throws {
        try await withTestApp { app in
            let author = try await app.member("작성자")
            let admin = try await app.member("관리자", admin: true)
            let place = try await app.place(author.token)
            let review = try await app.review(author.token, place: place)
            let path = "/api/v1/burger-map/reviews/\(review)"
            // Three accounts made a moment ago: their reports are kept for the admins, and hide nothing.
            var fresh: [Member] = []
            for index in 0..<3 { fresh.append(try await app.member("새계정\(index)")) }
            for reporter in fresh {
                let report = try await app.send(.POST, "\(path)/report", json: ["reason": "광고"], token: reporter.token)
                XCTAssertEqual(report.status, .ok, report.text)
                XCTAssertEqual(try report.object()["hidden"] as? Bool, false)
            }
            let stillUp = try await app.send(.GET, path).status
            XCTAssertEqual(stillUp, .ok, "still up for everyone")
            let kept = try await BurgerReport.query(on: app.db).filter(\.$review.$id == review).count()
            XCTAssertEqual(kept, 3, "the reports are kept")

            // Standing comes with age, or with reviews of one's own that stood for a while; the
            // fresh reports count once their accounts have it.
            let regular = try await app.member("단골")
            for index in 0..<BurgerMapService.reporterStandingReviews {
                _ = try await app.review(regular.token, place: place, title: "단골 리뷰 \(index)")
            }
            try await app.db.sql.raw("""
                UPDATE \(ident: BurgerReview.schema) SET created_at = \(bind: Date().addingTimeInterval(-BurgerMapService.reporterStandingAge - 60))
                WHERE author_id = \(bind: regular.id)
                """).run()
            try await app.age(fresh[0], by: BurgerMapService.reporterStandingAge + 60)
            try await app.age(fresh[1], by: BurgerMapService.reporterStandingAge + 60)
            let counted = try await app.send(.POST, "\(path)/report", json: ["reason": "광고"], token: regular.token)
            XCTAssertEqual(try counted.object()["hidden"] as? Bool, true, "two aged reports and a regular's: hidden")
            let nowHidden = try await app.send(.GET, path).status
            XCTAssertEqual(nowHidden, .notFound)

            // An admin restores it: those reporters can never hide it again.
            let restored = try await app.send(.POST, "\(path)/restore", token: admin.token)
            XCTAssertEqual(restored.status, .ok, restored.text)
            try await app.age(fresh[2], by: BurgerMapService.reporterStandingAge + 60)
            for reporter in fresh + [regular] {
                let again = try await app.send(.POST, "\(path)/report", json: ["reason": "또"], token: reporter.token)
                XCTAssertEqual(try again.object()["hidden"] as? Bool, false)
            }
            let afterRestore = try await app.send(.GET, path).status
            XCTAssertEqual(afterRestore, .ok, "the restore stands against those who reported before")
            // New evidence still counts: three other accounts with standing.
            var hidden = false
            for index in 0..<3 {
                let newcomer = try await app.seasonedMember("다른신고\(index)")
                hidden = try await app.send(.POST, "\(path)/report", json: ["reason": "새 신고"], token: newcomer.token).object()["hidden"] as? Bool ?? false
            }
            XCTAssertTrue(hidden)
        }
    }

    func testAReporterHasTenReportsAnHour() async throws {
        try await withTestApp { app in
            let author = try await app.member("많이씀")
            let place = try await app.place(author.token)
            var reviews: [UUID] = []
            for index in 0..<11 { reviews.append(try await app.review(author.token, place: place, title: "리뷰 \(index)")) }
            let reporter = try await app.seasonedMember("신고왕")
            for review in reviews.prefix(10) {
                let report = try await app.send(.POST, "/api/v1/burger-map/reviews/\(review)/report", json: ["reason": "x"], token: reporter.token)
                XCTAssertEqual(report.status, .ok, report.text)
            }
            let eleventh = try await app.send(.POST, "/api/v1/burger-map/reviews/\(reviews[10])/report", json: ["reason": "x"], token: reporter.token)
            XCTAssertEqual(eleventh.status, .tooManyRequests)
            XCTAssertEqual(eleventh.errorCode, "too_many_reports")
            XCTAssertNotNil(eleventh.headers.first(name: "Retry-After"))
            let reports = try await BurgerReport.query(on: app.db).filter(\.$reporter.$id == reporter.id).count()
            XCTAssertEqual(reports, 10)
        }
    }

    // MARK: Item 7: storage

    func testEveryStoredByteCountsAgainstTheAccountsQuota() async throws {
        try await withTestApp(adjust: { $0.limits.uploadQuotaMB = 2 }) { app in
            let member = try await app.member("저장왕")
            let place = try await app.place(member.token)
            // Photos of about 0.7 MB each (their picture data; what is stored is what counts).
            func big(_ seed: Int) -> UploadPart {
                var bytes = [UInt8](TestImages.phoneJPEG(width: 840, height: 840, seed: UInt8(seed)))
                bytes.insert(contentsOf: [UInt8](repeating: 0x55, count: 700_000), at: bytes.count - 4)   // more picture data
                return UploadPart(filename: "p.jpg", contentType: "image/jpeg", data: Data(bytes))
            }
            var photos: [UUID] = []
            for seed in 1...2 {
                let uploaded = try await app.uploadPhoto([big(seed)], token: member.token)
                XCTAssertEqual(uploaded.status, .created, uploaded.text)
                photos.append(try uploaded.json(BurgerMapJSON.Photo.self).id)
            }
            let review = try await app.review(member.token, place: place, photos: photos)
            let used = try await app.storageQuota.used(by: member.id, on: app.db)
            XCTAssertGreaterThan(used, 1_400_000)
            let third = try await app.uploadPhoto([big(3)], token: member.token)
            XCTAssertEqual(third.status, .payloadTooLarge, third.text)
            XCTAssertEqual(third.errorCode, "storage_quota_exceeded")
            XCTAssertTrue(third.errorMessage?.contains("2 MB") == true, third.text)
            // A profile picture counts too.
            let picture = try await app.testable().performTest(request: TestingHTTPRequest(
                method: .PUT, url: URI(path: "/api/v1/me/profile-image"),
                headers: ["Authorization": "Bearer \(member.token)", "Content-Type": "image/jpeg"], body: ByteBuffer(data: big(4).data)))
            XCTAssertEqual(picture.errorCode, "storage_quota_exceeded")
            let usedAfterRefusals = try await app.storageQuota.used(by: member.id, on: app.db)
            XCTAssertEqual(usedAfterRefusals, used, "refusals take nothing")
            // Deleting gives the room back; another account has its own.
            let deleted = try await app.send(.DELETE, "/api/v1/burger-map/reviews/\(review)", token: member.token)
            XCTAssertEqual(deleted.status, .noContent)
            let usedAfterDeleting = try await app.storageQuota.used(by: member.id, on: app.db)
            XCTAssertEqual(usedAfterDeleting, 0)
            let again = try await app.uploadPhoto([big(3)], token: member.token)
            XCTAssertEqual(again.status, .created, again.text)
            let other = try await app.member("다른사람")
            let othersUpload = try await app.uploadPhoto([big(5)], token: other.token).status
            XCTAssertEqual(othersUpload, .created)
        }
    }

    func testUploadsStopBeforeTheDiskFills() async throws {
        // A floor no test machine has free: every upload is refused, and nothing is written.
        // The floor guards the disk files are kept on (this machine's, with UPLOAD_STORAGE=disk).
        try await withTestApp(adjust: { $0.limits.minimumFreeDiskMB = 100_000_000; $0[section: MediaSettings.self].storage = .disk }) { app in
            let member = try await app.member("디스크")
            let refused = try await app.uploadPhoto([UploadPart(data: TestImages.png(seed: 1))], token: member.token)
            XCTAssertEqual(refused.status, .serviceUnavailable)
            XCTAssertEqual(refused.errorCode, "storage_full")
            XCTAssertNotNil(refused.headers.first(name: "Retry-After"))
            let photos = try await BurgerPhoto.query(on: app.db).count()
            let drawnPhotos = try await BurgerPhoto.query(on: app.db).filter(\.$fileKey == nil).count()
            XCTAssertEqual(photos, drawnPhotos,
                           "no uploaded photo stored")
        }
    }

    func testReviewsAndPhotoUploadsHaveAnHourlyRate() async throws {
        try await withTestApp { app in
            let member = try await app.member("리뷰머신")
            let place = try await app.place(member.token)
            // 20 reviews of four photos each: the hour's reviews.
            for index in 0..<20 {
                var ids: [UUID] = []
                for seed in 0..<4 { ids.append(try await app.photo(member.token, seed: index * 10 + seed)) }
                _ = try await app.review(member.token, place: place, title: "리뷰 \(index)", photos: ids)
            }
            let spare = try await app.photo(member.token, seed: 9_000)
            let review = try await app.send(.POST, "/api/v1/burger-map/reviews",
                                            json: BurgerMapJSON.NewReview(placeId: place, title: "스물한 번째", rating: 3, text: "또 왔어요", photoIds: [spare]),
                                            token: member.token)
            XCTAssertEqual(review.status, .tooManyRequests, review.text)
            XCTAssertEqual(review.errorCode, "too_many_reviews")
            XCTAssertNotNil(review.headers.first(name: "Retry-After"))
            XCTAssertTrue(review.errorMessage?.contains("분") == true, "the message says when: \(review.text)")
            // 81 photos so far; the hundredth is the hour's last.
            for seed in 0..<19 { _ = try await app.photo(member.token, seed: 9_100 + seed) }
            let photo = try await app.uploadPhoto([UploadPart(data: TestImages.png(seed: 9_999))], token: member.token)
            XCTAssertEqual(photo.status, .tooManyRequests, photo.text)
            XCTAssertEqual(photo.errorCode, "too_many_uploads")
            let written = try await BurgerReview.query(on: app.db).filter(\.$author.$id == member.id).count()
            XCTAssertEqual(written, 20)
        }
    }
}
