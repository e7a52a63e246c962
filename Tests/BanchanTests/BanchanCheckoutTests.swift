@testable import Banchan
import Fluent
import NIOConcurrencyHelpers
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Where an order goes, through the API: the delivery an order is placed with, an account's saved
/// addresses, 새벽배송's cut-off and phone numbers. The pages are `BanchanCheckoutPagesTests`.
final class BanchanCheckoutTests: XCTestCase {
    // MARK: Helpers

    /// A delivery as the API takes it: 김반찬's by 새벽배송, with `changes` over it and `without` left out.
    func delivery(_ changes: [String: Any] = [:], without: [String] = []) -> [String: Any] {
        var fields: [String: Any] = ["recipient": "김반찬", "phone": "01012345678", "postcode": "03900", "address": "서울시 마포구 월드컵로 1",
                                     "addressDetail": "101동 202호", "slot": "dawn", "note": "문 앞에 놓아 주세요"]
        for (key, value) in changes { fields[key] = value }
        for key in without { fields[key] = nil }
        return fields
    }

    func orderBody(_ delivery: [String: Any]?, paymentMethod: String? = nil, items: [(String, Int)] = [(Fixtures.bulgogi, 1)]) throws -> String {
        var body: [String: Any] = ["items": items.map { ["hash": $0.0, "quantity": $0.1] as [String: Any] }]
        if let delivery { body["delivery"] = delivery }
        if let paymentMethod { body["paymentMethod"] = paymentMethod }
        return String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
    }

    func placeOrder(_ app: Application, _ buyer: Member, _ delivery: [String: Any]?, paymentMethod: String? = nil,
                    items: [(String, Int)] = [(Fixtures.bulgogi, 1)]) async throws -> TestingHTTPResponse {
        try await app.send(.POST, "/api/v1/banchan/orders", raw: try orderBody(delivery, paymentMethod: paymentMethod, items: items), token: buyer.token)
    }

    func stock(_ app: Application, _ hash: String) async throws -> Int? {
        try await DishRecord.query(on: app.db).filter(\.$hash == hash).first()?.stock
    }

    /// A JSON body for an address (`isDefault` as a JSON boolean).
    func addressJSON(_ recipient: String, phone: String = "010-2222-3333", isDefault: Bool? = nil) throws -> String {
        var fields: [String: Any] = CheckoutSupport.address(recipient, phone: phone)
        if let isDefault { fields["isDefault"] = isDefault }
        return String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
    }

