import Accounts
@testable import Banchan
import Fluent
import NIOConcurrencyHelpers
import Payments
import Platform
import Site
import WhatWeEatTesting
import XCTVapor

/// The shop over HTTP: the shipped app's routes byte for byte, the catalog, the cart, orders that
/// never oversell, idempotency, cancellation and payments.
final class BanchanAPITests: XCTestCase {

    func device(_ token: String) -> HTTPHeaders { ["X-Device-Token": token] }

    func adminToken(_ app: Application) async throws -> String {
        try await app.signUpAdmin().accessToken
    }

    func stock(_ app: Application, _ hash: String) async throws -> Int {
        let record = try await DishRecord.query(on: app.db).filter(\.$hash == hash).first()
        return try XCTUnwrap(record).stock
    }

    func setStock(_ app: Application, _ hash: String, _ stock: Int, admin: String) async throws {
        let response = try await app.send(.PATCH, "/api/v1/banchan/dishes/\(hash)", json: ["stock": stock], token: admin)
        XCTAssertEqual(response.status, .ok, response.text)
    }

    /// Places an order for these dishes as `owner`.
    static func placeOrder(_ app: Application, _ items: [(String, Int)], owner: String, key: String? = nil) async throws -> TestingHTTPResponse {
        var headers: HTTPHeaders = ["X-Device-Token": owner]
        if let key { headers.add(name: "Idempotency-Key", value: key) }
        let body = #"{"items": ["# + items.map { #"{"hash": "\#($0.0)", "quantity": \#($0.1)}"# }.joined(separator: ", ") + "]}"
        return try await app.send(.POST, "/api/v1/banchan/orders", raw: body, headers: headers)
    }

    // MARK: The shipped app's routes

