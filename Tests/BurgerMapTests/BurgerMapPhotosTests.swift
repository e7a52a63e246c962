import Accounts
@testable import BurgerMap
import BurgerMapTesting
import Fluent
import Media
import NIOFoundationEssentialsCompat
import Platform
import WhatWeEatTesting
import XCTVapor

/// `POST /api/v1/burger-map/photos`: one JPEG, PNG or WebP up to 5 MB in a multipart body,
/// recognised by its bytes (not its name or declared type) and stored without its metadata.
final class BurgerMapPhotosTests: XCTestCase {
    func testAPNGIsStoredAndServedWithItsSize() async throws {
        try await withTestApp { app in
            let member = try await app.member("포토")
            let png = TestImages.png(width: 3, height: 2, seed: 7)
            let response = try await app.uploadPhoto([UploadPart(name: "anything", filename: "burger.png", data: png)], token: member.token)
            XCTAssertEqual(response.status, .created, response.text)
            XCTAssertEqual(Set(try response.object().keys), ["id", "url", "width", "height"])
            let photo = try response.json(BurgerMapJSON.Photo.self)
            XCTAssertEqual([photo.width, photo.height], [3, 2])
            XCTAssertTrue(photo.url.hasPrefix("/uploads/") && photo.url.hasSuffix(".png"), photo.url)
            let stored = try await app.send(.GET, photo.url)
            XCTAssertEqual(stored.status, .ok)
            XCTAssertEqual(stored.headers.contentType, .png)
            XCTAssertEqual(Data(buffer: stored.body), png, "a PNG without metadata is kept byte for byte")
            let row = try await BurgerPhoto.find(photo.id, on: app.db)
            XCTAssertEqual(row?.$owner.id, member.id)
            XCTAssertNil(row?.reviewID, "it waits for a review")
        }
    }

    func testAJPEGLosesItsEXIFPositionBeforeItIsStored() async throws {
        try await withTestApp { app in
            let member = try await app.member("포토")
            let jpeg = TestImages.phoneJPEG(width: 640, height: 480)
            XCTAssertNotNil(jpeg.range(of: Data(TestImages.gpsText.utf8)), "the upload carries the position")
            let response = try await app.uploadPhoto([UploadPart(filename: "IMG_0001.JPG", contentType: "image/jpeg", data: jpeg)], token: member.token)
            XCTAssertEqual(response.status, .created, response.text)
            let photo = try response.json(BurgerMapJSON.Photo.self)
            XCTAssertEqual([photo.width, photo.height], [640, 480])
            XCTAssertTrue(photo.url.hasSuffix(".jpg"), photo.url)
            let stored = try await app.send(.GET, photo.url)
            XCTAssertEqual(stored.status, .ok)
            XCTAssertEqual(stored.headers.contentType, .jpeg)
            let bytes = Data(buffer: stored.body)
            XCTAssertNil(bytes.range(of: Data(TestImages.gpsText.utf8)), "no GPS text in the stored file")
            XCTAssertNil(bytes.range(of: Data("Exif".utf8) + Data([0, 0])), "no EXIF segment in the stored file")
            XCTAssertTrue(bytes.starts(with: [0xFF, 0xD8]) && bytes.suffix(2).elementsEqual([0xFF, 0xD9]), "still a JPEG")
            XCTAssertLessThan(bytes.count, jpeg.count)
        }
    }