    func korea(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int) throws -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try XCTUnwrap(TimeZone(identifier: "Asia/Seoul"))
        return try XCTUnwrap(calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute)))
    }

    // MARK: Rules

    func testDawnDeliveryArrivesTheNextMorningBeforeTheCutOffInKorea() throws {
        let schedule = DawnSchedule(cutoffMinutes: 22 * 60)
        XCTAssertEqual(schedule.arrivalDay(placedAt: try korea(2025, 3, 10, 21, 59)), "2025-03-11")
        XCTAssertEqual(schedule.arrivalDay(placedAt: try korea(2025, 3, 10, 22, 0)), "2025-03-12", "at the cut-off: the morning after next")
        XCTAssertEqual(schedule.arrivalDay(placedAt: try korea(2025, 3, 10, 0, 30)), "2025-03-11", "Korea's day, not UTC's (still the 9th there)")
        XCTAssertEqual(schedule.arrivalDay(placedAt: try korea(2025, 1, 31, 21, 0)), "2025-02-01", "across a month end")
        XCTAssertEqual(schedule.arrivalDay(placedAt: try korea(2025, 2, 28, 23, 30)), "2025-03-02")
        XCTAssertEqual(schedule.arrivalDay(placedAt: try korea(2025, 12, 31, 22, 30)), "2026-01-02", "across a year end")

        XCTAssertEqual(DawnSchedule.parse("22:00"), DawnSchedule(cutoffMinutes: 22 * 60))
        XCTAssertEqual(DawnSchedule.parse("07:05")?.cutoffMinutes, 7 * 60 + 5)
        XCTAssertEqual(DawnSchedule.parse("07:05")?.cutoffText, "07:05")
        for bad in ["24:00", "7:00", "22:60", "22", "22:00:00", "ab:cd", ""] {
            XCTAssertNil(DawnSchedule.parse(bad), bad)
        }
    }

    func testPhoneNumbersAreWrittenTheKoreanWay() {
        let cases: [(String, String?)] = [
            ("010-1234-5678", "010-1234-5678"), ("01012345678", "010-1234-5678"), ("+82 10 1234 5678", "010-1234-5678"),
            ("+82-10-1234-5678", "010-1234-5678"), ("0212345678", "02-1234-5678"), ("021234567", "02-123-4567"),
            ("031-123-4567", "031-123-4567"), ("(031) 1234 5678", "031-1234-5678"),
            ("010123", nil), ("abc", nil), ("", nil), ("12345", nil), ("0101234567a", nil), ("020-1234-56789", nil),
        ]
        for (typed, expected) in cases {
            XCTAssertEqual(Delivery.formattedPhone(typed), expected, typed)
        }
    }

    // MARK: Orders through the API

    func testAnOrderKeepsWhereItGoesAndHowItIsPaid() async throws {
        try await withTestApp { app in
            let buyer = try await app.member("구매자")
            let schedule = DawnSchedule(cutoffMinutes: 22 * 60)   // the default cut-off
            let before = schedule.arrivalDay(placedAt: Date())
            let dawn = try await placeOrder(app, buyer, delivery(), paymentMethod: "kakaopay")
            let after = schedule.arrivalDay(placedAt: Date())
            XCTAssertEqual(dawn.status, .created, dawn.text)
            let order = try dawn.object()
            let sent = try XCTUnwrap(order["delivery"] as? [String: Any], dawn.text)
            XCTAssertEqual(sent["recipient"] as? String, "김반찬")
            XCTAssertEqual(sent["phone"] as? String, "010-1234-5678", "kept as 010-1234-5678")
            XCTAssertEqual(sent["postcode"] as? String, "03900")
            XCTAssertEqual(sent["address"] as? String, "서울시 마포구 월드컵로 1")
            XCTAssertEqual(sent["addressDetail"] as? String, "101동 202호")
            XCTAssertEqual(sent["slot"] as? String, "dawn")
            XCTAssertEqual(sent["note"] as? String, "문 앞에 놓아 주세요")
            let arrives = try XCTUnwrap(sent["arrivesOn"] as? String)
            XCTAssertNotNil(arrives.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression), arrives)
            XCTAssertTrue([before, after].contains(arrives), "\(arrives): the next 새벽배송 as of now in Korea")
            XCTAssertEqual(order["paymentMethod"] as? String, "kakaopay")
            let line = try XCTUnwrap((order["items"] as? [[String: Any]])?.first)
            XCTAssertEqual(line["originalPrice"] as? Int, 28_900, "불고기's price before its sale")

            let id = try XCTUnwrap(order["id"] as? String)
            let fetched = try await app.send(.GET, "/api/v1/banchan/orders/\(id)", token: buyer.token).object()
            let stored = try XCTUnwrap(fetched["delivery"] as? [String: Any])
            for key in ["recipient", "phone", "postcode", "address", "addressDetail", "slot", "note", "arrivesOn"] {
                XCTAssertEqual("\(stored[key] ?? "absent")", "\(sent[key] ?? "absent")", key)
            }
            XCTAssertEqual(fetched["paymentMethod"] as? String, "kakaopay")

            // 택배: no morning to arrive on; card when no method is named; a note of 200 characters fits.
            let longNote = String(repeating: "가", count: Delivery.noteLimit)
            let parcel = try await placeOrder(app, buyer, delivery(["slot": "parcel", "note": longNote, "phone": "+82 10 1234 5678"], without: ["postcode"]))
            XCTAssertEqual(parcel.status, .created, parcel.text)
            let parcelOrder = try parcel.object()
            let parcelDelivery = try XCTUnwrap(parcelOrder["delivery"] as? [String: Any])
            XCTAssertTrue(parcelDelivery["arrivesOn"] is NSNull, "택배 has no morning")
            XCTAssertTrue(parcelDelivery["postcode"] is NSNull)
            XCTAssertEqual(parcelDelivery["phone"] as? String, "010-1234-5678", "+82 read as 0")
            XCTAssertEqual(parcelDelivery["note"] as? String, longNote)
            XCTAssertEqual(parcelOrder["paymentMethod"] as? String, "card")

            // The 배민찬 app's orders carry no delivery: both fields are there, as null.
            let plain = try await placeOrder(app, buyer, nil)
            XCTAssertEqual(plain.status, .created, plain.text)
            let plainOrder = try plain.object()
            XCTAssertTrue(plainOrder["delivery"] is NSNull, plain.text)
            XCTAssertTrue(plainOrder["paymentMethod"] is NSNull, plain.text)
            let count = try await CheckoutSupport.orderCount(app, buyer)
            XCTAssertEqual(count, 3)
        }
    }

    func testABadDeliveryIsRefusedAndNothingIsPlaced() async throws {
        try await withTestApp { app in
            let buyer = try await app.member("구매자")
            let stockBefore = try await stock(app, Fixtures.bulgogi)
            let refused: [(changes: [String: Any], without: [String], code: String)] = [
                (["recipient": ""], [], "invalid_recipient"), (["recipient": "   "], [], "invalid_recipient"), ([:], ["recipient"], "invalid_recipient"),
                (["recipient": String(repeating: "김", count: 31)], [], "invalid_recipient"),
                (["phone": "12345"], [], "invalid_phone"), (["phone": "010-1234-567a"], [], "invalid_phone"), ([:], ["phone"], "invalid_phone"),
                (["postcode": "12"], [], "invalid_postcode"), (["postcode": "0390a"], [], "invalid_postcode"),
                (["address": "ab"], [], "invalid_address"), ([:], ["address"], "invalid_address"),
                (["addressDetail": String(repeating: "호", count: 101)], [], "invalid_address_detail"),
                (["note": String(repeating: "가", count: Delivery.noteLimit + 1)], [], "invalid_note"),
            ]
            for (changes, without, code) in refused {
                let answer = try await placeOrder(app, buyer, delivery(changes, without: without))
                XCTAssertEqual(answer.status, .unprocessableEntity, "\(code): \(answer.text)")
                XCTAssertEqual(answer.errorCode, code, answer.text)
            }
            // Values the body cannot even be read with: `req.decodeJSON` answers 400 naming the field.
            let unreadable: [(String, String)] = try [
                (orderBody(delivery(["slot": "rocket"])), "invalid_value"),
                (orderBody(delivery(), paymentMethod: "bitcoin"), "invalid_value"),
                (orderBody(delivery(without: ["slot"])), "missing_field"),
            ]
            for (body, code) in unreadable {
                let answer = try await app.send(.POST, "/api/v1/banchan/orders", raw: body, token: buyer.token)
                XCTAssertEqual(answer.status, .badRequest, answer.text)
                XCTAssertEqual(answer.errorCode, code, body)
            }
            let count = try await CheckoutSupport.orderCount(app, buyer)
            XCTAssertEqual(count, 0, "nothing placed")
            let stored = try await BanchanOrder.query(on: app.db).count()
            XCTAssertEqual(stored, 0)
            let stockAfter = try await stock(app, Fixtures.bulgogi)
            XCTAssertEqual(stockAfter, stockBefore, "no stock taken")
        }
    }

    func testADishThatCannotTravelByDawnRefusesThatSlotEverywhere() async throws {
        try await withTestApp { app in
            let admin = try await app.signUpAdmin().accessToken
            let title = "[테스트] 택배 전용 장조림"
            let created = try await app.send(.POST, "/api/v1/banchan/dishes", raw: """
                {"hash": "HPARCEL1", "section": "side", "title": "\(title)", "salePrice": 5900, "deliveryTypes": ["전국택배"], "stock": 5}
                """, token: admin)
            XCTAssertEqual(created.status, .created, created.text)
            let buyer = try await app.member("구매자")
            let bulgogiBefore = try await stock(app, Fixtures.bulgogi)

            let alone = try await placeOrder(app, buyer, delivery(["slot": "dawn"]), items: [("HPARCEL1", 1)])
            XCTAssertEqual(alone.status, .unprocessableEntity, alone.text)
            XCTAssertEqual(alone.errorCode, "slot_unavailable")
            XCTAssertTrue(alone.errorMessage?.contains(title) ?? false, "names the dish: \(alone.text)")
            let mixed = try await placeOrder(app, buyer, delivery(["slot": "dawn"]), items: [(Fixtures.bulgogi, 1), ("HPARCEL1", 1)])
            XCTAssertEqual(mixed.errorCode, "slot_unavailable", mixed.text)
            var parcelStock = try await stock(app, "HPARCEL1")
            let bulgogiAfter = try await stock(app, Fixtures.bulgogi)
            XCTAssertEqual(parcelStock, 5)
            XCTAssertEqual(bulgogiAfter, bulgogiBefore, "the other dish's units went back with the refused order")
            let none = try await CheckoutSupport.orderCount(app, buyer)
            XCTAssertEqual(none, 0)

            let parcel = try await placeOrder(app, buyer, delivery(["slot": "parcel"]), items: [("HPARCEL1", 1)])
            XCTAssertEqual(parcel.status, .created, parcel.text)
            parcelStock = try await stock(app, "HPARCEL1")
            XCTAssertEqual(parcelStock, 4)

            // Checkout offers only what every dish in the cart can take.
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/shop/dishes/\(Fixtures.bulgogi)")
            _ = try await browser.post("/shop/cart", form: ["hash": "HPARCEL1", "quantity": "1"])
            let checkout = try await browser.get("/shop/checkout")
            XCTAssertEqual(checkout.status, .ok, checkout.text)
            XCTAssertTrue(try openingTag(checkout, "slot-dawn").contains("disabled"))
            XCTAssertTrue(try openingTag(checkout, "slot-parcel").contains("checked"))
            var form = Fixtures.checkoutForm(key: "dawn-refused")
            form["slot"] = "dawn"
            let refused = try await browser.post("/shop/orders", form: form)
            XCTAssertEqual(refused.status, .unprocessableEntity)
            XCTAssertTrue(refused.text.contains("이 배송 방법으로 보낼 수 없는 상품이 있어요"), refused.text)
        }
    }

    func testASavedAddressFillsTheDeliveryOnlyForItsAccount() async throws {
        try await withTestApp { app in
            let buyer = try await app.member("구매자"), other = try await app.member("다른사람")
            let saved = try await app.send(.POST, "/api/v1/banchan/addresses", json: [
                "recipient": "이저장", "phone": "010 9876 5432", "postcode": "48094", "address": "부산시 해운대구 해운대로 2", "addressDetail": "3층",
            ], token: buyer.token)
            XCTAssertEqual(saved.status, .created, saved.text)
            let addressID = try XCTUnwrap(try saved.object()["id"] as? String)

            let placed = try await placeOrder(app, buyer, ["addressId": addressID, "slot": "parcel"])
            XCTAssertEqual(placed.status, .created, placed.text)
            let sent = try XCTUnwrap(try placed.object()["delivery"] as? [String: Any])
            XCTAssertEqual(sent["recipient"] as? String, "이저장")
            XCTAssertEqual(sent["phone"] as? String, "010-9876-5432")
            XCTAssertEqual(sent["postcode"] as? String, "48094")
            XCTAssertEqual(sent["address"] as? String, "부산시 해운대구 해운대로 2")
            XCTAssertEqual(sent["addressDetail"] as? String, "3층")

            let theirs = try await placeOrder(app, other, ["addressId": addressID, "slot": "parcel"])
            XCTAssertEqual(theirs.status, .notFound, theirs.text)
            XCTAssertEqual(theirs.errorCode, "address_not_found")
            let unknown = try await placeOrder(app, buyer, ["addressId": UUID().uuidString, "slot": "parcel"])
            XCTAssertEqual(unknown.errorCode, "address_not_found")
            let otherOrders = try await CheckoutSupport.orderCount(app, other), buyerOrders = try await CheckoutSupport.orderCount(app, buyer)
            XCTAssertEqual([otherOrders, buyerOrders], [0, 1])
        }
    }

    // MARK: Saved addresses through the API

    func testTheAddressBookKeepsOneDefaultAndTenAddresses() async throws {
        try await withTestApp { app in
            let buyer = try await app.member("구매자"), other = try await app.member("다른사람")
            let path = "/api/v1/banchan/addresses"
            func create(_ body: String, _ member: Member) async throws -> [String: Any] {
                let answer = try await app.send(.POST, path, raw: body, token: member.token)
                XCTAssertEqual(answer.status, .created, answer.text)
                return try answer.object()
            }
            let first = try await create(try addressJSON("첫째", phone: "01011112222"), buyer)
            XCTAssertEqual(first["isDefault"] as? Bool, true, "the first saved is the default")
            XCTAssertEqual(first["phone"] as? String, "010-1111-2222")
            let second = try await create(try addressJSON("둘째", isDefault: true), buyer)
            XCTAssertEqual(second["isDefault"] as? Bool, true)
            let third = try await create(try addressJSON("셋째"), buyer)
            XCTAssertEqual(third["isDefault"] as? Bool, false)
            let ids = try [first, second, third].map { try XCTUnwrap($0["id"] as? String) }

            var listed = try await CheckoutSupport.addresses(app, buyer)
            XCTAssertEqual(listed.compactMap { $0["id"] as? String }, [ids[1], ids[2], ids[0]], "the default first, then newest first")
            XCTAssertEqual(listed.compactMap { $0["isDefault"] as? Bool }, [true, false, false], "the second took the default over")

            let changed = try await app.send(.PUT, "\(path)/\(ids[0])", json: [
                "recipient": "박바뀜", "phone": "0212345678", "address": "서울시 종로구 종로 1", "addressDetail": "",
            ], token: buyer.token)
            XCTAssertEqual(changed.status, .ok, changed.text)
            let changedObject = try changed.object()
            XCTAssertEqual(changedObject["recipient"] as? String, "박바뀜")
            XCTAssertEqual(changedObject["phone"] as? String, "02-1234-5678")
            XCTAssertTrue(changedObject["postcode"] is NSNull)
            XCTAssertEqual(changedObject["isDefault"] as? Bool, false)

            // Someone else's address is not found, and stays as it was.
            let theirPut = try await app.send(.PUT, "\(path)/\(ids[2])", raw: try addressJSON("가로챔"), token: other.token)
            XCTAssertEqual(theirPut.status, .notFound)
            XCTAssertEqual(theirPut.errorCode, "address_not_found")
            let theirDefault = try await app.send(.PUT, "\(path)/\(ids[2])", raw: try addressJSON("가로챔", isDefault: true), token: other.token)
            XCTAssertEqual(theirDefault.status, .notFound)
            let theirDelete = try await app.send(.DELETE, "\(path)/\(ids[2])", token: other.token)
            XCTAssertEqual(theirDelete.status, .notFound)
            XCTAssertEqual(theirDelete.errorCode, "address_not_found")
            let notAnID = try await app.send(.DELETE, "\(path)/nope", token: buyer.token)
            XCTAssertEqual(notAnID.status, .notFound)
            listed = try await CheckoutSupport.addresses(app, buyer)
            XCTAssertEqual(listed.compactMap { $0["recipient"] as? String }, ["둘째", "셋째", "박바뀜"])
            let othersList = try await CheckoutSupport.addresses(app, other)
            XCTAssertTrue(othersList.isEmpty)

            // Removing the default makes the newest remaining one the default.
            let removed = try await app.send(.DELETE, "\(path)/\(ids[1])", token: buyer.token)
            XCTAssertEqual(removed.status, .noContent, removed.text)
            listed = try await CheckoutSupport.addresses(app, buyer)
            XCTAssertEqual(listed.compactMap { $0["id"] as? String }, [ids[2], ids[0]])
            XCTAssertEqual(listed.compactMap { $0["isDefault"] as? Bool }, [true, false])

            let badPhone = try await app.send(.POST, path, raw: try addressJSON("전화오류", phone: "12345"), token: buyer.token)
            XCTAssertEqual(badPhone.status, .unprocessableEntity)
            XCTAssertEqual(badPhone.errorCode, "invalid_phone")

            // Ten at most.
            for n in 2..<10 { _ = try await create(try addressJSON("주소\(n)"), buyer) }   // 2 kept + 8
            let eleventh = try await app.send(.POST, path, raw: try addressJSON("열한째"), token: buyer.token)
            XCTAssertEqual(eleventh.status, .conflict, eleventh.text)
            XCTAssertEqual(eleventh.errorCode, "address_limit")
            let full = try await CheckoutSupport.addresses(app, buyer)
            XCTAssertEqual(full.count, 10)
            XCTAssertEqual(full.filter { $0["isDefault"] as? Bool == true }.count, 1, "one default")

            // A device without an account keeps no addresses.
            let device: HTTPHeaders = .device(String(repeating: "d", count: 32))
            let deviceList = try await app.send(.GET, path, headers: device)
            XCTAssertEqual(deviceList.status, .unauthorized, deviceList.text)
            let deviceSave = try await app.send(.POST, path, raw: try addressJSON("기기"), headers: device)
            XCTAssertEqual(deviceSave.status, .unauthorized, deviceSave.text)
        }
    }
}