    func testSectionListsAreTheAppsExactJSON() async throws {
        try await withTestApp { app in
            let main = try await app.send(.GET, "/main")
            XCTAssertEqual(main.status, .ok)
            XCTAssertEqual(main.headers.contentType, .json)
            let first = #"{"alt":"[소중한식사] 한우 소불고기 500g","badge":["이벤트특가"],"delivery_type":["새벽배송","전국택배"],"description":"달콤 짭짤한 간장 양념에 하룻밤 재운 부드러운 한우","detail_hash":"HU6Z5","image":"http://127.0.0.1:8080/images/banchan/HU6Z5/main.jpg","n_price":"28,900원","s_price":"23,900원","title":"[소중한식사] 한우 소불고기 500g"}"#
            XCTAssertTrue(main.text.hasPrefix(#"{"body":["# + first + ","), main.text.prefix(400).description)
            XCTAssertTrue(main.text.hasSuffix(#"],"statusCode":200}"#))
            let plain = #"{"alt":"[소중한식사] 춘천식 철판 닭갈비 700g","delivery_type":["새벽배송","전국택배"],"description":"고구마와 양배추까지 함께 담은 매콤한 춘천식 닭갈비","detail_hash":"HA5O3","image":"http://127.0.0.1:8080/images/banchan/HA5O3/main.jpg","s_price":"14,900원","title":"[소중한식사] 춘천식 철판 닭갈비 700g"}"#
            XCTAssertTrue(main.text.contains(plain), "no n_price or badge when there is none")

            for (path, section) in [("/main", DishSection.main), ("/soup", .soup), ("/side", .side)] {
                let response = try await app.send(.GET, path)
                let body = try XCTUnwrap(try response.object()["body"] as? [[String: Any]])
                let expected = try await DishRecord.query(on: app.db).filter(\.$section == section.rawValue).sort(\.$position).all().map(\.hash)
                XCTAssertEqual(body.map { $0["detail_hash"] as? String }, expected, path)
                for item in body {
                    XCTAssertTrue((item["s_price"] as? String)?.range(of: #"^[0-9]{1,3}(,[0-9]{3})*원$"#, options: .regularExpression) != nil)
                }
            }
        }
    }

    func testDetailIsTheAppsExactJSON() async throws {
        try await withTestApp { app in
            let detail = try await app.send(.GET, "/detail/\(Fixtures.bulgogi)")
            XCTAssertEqual(detail.status, .ok)
            let base = "http://127.0.0.1:8080/images/banchan/HU6Z5"
            let expected = #"{"data":{"delivery_fee":"2,500원 (40,000원 이상 구매 시 무료)","delivery_info":"새벽배송: 밤 10시까지 주문하면 다음 날 아침 7시 전 도착 / 택배: 1~2일 안에 도착","detail_section":["\#(base)/detail-1.png","\#(base)/detail-2.png","\#(base)/detail-3.png"],"point":"478원","prices":["28,900원","23,900원"],"product_description":"달콤 짭짤한 간장 양념에 하룻밤 재운 부드러운 한우","thumb_images":["\#(base)/thumb-1.jpg","\#(base)/thumb-2.jpg","\#(base)/thumb-3.jpg","\#(base)/thumb-4.jpg"],"top_image":"\#(base)/main.jpg"},"hash":"HU6Z5"}"#
            XCTAssertEqual(detail.text, expected)

            let plain = try await app.send(.GET, "/detail/\(Fixtures.dakgalbi)")
            XCTAssertEqual((try plain.object()["data"] as? [String: Any])?["prices"] as? [String], ["14,900원"], "one price when not discounted")

            let unknown = try await app.send(.GET, "/detail/NOPE1")
            XCTAssertEqual(unknown.status, .notFound)
            XCTAssertEqual(unknown.errorCode, "dish_not_found")

            // Every image the detail names is served as a raster the app's UIImage(data:) decodes:
            // JPEG (FF D8 FF) or PNG (89 50 4E 47), as its type says. The web's pages keep the SVG.
            let object = try XCTUnwrap(try detail.object()["data"] as? [String: Any])
            let named = [object["top_image"] as? String] + (object["thumb_images"] as? [String] ?? []) + (object["detail_section"] as? [String] ?? [])
            XCTAssertEqual(named.count, 8)
            for case let url? in named {
                let image = try await app.send(.GET, String(url.dropFirst("http://127.0.0.1:8080".count)))
                XCTAssertEqual(image.status, .ok, url)
                let bytes = Array(image.body.readableBytesView.prefix(4))
                if url.hasSuffix(".png") {
                    XCTAssertEqual(bytes, [0x89, 0x50, 0x4E, 0x47], url)
                    XCTAssertEqual(image.headers.contentType, .png, url)
                } else {
                    XCTAssertEqual(Array(bytes.prefix(3)), [0xFF, 0xD8, 0xFF], url)
                    XCTAssertEqual(image.headers.contentType, .jpeg, url)
                }
            }
            for url in [base + "/main.svg", base + "/thumb-4.svg", base + "/detail-3.svg"] {
                let image = try await app.send(.GET, String(url.dropFirst("http://127.0.0.1:8080".count)))
                XCTAssertEqual(image.status, .ok, url)
                XCTAssertTrue(image.text.hasPrefix("<svg"), url)
            }
            for missing in ["thumb-9.svg", "thumb-9.jpg", "detail-4.png", "detail-1.jpg", "detail-0.png", "main.png", "thumb-01.jpg"] {
                let answer = try await app.send(.GET, "/images/banchan/HU6Z5/" + missing)
                XCTAssertEqual(answer.status, .notFound, missing)
            }
        }
    }

    /// A dish an operator adds has no drawn pictures: the app gets the shop's placeholder JPEG
    /// for each of its raster images rather than a broken one.
    func testADishAddedLaterShowsThePlaceholderInTheApp() async throws {
        try await withTestApp { app in
            let admin = try await app.signUpAdmin().accessToken
            let added = try await app.send(.POST, "/api/v1/banchan/dishes",
                                           raw: #"{"hash": "HNEW01", "section": "side", "title": "새 반찬", "salePrice": 4900, "stock": 10}"#, token: admin)
            XCTAssertEqual(added.status, .created, added.text)
            let detail = try await app.send(.GET, "/detail/HNEW01")
            let data = try XCTUnwrap(try detail.object()["data"] as? [String: Any])
            let top = try XCTUnwrap(data["top_image"] as? String)
            XCTAssertTrue(top.hasSuffix("/HNEW01/main.jpg"), top)
            let placeholder = try Data(contentsOf: URL(fileURLWithPath: app.directory.resourcesDirectory + "catalogs/banchan-photos/_placeholder_main.jpg"))
            for url in [top] + (data["thumb_images"] as? [String] ?? []) {
                let image = try await app.send(.GET, String(url.dropFirst("http://127.0.0.1:8080".count)))
                XCTAssertEqual(image.status, .ok, url)
                XCTAssertEqual(Data(image.body.readableBytesView), placeholder, url)
            }
        }
    }

    // MARK: Catalog

    func testSectionsCountDishesAndListsPageInCatalogOrder() async throws {
        try await withTestApp { app in
            let sections = try await app.send(.GET, "/api/v1/banchan/sections", headers: ["Accept-Language": "en"])
            let list = try XCTUnwrap(try sections.object()["sections"] as? [[String: Any]])
            XCTAssertEqual(list.map { $0["id"] as? String }, ["main", "soup", "side"])
            XCTAssertEqual(list.map { $0["name"] as? String }, ["Main dishes", "Soups & stews", "Side dishes"])
            XCTAssertEqual(list.map { $0["dishCount"] as? Int }, [15, 15, 15])
            XCTAssertEqual((try sections.object()["deliveryFee"] as? [String: Any])?["label"] as? String, "₩2,500 (free from ₩40,000)", "in the reader's language, prices too")

            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await app.send(.GET, "/api/v1/banchan/sections/main/dishes?limit=4" + (cursor.map { "&cursor=\($0)" } ?? ""))
                XCTAssertEqual(page.status, .ok, page.text)
                let object = try page.object()
                seen += (object["items"] as? [[String: Any]] ?? []).compactMap { $0["hash"] as? String }
                cursor = object["nextCursor"] as? String
            } while cursor != nil
            let expected = try await DishRecord.query(on: app.db).filter(\.$section == "main").sort(\.$position).all().map(\.hash)
            XCTAssertEqual(seen, expected)

            let first = try await app.send(.GET, "/api/v1/banchan/sections/main/dishes?limit=1")
            // The page is assembled from pre-encoded listings: the same bytes the encoder writes.
            let record = try await DishRecord.query(on: app.db).filter(\.$hash == Fixtures.bulgogi).first()
            let encoded = CursorPage(items: [DishSummary(try BanchanStore.DishRow(try XCTUnwrap(record)), images: .init(publicURL: app.settings.publicURL))],
                               nextCursor: try first.object()["nextCursor"] as? String)
            XCTAssertEqual(first.text, String(decoding: try AppJSON.encoder().encode(encoded), as: UTF8.self))
            XCTAssertEqual(first.headers.contentType, .json)
            let item = try XCTUnwrap((try first.object()["items"] as? [[String: Any]])?.first)
            XCTAssertEqual(item["salePrice"] as? Int, 23_900)
            XCTAssertEqual(item["originalPrice"] as? Int, 28_900)
            XCTAssertEqual(item["badges"] as? [String], ["event"])
            XCTAssertEqual(item["deliveryTypes"] as? [String], ["dawn", "parcel"])

            let unknown = try await app.send(.GET, "/api/v1/banchan/sections/dessert/dishes")
            XCTAssertEqual(unknown.status, .notFound)
            let badCursor = try await app.send(.GET, "/api/v1/banchan/sections/main/dishes?cursor=xyz")
            XCTAssertEqual(badCursor.status, .badRequest)
            let brokenEscape = try await app.send(.GET, "/api/v1/banchan/sections/main/dishes?cursor=%zz")
            XCTAssertEqual(brokenEscape.errorCode, "invalid_cursor")
            let badLimit = try await app.send(.GET, "/api/v1/banchan/sections/main/dishes?limit=%41")
            XCTAssertEqual(badLimit.errorCode, "invalid_limit")
            let foreignCursor = PageCursor(createdAt: Date(), id: UUID()).encoded   // a newest-first list's cursor
            let refused = try await app.send(.GET, "/api/v1/banchan/sections/main/dishes?cursor=\(foreignCursor)")
            XCTAssertEqual(refused.errorCode, "invalid_cursor")

            let detail = try await app.send(.GET, "/api/v1/banchan/dishes/\(Fixtures.bulgogi)")
            let object = try detail.object()
            XCTAssertEqual(object["pointsPerUnit"] as? Int, 478)
            XCTAssertEqual((object["thumbImages"] as? [String])?.count, 4)
            XCTAssertEqual((object["deliveryFee"] as? [String: Any])?["freeFrom"] as? Int, 40_000)
        }
    }

    func testAdminsManageDishesAndStock() async throws {
        try await withTestApp { app in
            let user = try await app.signUp()
            let refused = try await app.send(.PATCH, "/api/v1/banchan/dishes/\(Fixtures.bulgogi)", json: ["stock": 1], token: user.accessToken)
            XCTAssertEqual(refused.status, .forbidden)
            let anonymous = try await app.send(.PATCH, "/api/v1/banchan/dishes/\(Fixtures.bulgogi)", json: ["stock": 1])
            XCTAssertEqual(anonymous.status, .unauthorized)
            let admin = try await adminToken(app)

            let created = try await app.send(.POST, "/api/v1/banchan/dishes", raw: #"{"hash": "HTEST1", "section": "side", "title": "[테스트] 연근조림 200g", "salePrice": 4900, "stock": 7, "badges": ["런칭특가"]}"#, token: admin)
            XCTAssertEqual(created.status, .created, created.text)
            let again = try await app.send(.POST, "/api/v1/banchan/dishes", raw: #"{"hash": "HTEST1", "section": "side", "title": "중복", "salePrice": 4900}"#, token: admin)
            XCTAssertEqual(again.status, .conflict)
            let side = try await app.send(.GET, "/side")
            XCTAssertTrue(side.text.contains(#""detail_hash":"HTEST1""#))

            let badPrice = try await app.send(.PATCH, "/api/v1/banchan/dishes/HTEST1", json: ["salePrice": -5], token: admin)
            XCTAssertEqual(badPrice.status, .unprocessableEntity)
            XCTAssertEqual(badPrice.errorCode, "invalid_dish_field")
            let badOriginal = try await app.send(.PATCH, "/api/v1/banchan/dishes/HTEST1", json: ["originalPrice": 100], token: admin)
            XCTAssertEqual(badOriginal.status, .unprocessableEntity, "an original price must be above the sale price")
            let badType = try await app.send(.PATCH, "/api/v1/banchan/dishes/HTEST1", raw: #"{"stock": "many"}"#, token: admin)
            XCTAssertEqual(badType.status, .badRequest)
            let stockBefore = try await stock(app, "HTEST1")
            XCTAssertEqual(stockBefore, 7, "refused edits change nothing")

            let retired = try await app.send(.DELETE, "/api/v1/banchan/dishes/HTEST1", token: admin)
            XCTAssertEqual(retired.status, .noContent)
            let gone = try await app.send(.GET, "/detail/HTEST1")
            XCTAssertEqual(gone.status, .notFound)
            let sideAfter = try await app.send(.GET, "/side")
            XCTAssertFalse(sideAfter.text.contains("HTEST1"), "a retired dish leaves the lists at once")
            // Retired is gone for every dish route, until the dish is added again.
            for (method, path) in [(HTTPMethod.GET, "/api/v1/banchan/dishes/HTEST1"), (.PATCH, "/api/v1/banchan/dishes/HTEST1"), (.DELETE, "/api/v1/banchan/dishes/HTEST1")] {
                let response = try await app.send(method, path, raw: method == .PATCH ? #"{"stock": 3}"# : nil, token: admin)
                XCTAssertEqual(response.status, .notFound, "\(method) after retiring")
            }
            let back = try await app.send(.POST, "/api/v1/banchan/dishes", raw: #"{"hash": "HTEST1", "section": "side", "title": "다시 나온 반찬", "salePrice": 5000, "stock": 2}"#, token: admin)
            XCTAssertEqual(back.status, .created, back.text)
            let backDetail = try await app.send(.GET, "/api/v1/banchan/dishes/HTEST1")
            XCTAssertTrue(backDetail.text.contains("다시 나온 반찬"))
            let retiredAgain = try await app.send(.DELETE, "/api/v1/banchan/dishes/HTEST1", token: admin)
            XCTAssertEqual(retiredAgain.status, .noContent)
            let sections = try await app.send(.GET, "/api/v1/banchan/sections")
            XCTAssertEqual((try sections.object()["sections"] as? [[String: Any]])?.last?["dishCount"] as? Int, 15)

            // Seeding again keeps an admin's edits and never resets stock.
            try await setStock(app, Fixtures.bulgogi, 3, admin: admin)
            try await Seeders.run(on: app)
            let kept = try await stock(app, Fixtures.bulgogi)
            XCTAssertEqual(kept, 3)
        }
    }

    // MARK: Cart and orders

    /// Issue "real people", item 7: a visitor's cart vanished at sign-in. It joins the account's
    /// cart at every sign-in that names the device (the API's login and sign-up with
    /// `X-Device-Token`; the pages with the device cookie): quantities added, held within each
    /// dish's limits and stock, and the device's cart emptied.
    func testAVisitorsCartJoinsTheAccountsAtSignIn() async throws {
        try await withTestApp { app in
            let admin = try await adminToken(app)
            try await setStock(app, Fixtures.dakgalbi, 4, admin: admin)
            let credentials = try await app.signUp("shopper@example.com", nickname: "장보기")
            _ = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.bulgogi)", json: ["quantity": 1], token: credentials.accessToken)
            _ = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.dakgalbi)", json: ["quantity": 3], token: credentials.accessToken)
            let visitor = "merge-device-token-0001"
            for (hash, quantity) in [(Fixtures.bulgogi, 2), (Fixtures.dakgalbi, 3)] {
                let added = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(hash)", json: ["quantity": quantity], headers: device(visitor))
                XCTAssertEqual(added.status, .ok, added.text)
            }
            var headers = device(visitor)
            headers.contentType = .json
            let login = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "shopper@example.com", "password": "password1"], headers: headers)
            XCTAssertEqual(login.status, .ok, login.text)
            let merged = try await app.send(.GET, "/api/v1/banchan/cart", token: credentials.accessToken).object()
            let quantities = Dictionary(uniqueKeysWithValues: (merged["items"] as? [[String: Any]] ?? []).compactMap { item -> (String, Int)? in
                guard let hash = (item["dish"] as? [String: Any])?["hash"] as? String ?? item["hash"] as? String, let quantity = item["quantity"] as? Int else { return nil }
                return (hash, quantity)
            })
            XCTAssertEqual(quantities[Fixtures.bulgogi], 3, "1 + 2")
            XCTAssertEqual(quantities[Fixtures.dakgalbi], 4, "3 + 3, held to the 4 in stock")
            let emptied = try await app.send(.GET, "/api/v1/banchan/cart", headers: device(visitor)).object()
            XCTAssertEqual((emptied["items"] as? [Any])?.count, 0, "the device's cart was handed over")
            // Signing up on a device brings its cart along too.
            let newcomer = "merge-device-token-0002"
            _ = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.bulgogi)", json: ["quantity": 2], headers: device(newcomer))
            var signUpHeaders = device(newcomer)
            signUpHeaders.contentType = .json
            let signedUp = try await app.send(.POST, "/api/v1/auth/signup", json: ["email": "new-shopper@example.com", "password": "password1", "nickname": "새손님"],
                                              headers: signUpHeaders)
            XCTAssertEqual(signedUp.status, .created, signedUp.text)
            let token = try XCTUnwrap(try signedUp.object()["accessToken"] as? String)
            let carried = try await app.send(.GET, "/api/v1/banchan/cart", token: token).object()
            XCTAssertEqual((carried["items"] as? [[String: Any]])?.first?["quantity"] as? Int, 2)
        }
    }

    func testTheCartKeepsQuantitiesWithinLimitsAndStock() async throws {
        try await withTestApp { app in
            let nobody = try await app.send(.GET, "/api/v1/banchan/cart")
            XCTAssertEqual(nobody.status, .unauthorized)
            XCTAssertEqual(nobody.errorCode, "shop_owner_required")
            let shortToken = try await app.send(.GET, "/api/v1/banchan/cart", headers: device("short"))
            XCTAssertEqual(shortToken.status, .unprocessableEntity)

            let owner = "cart-device-token-0001"
            let zero = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.bulgogi)", json: ["quantity": 0], headers: device(owner))
            XCTAssertEqual(zero.status, .unprocessableEntity)
            XCTAssertEqual(zero.errorCode, "quantity_below_minimum")
            let tooMany = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.bulgogi)", json: ["quantity": 11], headers: device(owner))
            XCTAssertEqual(tooMany.errorCode, "quantity_above_maximum")
            let admin = try await adminToken(app)
            try await setStock(app, Fixtures.bulgogi, 2, admin: admin)
            let moreThanStock = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.bulgogi)", json: ["quantity": 3], headers: device(owner))
            XCTAssertEqual(moreThanStock.status, .conflict)
            XCTAssertEqual(moreThanStock.errorCode, "out_of_stock")
            let unknown = try await app.send(.PUT, "/api/v1/banchan/cart/items/NOPE1", json: ["quantity": 1], headers: device(owner))
            XCTAssertEqual(unknown.status, .notFound)
            let malformed = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.bulgogi)", raw: #"{"quantity": "two"}"#, headers: device(owner))
            XCTAssertEqual(malformed.status, .badRequest)

            let added = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.bulgogi)", json: ["quantity": 2], headers: device(owner))
            XCTAssertEqual(added.status, .ok, added.text)
            let changed = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.dakgalbi)", json: ["quantity": 1], headers: device(owner))
            let cart = try changed.object()
            XCTAssertEqual((cart["items"] as? [[String: Any]])?.map { $0["quantity"] as? Int }, [2, 1])
            XCTAssertEqual(cart["itemsTotal"] as? Int, 2 * 23_900 + 14_900)
            XCTAssertEqual(cart["deliveryFee"] as? Int, 0, "62,700원 is past the free-delivery threshold")
            XCTAssertEqual(cart["total"] as? Int, 62_700)

            let removed = try await app.send(.DELETE, "/api/v1/banchan/cart/items/\(Fixtures.bulgogi)", headers: device(owner))
            let after = try removed.object()
            XCTAssertEqual(after["itemsTotal"] as? Int, 14_900)
            XCTAssertEqual(after["deliveryFee"] as? Int, 2_500)
            XCTAssertEqual(after["total"] as? Int, 17_400)

            // Another device has its own cart.
            let other = try await app.send(.GET, "/api/v1/banchan/cart", headers: device("other-device-token-01"))
            XCTAssertEqual((try other.object()["items"] as? [Any])?.count, 0)
        }
    }

    func testOrderingTheCartTakesStockComputesTotalsAndEmptiesIt() async throws {
        try await withTestApp { app in
            let owner = "order-device-token-001"
            _ = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.dakgalbi)", json: ["quantity": 2], headers: device(owner))
            let stockBefore = try await stock(app, Fixtures.dakgalbi)
            let placed = try await app.send(.POST, "/api/v1/banchan/orders", headers: device(owner))
            XCTAssertEqual(placed.status, .created, placed.text)
            let order = try placed.object()
            XCTAssertEqual(order["status"] as? String, "awaiting_payment")
            XCTAssertEqual(order["itemsTotal"] as? Int, 29_800)
            XCTAssertEqual(order["deliveryFee"] as? Int, 2_500)
            XCTAssertEqual(order["total"] as? Int, 32_300)
            XCTAssertEqual(order["points"] as? Int, 2 * (14_900 / 100))
            XCTAssertEqual(order["paymentGateway"] as? String, "test")
            let stockAfter = try await stock(app, Fixtures.dakgalbi)
            XCTAssertEqual(stockAfter, stockBefore - 2)
            let cart = try await app.send(.GET, "/api/v1/banchan/cart", headers: device(owner))
            XCTAssertEqual((try cart.object()["items"] as? [Any])?.count, 0)

            let id = try XCTUnwrap(order["id"] as? String)
            let mine = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", headers: device(owner))
            XCTAssertEqual(mine.status, .ok)
            let theirs = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", headers: device("somebody-else-token-1"))
            XCTAssertEqual(theirs.status, .notFound, "another owner's order does not exist for them")
            let list = try await app.send(.GET, "/api/v1/banchan/orders", headers: device(owner))
            XCTAssertEqual((try list.object()["items"] as? [[String: Any]])?.map { $0["id"] as? String }, [id])
            let listed = try XCTUnwrap((try list.object()["items"] as? [[String: Any]])?.first)
            XCTAssertEqual((listed["items"] as? [[String: Any]])?.first?["quantity"] as? Int, 2)

            // Lines keep the order they were asked in (stock is taken in hash order underneath).
            let two = try await Self.placeOrder(app, [(Fixtures.bulgogi, 1), (Fixtures.dakgalbi, 1)], owner: owner)
            XCTAssertEqual((try two.object()["items"] as? [[String: Any]])?.map { $0["hash"] as? String }, [Fixtures.bulgogi, Fixtures.dakgalbi])

            let empty = try await app.send(.POST, "/api/v1/banchan/orders", headers: device(owner))
            XCTAssertEqual(empty.status, .unprocessableEntity)
            XCTAssertEqual(empty.errorCode, "order_empty")
            let duplicate = try await Self.placeOrder(app, [(Fixtures.dakgalbi, 1), (Fixtures.dakgalbi, 1)], owner: owner)
            XCTAssertEqual(duplicate.errorCode, "duplicate_dish")
            let unknown = try await Self.placeOrder(app, [("NOPE1", 1)], owner: owner)
            XCTAssertEqual(unknown.status, .notFound)
            let negative = try await Self.placeOrder(app, [(Fixtures.dakgalbi, -3)], owner: owner)
            XCTAssertEqual(negative.status, .unprocessableEntity)
            let malformed = try await app.send(.POST, "/api/v1/banchan/orders", raw: #"{"items": [{"hash": 5}]}"#, headers: device(owner))
            XCTAssertEqual(malformed.status, .badRequest)
            let unchanged = try await stock(app, Fixtures.dakgalbi)
            XCTAssertEqual(unchanged, stockBefore - 3, "refused orders take nothing")
            let badID = try await app.send(.GET, "/api/v1/banchan/orders/not-a-uuid", headers: device(owner))
            XCTAssertEqual(badID.status, .notFound)
        }
    }

    func testARetriedOrderWithTheSameIdempotencyKeyCreatesOneOrder() async throws {
        try await withTestApp { app in
            let owner = "retry-device-token-01"
            let stockBefore = try await stock(app, Fixtures.bulgogi)
            let first = try await Self.placeOrder(app, [(Fixtures.bulgogi, 1)], owner: owner, key: "checkout-42")
            XCTAssertEqual(first.status, .created)
            let retried = try await Self.placeOrder(app, [(Fixtures.bulgogi, 1)], owner: owner, key: "checkout-42")
            XCTAssertEqual(retried.status, .created)
            XCTAssertEqual(retried.headers.first(name: "Idempotent-Replayed"), "true")
            XCTAssertEqual(try retried.object()["id"] as? String, try first.object()["id"] as? String)
            let stockAfter = try await stock(app, Fixtures.bulgogi)
            XCTAssertEqual(stockAfter, stockBefore - 1)

            let changedBody = try await Self.placeOrder(app, [(Fixtures.bulgogi, 2)], owner: owner, key: "checkout-42")
            XCTAssertEqual(changedBody.status, .unprocessableEntity)
            XCTAssertEqual(changedBody.errorCode, "idempotency_key_reused")
            // A cart checkout cannot reuse the key of an order made from a list of dishes.
            _ = try await app.send(.PUT, "/api/v1/banchan/cart/items/\(Fixtures.dakgalbi)", json: ["quantity": 1], headers: device(owner))
            let cartWithSameKey = try await app.send(.POST, "/api/v1/banchan/orders", headers: ["X-Device-Token": owner, "Idempotency-Key": "checkout-42"])
            XCTAssertEqual(cartWithSameKey.errorCode, "idempotency_key_reused")
            let cartOnce = try await app.send(.POST, "/api/v1/banchan/orders", headers: ["X-Device-Token": owner, "Idempotency-Key": "cart-1"])
            XCTAssertEqual(cartOnce.status, .created)
            let cartAgain = try await app.send(.POST, "/api/v1/banchan/orders", headers: ["X-Device-Token": owner, "Idempotency-Key": "cart-1"])
            XCTAssertEqual(cartAgain.headers.first(name: "Idempotent-Replayed"), "true", "the emptied cart does not matter to a retry")
            XCTAssertEqual(try cartAgain.object()["id"] as? String, try cartOnce.object()["id"] as? String)

            // Keys belong to their owner: another device may use the same text.
            let otherOwner = try await Self.placeOrder(app, [(Fixtures.bulgogi, 1)], owner: "second-device-token-1", key: "checkout-42")
            XCTAssertEqual(otherOwner.status, .created)
            XCTAssertNil(otherOwner.headers.first(name: "Idempotent-Replayed"))

            // Concurrent retries of one request still make one order.
            let results = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await Self.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: owner, key: "checkout-43").object()["id"] as? String }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            XCTAssertEqual(Set(results.compactMap { $0 }).count, 1)
            let orders = try await BanchanOrder.query(on: app.db).filter(\.$idempotencyKey == "checkout-43").count()
            XCTAssertEqual(orders, 1)
        }
    }