    func testUploadsThatAreNotOnePhotoAreRefusedAndStoreNothing() async throws {
        try await withTestApp { app in
            let member = try await app.member("포토")
            let png = TestImages.png()
            let cases: [(String, [UploadPart], HTTPStatus, String)] = [
                ("a text file renamed .jpg", [UploadPart(filename: "photo.jpg", contentType: "image/jpeg", data: Data("hello, this is text\n".utf8))],
                 .unsupportedMediaType, "unsupported_image_type"),
                ("a GIF sent as a JPEG", [UploadPart(filename: "photo.jpg", contentType: "image/jpeg", data: TestImages.gif)],
                 .unsupportedMediaType, "unsupported_image_type"),
                ("a PNG cut short", [UploadPart(data: png.prefix(30))], .unsupportedMediaType, "unsupported_image_type"),
                ("over 5 MB", [UploadPart(data: png + Data(repeating: 0, count: 5 * 1024 * 1024))], .payloadTooLarge, "image_too_large"),
                ("two files", [UploadPart(name: "a", data: png), UploadPart(name: "b", data: TestImages.png(seed: 2))],
                 .badRequest, "one_file_required"),
                ("no file, only a field", [UploadPart(name: "caption", filename: nil, contentType: "text/plain", data: Data("hi".utf8))],
                 .badRequest, "one_file_required"),
            ]
            for (label, parts, status, code) in cases {
                let response = try await app.uploadPhoto(parts, token: member.token)
                XCTAssertEqual(response.status, status, "\(label): \(response.text)")
                XCTAssertEqual(response.errorCode, code, label)
            }
            let notMultipart = try await app.send(.POST, "/api/v1/burger-map/photos", body: png, contentType: "image/png", token: member.token)
            XCTAssertEqual(notMultipart.status, .unsupportedMediaType)
            XCTAssertEqual(notMultipart.errorCode, "multipart_required")
            let json = try await app.send(.POST, "/api/v1/burger-map/photos", raw: #"{"photo": "aGVsbG8="}"#, token: member.token)
            XCTAssertEqual(json.status, .unsupportedMediaType)
            XCTAssertEqual(json.errorCode, "multipart_required")

            let anonymous = try await app.uploadPhoto([UploadPart(data: png)], token: nil)
            XCTAssertEqual(anonymous.status, .unauthorized)
            XCTAssertEqual(anonymous.errorCode, "unauthorized")

            let photos = try await BurgerPhoto.query(on: app.db).filter(\.$owner.$id == member.id).count()
            XCTAssertEqual(photos, 0, "nothing was stored")
            let stored = try await app.storedUploads()
            XCTAssertEqual(stored.count, 0, "no file was written")
        }
    }

    func testRefusalsAreInTheReadersLanguage() async throws {
        try await withTestApp { app in
            let member = try await app.member("포토")
            let gif = [UploadPart(filename: "photo.jpg", contentType: "image/jpeg", data: TestImages.gif)]
            let korean = try await app.uploadPhoto(gif, token: member.token)
            XCTAssertEqual(korean.errorMessage, app.translator.text("error.unsupported_photo_type", .ko, [:]))
            let boundary = "b0undary"
            let body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"p\"; filename=\"p.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
                + TestImages.gif + Data("\r\n--\(boundary)--\r\n".utf8)
            let english = try await app.testable().performTest(request: TestingHTTPRequest(
                method: .POST, url: URI(path: "/api/v1/burger-map/photos"),
                headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)", "Accept-Language": "en",
                          "Authorization": "Bearer \(member.token)"],
                body: ByteBuffer(data: body)))
            XCTAssertEqual(english.status, .unsupportedMediaType)
            XCTAssertEqual(english.errorMessage, app.translator.text("error.unsupported_photo_type", .en, [:]))
            XCTAssertNotEqual(english.errorMessage, korean.errorMessage)
            XCTAssertFalse(english.errorMessage?.contains("GIF") ?? true, "the message names only what photos accept")
        }
    }

    /// Replays what the API fuzzer found: a part header name with a byte of 0x80 or more (or an
    /// empty boundary) made MultipartKit index past its table and stop the process. Now 400, and
    /// the server (this test process) lives on; a Korean filename in a header value still works.
    func testMultipartThatCrashedTheParserIsRefused() async throws {
        try await withTestApp { app in
            let member = try await app.member("포토")
            let png = TestImages.png(seed: 7)
            let boundary = "b0undary"
            func body(headerName: String, filename: String = "p.png") -> Data {
                Data("--\(boundary)\r\n\(headerName): form-data; name=\"p\"; filename=\"\(filename)\"\r\nContent-Type: image/png\r\n\r\n".utf8)
                    + png + Data("\r\n--\(boundary)--\r\n".utf8)
            }
            let hostile = try await app.send(.POST, "/api/v1/burger-map/photos", body: body(headerName: "Content-Dispositioné"),
                                              contentType: "multipart/form-data; boundary=\(boundary)", token: member.token)
            XCTAssertEqual(hostile.status, .badRequest, hostile.text)
            XCTAssertEqual(hostile.errorCode, "malformed_body")
            let emptyBoundary = try await app.send(.POST, "/api/v1/burger-map/photos", body: body(headerName: "Content-Disposition"),
                                                   contentType: "multipart/form-data; boundary=", token: member.token)
            XCTAssertEqual(emptyBoundary.status, .badRequest, emptyBoundary.text)
            let korean = try await app.send(.POST, "/api/v1/burger-map/photos", body: body(headerName: "Content-Disposition", filename: "버거.png"),
                                            contentType: "multipart/form-data; boundary=\(boundary)", token: member.token)
            XCTAssertEqual(korean.status, .created, korean.text)
            // A page form through the CSRF check (which decodes the form) is refused the same way.
            let login = try await app.send(.POST, "/login", body: body(headerName: "Nameé"), contentType: "multipart/form-data; boundary=\(boundary)", token: nil)
            XCTAssertTrue([.badRequest, .forbidden, .unauthorized].contains(login.status), "\(login.status)")
            let alive = try await app.send(.GET, "/healthz")
            XCTAssertEqual(alive.status, .ok)
        }
    }
}