/// What the checkout tests (these and `BanchanCheckoutPagesTests`) read and send alike.
enum CheckoutSupport {
    static func orderCount(_ app: Application, _ member: Member) async throws -> Int {
        let list = try await app.send(.GET, "/api/v1/banchan/orders", token: member.token)
        XCTAssertEqual(list.status, .ok, list.text)
        return try XCTUnwrap(try list.object()["items"] as? [Any]).count
    }

    /// The member's saved addresses as the API lists them (one page: `nextCursor` null).
    static func addresses(_ app: Application, _ member: Member) async throws -> [[String: Any]] {
        let list = try await app.send(.GET, "/api/v1/banchan/addresses", token: member.token)
        XCTAssertEqual(list.status, .ok, list.text)
        let object = try list.object()
        XCTAssertTrue(object["nextCursor"] is NSNull, "ten at most: one page")
        return try XCTUnwrap(object["items"] as? [[String: Any]])
    }

    /// An address as the address form (and, with `addressJSON`, the API) sends it.
    static func address(_ recipient: String, phone: String = "010-2222-3333") -> [String: String] {
        ["recipient": recipient, "phone": phone, "postcode": "04524", "address": "서울시 중구 세종대로 110", "addressDetail": "2층"]
    }
}

extension BanchanCheckoutTests {
    /// A retry with the same `Idempotency-Key` is the same order only when it asks for the same
    /// delivery; another address or slot under that key is refused, and nothing is placed.
    /// The address book is kept per account (`addressBooks`): a change another instance announced
    /// shows on the next read, a change behind the memory's back does not until told.
    func testAKeptAddressBookFollowsItsAnnouncements() async throws {
        try await withTestApp { app in
            let buyer = try await app.member("구매자")
            let created = try await app.send(.POST, "/api/v1/banchan/addresses", raw: try addressJSON("처음"), token: buyer.token)
            XCTAssertEqual(created.status, .created, created.text)
            // Announcements of the writes above come back from the bus too: let them land first.
            try await Task.sleep(for: .milliseconds(100))
            var listed = try await CheckoutSupport.addresses(app, buyer)
            XCTAssertEqual(listed.compactMap { $0["recipient"] as? String }, ["처음"])
            try await app.db.sql.update("banchan_addresses").set("recipient", to: SQLBind("바뀜"))
                .where("user_id", .equal, SQLBind(buyer.id)).run()
            listed = try await CheckoutSupport.addresses(app, buyer)
            XCTAssertEqual(listed.compactMap { $0["recipient"] as? String }, ["처음"], "kept until told")
            await app.events.publish(buyer.id.uuidString, to: "banchan.addresses")
            try await Task.sleep(for: .milliseconds(50))
            listed = try await CheckoutSupport.addresses(app, buyer)
            XCTAssertEqual(listed.compactMap { $0["recipient"] as? String }, ["바뀜"], "another instance's change shows")
        }
    }

