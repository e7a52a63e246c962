@testable import Banchan
import Fluent
import Media
import Platform
import WhatWeEatTesting
import XCTVapor

/// Issue 61: the console runs the shop — an operator adds a dish with a photo from /admin (cleaned
/// like every upload, shown instead of the drawn picture under the dish's picture addresses), puts
/// a new photo on it later, and the dish sells.
final class BanchanDishPhotoTests: XCTestCase {
    func testAnOperatorAddsADishWithAPhotoAndItSells() async throws {
        try await withTestApp { app in
            _ = try await app.signUpAdmin("boss@example.com", nickname: "사장님")
            var boss = try await CookieBrowser.signedIn(app, as: "boss@example.com")
            let catalog = try await boss.get("/admin/catalog")
            XCTAssertTrue(catalog.text.contains(#"id="new-dish" href="/admin/catalog/new""#))
            _ = try await boss.get("/admin/catalog/new")
            let photo = TestImages.phoneJPEG(width: 64, height: 48, seed: 3)
            func field(_ name: String, _ value: String) -> UploadPart { UploadPart(name: name, filename: nil, contentType: "text/plain", data: Data(value.utf8)) }
            let added = try await boss.post("/admin/catalog/new", parts: [
                field("title", "유자 연근조림"), field("section", "side"), field("description", "새콤달콤한 유자청에 조린 연근"),
                field("salePrice", "6900"), field("originalPrice", ""), field("stock", "5"), field("emoji", "🍋"), field("dawn", "on"),
                UploadPart(name: "photo", filename: "yuja.jpg", contentType: "image/jpeg", data: photo),
            ])
            XCTAssertEqual(added.status, .seeOther, added.text)
            let location = try XCTUnwrap(added.headers.first(name: .location))
            let hash = try XCTUnwrap(location.firstMatch(of: /\/admin\/catalog\/dishes\/(N[A-Z0-9]{5})/)?.1).description

            // Before its photo a dish's drawn pictures are kept minutes (a photo may replace them), its detail paragraphs a day.
            let drawn = try await app.send(.GET, "/images/banchan/\(Fixtures.bulgogi)/main.svg")
            XCTAssertEqual(drawn.headers.first(name: .cacheControl), "public, max-age=300")
            let paragraph = try await app.send(.GET, "/images/banchan/\(Fixtures.bulgogi)/detail-1.svg")
            XCTAssertEqual(paragraph.headers.first(name: .cacheControl), "public, max-age=86400")
            let dish = try await app.send(.GET, "/api/v1/banchan/dishes/\(hash)").object()
            XCTAssertEqual((dish["dish"] as? [String: Any])?["title"] as? String, "유자 연근조림")
            XCTAssertEqual(dish["stock"] as? Int, 5)
            XCTAssertEqual((dish["dish"] as? [String: Any])?["deliveryTypes"] as? [String], ["dawn"], "새벽배송 only, as ticked")
            // The photo stands for the dish's pictures, cleaned of its metadata; the drawn art is gone from them.
            let read = try await app.banchanStore.dishRow(hash: hash)
            let row = try XCTUnwrap(read)
            let key = try XCTUnwrap(row.photoKey)
            for file in ["main.svg", "thumb-1.svg", "main.jpg", "card.jpg"] {
                let picture = try await app.send(.GET, "/images/banchan/\(hash)/\(file)")
                XCTAssertEqual(picture.status, .ok, file)
                XCTAssertEqual(picture.headers.contentType, .jpeg, file)
                XCTAssertEqual(picture.headers.first(name: .cacheControl), "no-cache", "a replaced photo shows at once")
                XCTAssertFalse(picture.text.contains(TestImages.gpsText), "no GPS from the phone")
            }
            let page = try await boss.get(location)
            XCTAssertTrue(page.text.contains(#"id="dish-photo""#) && page.text.contains("올린 사진이 보이고 있어요"))

            // A new photo replaces it; the old file goes (nothing else shows it).
            let replaced = try await boss.post("/admin/catalog/dishes/\(hash)/photo", parts: [
                UploadPart(name: "photo", filename: "yuja2.png", contentType: "image/png", data: TestImages.png(width: 40, height: 30, seed: 9)),
            ])
            XCTAssertEqual(replaced.status, .seeOther, replaced.text)
            let reread = try await app.banchanStore.dishRow(hash: hash)
            let newKey = try XCTUnwrap(reread?.photoKey)
            XCTAssertNotEqual(newKey, key)
            let oldSize = try await app.files.size(of: key)
            XCTAssertNil(oldSize, "the replaced photo's file is removed")
            let again = try await app.send(.GET, "/images/banchan/\(hash)/main.svg")
            XCTAssertEqual(again.headers.contentType, .png)

            // What is not a photo changes nothing and says why on the page.
            let gif = try await boss.post("/admin/catalog/dishes/\(hash)/photo", parts: [
                UploadPart(name: "photo", filename: "x.gif", contentType: "image/gif", data: TestImages.gif),
            ])
            XCTAssertEqual(gif.status, .unsupportedMediaType, gif.text)
            XCTAssertTrue(gif.text.contains("form-error"))
            let still = try await app.banchanStore.dishRow(hash: hash)?.photoKey
            XCTAssertEqual(still, newKey)
            // A form without a price is named, and no dish is added.
            let before = try await app.banchanStore.allDishRows().count
            let noPrice = try await boss.post("/admin/catalog/new", parts: [field("title", "가격 없는 반찬"), field("section", "side"), field("stock", "1"),
                                                                           field("emoji", "🥢"), field("salePrice", "")])
            XCTAssertEqual(noPrice.status, .unprocessableEntity)
            XCTAssertTrue(noPrice.text.contains(#"value="가격 없는 반찬""#), "what was typed is kept")
            let after = try await app.banchanStore.allDishRows().count
            XCTAssertEqual(after, before)

            // A new dish whose photo is refused is not added (a second try would add it twice).
            let refusedPhoto = try await boss.post("/admin/catalog/new", parts: [
                field("title", "사진이 이상한 반찬"), field("section", "side"), field("stock", "1"), field("emoji", "🥢"), field("salePrice", "3000"),
                UploadPart(name: "photo", filename: "x.gif", contentType: "image/gif", data: TestImages.gif),
            ])
            XCTAssertEqual(refusedPhoto.status, .unsupportedMediaType)
            let afterRefusal = try await app.banchanStore.allDishRows().count
            XCTAssertEqual(afterRefusal, before)

            // Malformed forms are refused in words, never a 500: a photo sent as text, no photo at all, a bad section.
            let textPhoto = try await boss.post("/admin/catalog/new", parts: [field("title", "글자 사진"), field("section", "side"), field("stock", "1"),
                                                                             field("emoji", "🥢"), field("salePrice", "3000"), field("photo", "not a file")])
            XCTAssertTrue((400..<500).contains(textPhoto.status.code), "\(textPhoto.status)")
            let noFile = try await boss.post("/admin/catalog/dishes/\(hash)/photo", parts: [field("note", "nothing")])
            XCTAssertEqual(noFile.status, .badRequest)
            let badSection = try await boss.post("/admin/catalog/new", parts: [field("title", "분류 없음"), field("section", "dessert"), field("stock", "1"),
                                                                              field("emoji", "🥢"), field("salePrice", "3000")])
            XCTAssertEqual(badSection.status, .unprocessableEntity)
            let stillSame = try await app.banchanStore.allDishRows().count
            XCTAssertEqual(stillSame, before)

            // Not an administrator: nothing to post to.
            let buyer = try await app.member("구매자")
            var someone = try await CookieBrowser.signedIn(app, as: buyer.email)
            _ = try await someone.get("/shop")
            let refused = try await someone.post("/admin/catalog/dishes/\(hash)/photo", parts: [
                UploadPart(name: "photo", filename: "p.png", contentType: "image/png", data: TestImages.png()),
            ])
            XCTAssertEqual(refused.status, .notFound)

            // It sells.
            let ordered = try await app.send(.POST, "/api/v1/banchan/orders", raw: #"{"items": [{"hash": "\#(hash)", "quantity": 2}]}"#, token: buyer.token)
            XCTAssertEqual(ordered.status, .created, ordered.text)
            let actions = try await AuditLog(database: app.db).page(CursorPageRequest()).items.map(\.action)
            XCTAssertEqual(Array(actions.prefix(3)), ["banchan.dish.photo", "banchan.dish.photo", "banchan.dish.add"])
        }
    }

    /// The dish is taken off sale while its photo is being stored: the photo is refused (404) and
    /// its file does not stay behind, owned by nothing.
    func testAPhotoForADishRetiredMeanwhileLeavesNoFile() async throws {
        try await withTestApp { app in
            let service = BanchanService(application: app)
            let files = RetiringWhileSaving(inner: app.files) {
                try await BanchanService(application: app).retireDish(hash: Fixtures.dakgalbi, by: nil)
            }
            do {
                _ = try await service.setDishPhoto(hash: Fixtures.dakgalbi, data: TestImages.phoneJPEG(width: 64, height: 48, seed: 9), files: files, by: nil)
                XCTFail("a retired dish takes no photo")
            } catch let error as AppError {
                XCTAssertEqual(error.status, .notFound)
            }
            let key = try XCTUnwrap(files.savedKey)
            let left = try await app.files.size(of: key)
            XCTAssertNil(left, "the stored file went with the refusal")
        }
    }
}

/// Stores through `inner`, running `meanwhile` after the file is stored (a retire racing the upload).
private final class RetiringWhileSaving: FileStorage, @unchecked Sendable {
    let inner: any FileStorage
    let meanwhile: @Sendable () async throws -> Void
    var savedKey: String?

    init(inner: any FileStorage, meanwhile: @escaping @Sendable () async throws -> Void) {
        self.inner = inner
        self.meanwhile = meanwhile
    }

    var place: String { inner.place }
    func save(_ data: Data, as type: ImageType) async throws -> String {
        let key = try await inner.save(data, as: type)
        savedKey = key
        try await meanwhile()
        return key
    }
    func delete(key: String) async throws { try await inner.delete(key: key) }
    func content(of key: String) async throws -> StoredFileContent? { try await inner.content(of: key) }
    func size(of key: String) async throws -> Int? { try await inner.size(of: key) }
}