    func testHundredConcurrentOrdersForTheLastTenUnitsNeverOversell() async throws {
        try await withTestApp { app in
            let admin = try await adminToken(app)
            try await setStock(app, Fixtures.dakgalbi, 10, admin: admin)
            let statuses = try await withThrowingTaskGroup(of: (UInt, String?).self) { group in
                for index in 0..<100 {
                    group.addTask {
                        let response = try await Self.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: "buyer-device-token-\(1000 + index)")
                        return (response.status.code, response.errorCode)
                    }
                }
                return try await group.reduce(into: [(UInt, String?)]()) { $0.append($1) }
            }
            XCTAssertEqual(statuses.filter { $0.0 == 201 }.count, 10)
            XCTAssertEqual(statuses.filter { $0.0 == 409 && $0.1 == "out_of_stock" }.count, 90, "\(statuses.filter { $0.0 != 201 && $0.0 != 409 })")
            let left = try await stock(app, Fixtures.dakgalbi)
            XCTAssertEqual(left, 0)
            let lines = try await BanchanOrderItem.query(on: app.db).filter(\.$hash == Fixtures.dakgalbi).all()
            XCTAssertEqual(lines.reduce(0) { $0 + $1.quantity }, 10)
            // The section list (served from memory) shows it sold out at once.
            let soldOut = try await Self.listed(app, Fixtures.dakgalbi)
            XCTAssertEqual(soldOut?["soldOut"] as? Bool, true)
        }
    }

    func testCancellingReturnsStockUntilTheOrderShips() async throws {
        try await withTestApp { app in
            let owner = "cancel-device-token-1"
            let admin = try await adminToken(app)
            let before = try await stock(app, Fixtures.bulgogi)
            let first = try await Self.placeOrder(app, [(Fixtures.bulgogi, 3)], owner: owner).object()
            let id = try XCTUnwrap(first["id"] as? String)
            // A reason past the 200 characters the document states is refused, not cut.
            let tooLong = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/cancel", json: ["reason": String(repeating: "가", count: 201)], headers: device(owner))
            XCTAssertEqual(tooLong.status, .unprocessableEntity, tooLong.text)
            XCTAssertEqual(tooLong.errorCode, "invalid_field")
            let untouched = try await stock(app, Fixtures.bulgogi)
            XCTAssertLessThan(untouched, before, "refused: still ordered")
            let cancelled = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/cancel", json: ["reason": "잘못 주문했어요"], headers: device(owner))
            XCTAssertEqual(cancelled.status, .ok, cancelled.text)
            XCTAssertEqual(try cancelled.object()["status"] as? String, "cancelled")
            let restored = try await stock(app, Fixtures.bulgogi)
            XCTAssertEqual(restored, before)
            let relisted = try await Self.listed(app, Fixtures.bulgogi)
            XCTAssertEqual(relisted?["soldOut"] as? Bool, false)
            let twice = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/cancel", headers: device(owner))
            XCTAssertEqual(twice.status, .conflict)
            let stillRestored = try await stock(app, Fixtures.bulgogi)
            XCTAssertEqual(stillRestored, before, "a second cancel returns nothing twice")

            // Paid, then shipped: too late to cancel.
            let second = try await Self.placeOrder(app, [(Fixtures.bulgogi, 1)], owner: owner).object()
            let secondID = try XCTUnwrap(second["id"] as? String)
            let payment = TestPaymentGateway.paymentID(merchantUID: try XCTUnwrap(second["merchantUID"] as? String), amount: try XCTUnwrap(second["total"] as? Int))
            let paid = try await app.send(.POST, "/api/v1/banchan/orders/\(secondID)/payment", json: ["paymentID": payment], headers: device(owner))
            XCTAssertEqual(try paid.object()["status"] as? String, "paid")
            let userShips = try await app.send(.POST, "/api/v1/banchan/orders/\(secondID)/status", json: ["status": "shipped"], headers: device(owner))
            XCTAssertEqual(userShips.status, .unauthorized)
            let shipped = try await app.send(.POST, "/api/v1/banchan/orders/\(secondID)/status", json: ["status": "shipped"], token: admin)
            XCTAssertEqual(try shipped.object()["status"] as? String, "shipped")
            let late = try await app.send(.POST, "/api/v1/banchan/orders/\(secondID)/cancel", headers: device(owner))
            XCTAssertEqual(late.status, .conflict)
            XCTAssertEqual(late.errorCode, "order_not_cancellable")
            let backwards = try await app.send(.POST, "/api/v1/banchan/orders/\(secondID)/status", json: ["status": "paid"], token: admin)
            XCTAssertEqual(backwards.status, .conflict)
        }
    }

    /// A dish as the section list shows it.
    static func listed(_ app: Application, _ hash: String) async throws -> [String: Any]? {
        let page = try await app.send(.GET, "/api/v1/banchan/sections/main/dishes?limit=100")
        return (try page.object()["items"] as? [[String: Any]])?.first { $0["hash"] as? String == hash }
    }

    /// Two server processes on one PostgreSQL database: an order through the first shows the dish
    /// sold out in the second's lists, and an admin's change reaches them too.
    func testAnotherProcessListsTheNewStock() async throws {
        try XCTSkipUnless(TestDatabase.postgresURL != nil, "needs PostgreSQL; the CI's PostgreSQL pass runs it")
        try await withTestApp { first in
            let second = try await Application.make(.testing)
            do {
                try await configureSite(second, settings: first.settings, features: BanchanSite.features)
                try await second.banchanListings.reload(from: second.banchanStore)
                func secondListing() -> BanchanListings.Listing? { second.banchanListings.all(in: .main).first { $0.dish.hash == Fixtures.dakgalbi } }
                let admin = try await adminToken(first)
                try await setStock(first, Fixtures.dakgalbi, 1, admin: admin)
                try await waitUntil { secondListing()?.stock == 1 }
                let placed = try await Self.placeOrder(first, [(Fixtures.dakgalbi, 1)], owner: "first-process-token-01")
                XCTAssertEqual(placed.status, .created)
                try await waitUntil { secondListing()?.isSoldOut == true }
            } catch {
                try? await second.asyncShutdown()
                throw error
            }
            try await second.asyncShutdown()
        }
    }


    func testOrdersLeftUnpaidPastThePaymentWindowGiveTheirStockBack() async throws {
        try await withTestApp { app in
            let owner = "window-device-token-01"
            let before = try await stock(app, Fixtures.dakgalbi)
            let unpaid = try await Self.placeOrder(app, [(Fixtures.dakgalbi, 2)], owner: owner).object()
            let paid = try await Self.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: owner).object()
            let paidID = try XCTUnwrap(paid["id"] as? String)
            let payment = TestPaymentGateway.paymentID(merchantUID: try XCTUnwrap(paid["merchantUID"] as? String), amount: try XCTUnwrap(paid["total"] as? Int))
            _ = try await app.send(.POST, "/api/v1/banchan/orders/\(paidID)/payment", json: ["paymentID": payment], headers: device(owner))

            func sweep(after seconds: TimeInterval) async throws -> Int {
                try await app.withClock(\.banchanEnvironment, ahead: seconds) { try await BanchanService(application: app).expireUnpaidOrders(window: 1800) }
            }
            let early = try await sweep(after: 60)
            XCTAssertEqual(early, 0, "still inside its window")
            let expired = try await sweep(after: 1801)
            XCTAssertEqual(expired, 1)
            let again = try await sweep(after: 1801)
            XCTAssertEqual(again, 0)

            let unpaidNow = try await app.send(.GET, "/api/v1/banchan/orders/\(try XCTUnwrap(unpaid["id"] as? String))", headers: device(owner)).object()
            XCTAssertEqual(unpaidNow["status"] as? String, "cancelled")
            XCTAssertEqual(unpaidNow["cancelReason"] as? String, "payment window expired")
            let paidNow = try await app.send(.GET, "/api/v1/banchan/orders/\(paidID)", headers: device(owner)).object()
            XCTAssertEqual(paidNow["status"] as? String, "paid", "paid orders are never expired")
            let after = try await stock(app, Fixtures.dakgalbi)
            XCTAssertEqual(after, before - 1, "the unpaid order's two units are back")
            let listed = try await Self.listed(app, Fixtures.dakgalbi)
            XCTAssertEqual(listed?["soldOut"] as? Bool, false)

            // Paying an expired order is refused (and the money returned).
            let late = TestPaymentGateway.paymentID(merchantUID: try XCTUnwrap(unpaid["merchantUID"] as? String), amount: try XCTUnwrap(unpaid["total"] as? Int))
            let refused = try await app.send(.POST, "/api/v1/banchan/orders/\(try XCTUnwrap(unpaid["id"] as? String))/payment", json: ["paymentID": late], headers: device(owner))
            XCTAssertEqual(refused.status, .conflict)
            XCTAssertEqual(refused.errorCode, "payment_after_cancellation")
        }
    }

    // MARK: Payments

    func testPaymentsAreAcceptedOnlyForTheExactTotal() async throws {
        try await withTestApp { app in
            let owner = "pay-device-token-0001"
            let before = try await stock(app, Fixtures.dakgalbi)
            let order1 = try await Self.placeOrder(app, [(Fixtures.dakgalbi, 2)], owner: owner).object()
            let id1 = try XCTUnwrap(order1["id"] as? String), merchant1 = try XCTUnwrap(order1["merchantUID"] as? String)

            // A payment made for a smaller amount than the order: refused, the order cancelled, stock back.
            let tampered = TestPaymentGateway.paymentID(merchantUID: merchant1, amount: 100)
            let refused = try await app.send(.POST, "/api/v1/banchan/orders/\(id1)/payment", json: ["paymentID": tampered], headers: device(owner))
            XCTAssertEqual(refused.status, .conflict)
            XCTAssertEqual(refused.errorCode, "payment_amount_mismatch")
            XCTAssertTrue(refused.errorMessage?.contains("100원") == true, refused.text)
            let afterRefusal = try await app.send(.GET, "/api/v1/banchan/orders/\(id1)", headers: device(owner))
            XCTAssertEqual(try afterRefusal.object()["status"] as? String, "cancelled")
            let restored = try await stock(app, Fixtures.dakgalbi)
            XCTAssertEqual(restored, before)

            let order2 = try await Self.placeOrder(app, [(Fixtures.dakgalbi, 2)], owner: owner).object()
            let id2 = try XCTUnwrap(order2["id"] as? String), merchant2 = try XCTUnwrap(order2["merchantUID"] as? String)
            let otherOrders = TestPaymentGateway.paymentID(merchantUID: merchant1, amount: 32_300)
            let misdirected = try await app.send(.POST, "/api/v1/banchan/orders/\(id2)/payment", json: ["paymentID": otherOrders], headers: device(owner))
            XCTAssertEqual(misdirected.errorCode, "payment_for_other_order")
            let unknown = try await app.send(.POST, "/api/v1/banchan/orders/\(id2)/payment", json: ["paymentID": "imp_000"], headers: device(owner))
            XCTAssertEqual(unknown.errorCode, "payment_not_found")
            let missing = try await app.send(.POST, "/api/v1/banchan/orders/\(id2)/payment", raw: "{}", headers: device(owner))
            XCTAssertEqual(missing.status, .badRequest)

            let good = TestPaymentGateway.paymentID(merchantUID: merchant2, amount: 32_300)
            let paid = try await app.send(.POST, "/api/v1/banchan/orders/\(id2)/payment", json: ["paymentID": good], headers: device(owner))
            XCTAssertEqual(paid.status, .ok, paid.text)
            XCTAssertEqual(try paid.object()["status"] as? String, "paid")
            XCTAssertNotNil(try paid.object()["paidAt"] as? String)
            let retried = try await app.send(.POST, "/api/v1/banchan/orders/\(id2)/payment", json: ["paymentID": good], headers: device(owner))
            XCTAssertEqual(retried.status, .ok, "confirming the same payment again is harmless")

            let order3 = try await Self.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: owner).object()
            let failed = TestPaymentGateway.paymentID(merchantUID: try XCTUnwrap(order3["merchantUID"] as? String), amount: 17_400, failed: true)
            let notPaid = try await app.send(.POST, "/api/v1/banchan/orders/\(try XCTUnwrap(order3["id"] as? String))/payment", json: ["paymentID": failed], headers: device(owner))
            XCTAssertEqual(notPaid.errorCode, "payment_not_paid")
        }
    }

    func testPortOneClientAgainstALocalServerSpeakingItsAPI() async throws {
        let portOne = try await FakePortOne.start()
        do {
            try await withTestApp(adjust: { $0.shop.gateway = .portOne(url: portOne.url, apiKey: "key-1", apiSecret: "secret-1") }) { app in
                let owner = "portone-device-token-1"
                let order1 = try await Self.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: owner).object()
                XCTAssertEqual(order1["paymentGateway"] as? String, "portone")
                let id1 = try XCTUnwrap(order1["id"] as? String)
                portOne.record(impUID: "imp_111", merchantUID: try XCTUnwrap(order1["merchantUID"] as? String), amount: 17_400, status: "paid")
                let paid = try await app.send(.POST, "/api/v1/banchan/orders/\(id1)/payment", json: ["paymentID": "imp_111"], headers: device(owner))
                XCTAssertEqual(paid.status, .ok, paid.text)
                XCTAssertEqual(try paid.object()["status"] as? String, "paid")

                // A tampered amount: the order is cancelled and the payment refunded with PortOne.
                let order2 = try await Self.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: owner).object()
                let id2 = try XCTUnwrap(order2["id"] as? String)
                portOne.record(impUID: "imp_222", merchantUID: try XCTUnwrap(order2["merchantUID"] as? String), amount: 1_000, status: "paid")
                let tampered = try await app.send(.POST, "/api/v1/banchan/orders/\(id2)/payment", json: ["paymentID": "imp_222"], headers: device(owner))
                XCTAssertEqual(tampered.errorCode, "payment_amount_mismatch")
                XCTAssertEqual(portOne.cancelled, ["imp_222"])
                let cancelled = try await app.send(.GET, "/api/v1/banchan/orders/\(id2)", headers: device(owner))
                XCTAssertEqual(try cancelled.object()["status"] as? String, "cancelled")

                let order3 = try await Self.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: owner).object()
                let id3 = try XCTUnwrap(order3["id"] as? String)
                let unknown = try await app.send(.POST, "/api/v1/banchan/orders/\(id3)/payment", json: ["paymentID": "imp_404"], headers: device(owner))
                XCTAssertEqual(unknown.errorCode, "payment_not_found")
                portOne.record(impUID: "imp_333", merchantUID: try XCTUnwrap(order3["merchantUID"] as? String), amount: 17_400, status: "ready")
                let ready = try await app.send(.POST, "/api/v1/banchan/orders/\(id3)/payment", json: ["paymentID": "imp_333"], headers: device(owner))
                XCTAssertEqual(ready.errorCode, "payment_not_paid")
                XCTAssertEqual(portOne.cancelled, ["imp_222"], "an unpaid payment has nothing to refund")

                // Paid after the order expired: refunded with PortOne.
                let order4 = try await Self.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: owner).object()
                let id4 = try XCTUnwrap(order4["id"] as? String)
                _ = try await app.withClock(\.banchanEnvironment, ahead: 3600) { try await BanchanService(application: app).expireUnpaidOrders(window: 60) }
                portOne.record(impUID: "imp_444", merchantUID: try XCTUnwrap(order4["merchantUID"] as? String), amount: 17_400, status: "paid")
                let late = try await app.send(.POST, "/api/v1/banchan/orders/\(id4)/payment", json: ["paymentID": "imp_444"], headers: device(owner))
                XCTAssertEqual(late.errorCode, "payment_after_cancellation")
                XCTAssertEqual(portOne.cancelled, ["imp_222", "imp_444"])

                // The access token is fetched once and sent on every call.
                XCTAssertEqual(portOne.tokenRequests, 1)
                XCTAssertEqual(portOne.unauthorizedCalls, 0)

                // PortOne let the token lapse before we expected: one 401, a fresh token, paid.
                portOne.rotateToken()
                let order5 = try await Self.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: owner).object()
                let id5 = try XCTUnwrap(order5["id"] as? String)
                portOne.record(impUID: "imp_555", merchantUID: try XCTUnwrap(order5["merchantUID"] as? String), amount: 17_400, status: "paid")
                let renewed = try await app.send(.POST, "/api/v1/banchan/orders/\(id5)/payment", json: ["paymentID": "imp_555"], headers: device(owner))
                XCTAssertEqual(try renewed.object()["status"] as? String, "paid", renewed.text)
                XCTAssertEqual(portOne.tokenRequests, 2)
                XCTAssertEqual(portOne.unauthorizedCalls, 1)
            }
            // Wrong credentials: the provider refuses the token, nothing is decided (503).
            try await withTestApp(adjust: { $0.shop.gateway = .portOne(url: portOne.url, apiKey: "key-1", apiSecret: "wrong") }) { app in
                let owner = "portone-device-token-2"
                let placed = try await Self.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: owner).object()
                let id = try XCTUnwrap(placed["id"] as? String)
                let response = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": "imp_111"], headers: device(owner))
                XCTAssertEqual(response.status, .serviceUnavailable)
                XCTAssertEqual(response.errorCode, "payment_provider_unavailable")
                let still = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", headers: device(owner))
                XCTAssertEqual(try still.object()["status"] as? String, "awaiting_payment")
            }
        } catch {
            await portOne.stop()
            throw error
        }
        await portOne.stop()
    }

    func testWithoutAPaymentProviderTheShopTakesNoOrders() async throws {
        try await withTestApp(adjust: { $0.shop.gateway = .none }) { app in
            let before = try await app.send(.GET, "/api/v1/banchan/dishes/\(Fixtures.dakgalbi)").object()
            let placed = try await Self.placeOrder(app, [(Fixtures.dakgalbi, 1)], owner: "nopay-device-token-1")
            XCTAssertEqual(placed.status, .serviceUnavailable)
            XCTAssertEqual(placed.errorCode, "orders_closed")
            let after = try await app.send(.GET, "/api/v1/banchan/dishes/\(Fixtures.dakgalbi)").object()
            XCTAssertEqual(after["stock"] as? Int, before["stock"] as? Int, "nothing held")
            let orders = try await app.rowCount("banchan_orders")
            XCTAssertEqual(orders, 0)

            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/shop/dishes/\(Fixtures.dakgalbi)")
            _ = try await browser.post("/shop/cart", form: ["hash": Fixtures.dakgalbi, "quantity": "1"])
            let cart = try await browser.get("/shop/cart")
            XCTAssertTrue(cart.text.contains(#"id="orders-closed""#), "the cart says so instead of offering checkout")
            XCTAssertFalse(cart.text.contains(#"id="to-checkout""#))
            let checkout = try await browser.get("/shop/checkout")
            XCTAssertEqual(checkout.status, .seeOther)
        }
    }
}