    func testAReplayedKeyMustAskForTheSameDelivery() async throws {
        try await withTestApp { app in
            let buyer = try await app.member("배송확인")
            func place(_ asked: [String: Any]?) async throws -> TestingHTTPResponse {
                try await app.send(.POST, "/api/v1/banchan/orders", raw: try orderBody(asked), token: buyer.token,
                                   headers: ["Idempotency-Key": "checkout-delivery-1"])
            }
            let first = try await place(delivery())
            XCTAssertEqual(first.status, .created, first.text)
            let same = try await place(delivery())
            XCTAssertEqual(same.headers.first(name: "Idempotent-Replayed"), "true", same.text)
            XCTAssertEqual(try same.object()["id"] as? String, try first.object()["id"] as? String)
            for changed in [delivery(["address": "부산시 해운대구 우동 1"]), delivery(["slot": "parcel"]), delivery(["note": "경비실에 맡겨 주세요"]), nil] {
                let reused = try await place(changed)
                XCTAssertEqual(reused.status, .unprocessableEntity, reused.text)
                XCTAssertEqual(reused.errorCode, "idempotency_key_reused")
            }
            let orders = try await BanchanOrder.query(on: app.db).count()
            XCTAssertEqual(orders, 1, "nothing more was placed")
        }
    }

    /// An order placed as midnight passes in Korea: its number's day and its 새벽배송 morning come
    /// from one reading of the shop's clock (issue 59). The clock here moves a second on every
    /// reading, from 23:59:59 KST: a second reading for the number would name the next day.
    func testAnOrdersNumberAndMorningAgreeAcrossMidnightInKorea() async throws {
        try await withTestApp { app in
            let buyer = try await app.member("자정구매자")
            // 2026-12-06 23:59:59 in Korea (14:59:59 UTC).
            let lastSecond = Date(timeIntervalSince1970: 1_796_569_199)
            XCTAssertEqual(BanchanStore.orderDay(lastSecond), "20261206")
            let readings = NIOLockedValueBox(0)
            app.banchanEnvironment.now = {
                let reading = readings.withLockedValue { count -> Int in
                    defer { count += 1 }
                    return count
                }
                return lastSecond.addingTimeInterval(Double(reading))
            }
            let placed = try await placeOrder(app, buyer, delivery())
            XCTAssertEqual(placed.status, .created, placed.text)
            let order = try placed.object()
            let number = try XCTUnwrap(order["number"] as? String)
            let arrives = try XCTUnwrap((order["delivery"] as? [String: Any])?["arrivesOn"] as? String)
            XCTAssertTrue(number.hasPrefix("20261206-"), "placed on the 6th: \(number)")
            XCTAssertEqual(arrives, "2026-12-08", "placed on the 6th after the 22:00 cut-off: the morning of the 8th")
            // Its time is that reading too (the store writes the row; no model stamps its own).
            XCTAssertEqual(order["createdAt"] as? String, "2026-12-06T14:59:59Z")
            XCTAssertGreaterThan(readings.withLockedValue { $0 }, 0, "the order read the shop's clock")
        }
    }

    /// Five years on, an order forgets who received it and where; the books keep the rest, and a
    /// younger order keeps everything.
    func testOrdersForgetWhoReceivedThemAfterFiveYears() async throws {
        try await withTestApp { app in
            let buyer = try await app.member("오래된주문")
            let old = try await placeOrder(app, buyer, delivery())
            let recent = try await placeOrder(app, buyer, delivery(["recipient": "최근반찬"]))
            let oldID = try XCTUnwrap(UUID(uuidString: try XCTUnwrap(try old.object()["id"] as? String)))
            let recentID = try XCTUnwrap(try recent.object()["id"] as? String)
            let now = Date()
            let sixYearsAgo = try XCTUnwrap(Calendar(identifier: .gregorian).date(byAdding: .year, value: -6, to: now))
            try await app.db.sql.update(BanchanOrder.schema).set(BanchanStore.OrderColumn.createdAt.stringValue, to: SQLBind(sixYearsAgo))
                .where(SQLIdentifier(BanchanStore.OrderColumn.id), .equal, SQLBind(oldID)).run()

            let service = BanchanService(application: app)
            let forgotten = try await service.forgetOldDeliveryDetails()
            XCTAssertEqual(forgotten, 1)
            let again = try await service.forgetOldDeliveryDetails()
            XCTAssertEqual(again, 0, "nothing is blanked twice")

            let kept = try await app.send(.GET, "/api/v1/banchan/orders/\(oldID.uuidString.lowercased())", token: buyer.token).object()
            let keptDelivery = try XCTUnwrap(kept["delivery"] as? [String: Any])
            XCTAssertNotEqual(keptDelivery["recipient"] as? String, "김반찬")
            XCTAssertNotEqual(keptDelivery["phone"] as? String, "010-1234-5678")
            XCTAssertFalse("\(keptDelivery["address"] ?? "")".contains("월드컵로"))
            XCTAssertEqual(keptDelivery["slot"] as? String, "dawn", "how it went stays")
            XCTAssertEqual(kept["total"] as? Int, try old.object()["total"] as? Int, "the amounts stay for the books")
            let young = try await app.send(.GET, "/api/v1/banchan/orders/\(recentID)", token: buyer.token).object()
            XCTAssertEqual((young["delivery"] as? [String: Any])?["recipient"] as? String, "최근반찬")
        }
    }
}
