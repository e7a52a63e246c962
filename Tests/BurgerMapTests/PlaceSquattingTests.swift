import Accounts
@testable import BurgerMap
import BurgerMapTesting
import Fluent
import LookForRealBurgerApp
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Probe 2026-11-27, finding 5, and probe 2026-12-05: the first registration of a Kakao id or a
/// loosely matching name decided the name, phone and position everyone saw. A Kakao id now names a
/// place only within 200 m, a name match hands over a place (and attaches a Kakao id) only within
/// 20 m, a registration never changes a stored place (operators get it as a suggestion), and a
/// young account's place is marked unverified.
final class PlaceSquattingTests: XCTestCase {
    struct NewPlace: Encodable { let name: String; let address: String; let lat: Double; let lon: Double; let phone: String? }

    private func suggestions(_ app: Application, token: String) async throws -> [[String: Any]] {
        let response = try await app.send(.GET, "/api/v1/burger-map/place-suggestions", token: token)
        XCTAssertEqual(response.status, .ok, response.text)
        return try XCTUnwrap(try response.object()["items"] as? [[String: Any]])
    }

    /// The probe's first case: the app's user A registers Kakao id K 3 km from the shop with a
    /// phone of theirs; B then adds the real shop with the same id where it is.
    func testAKakaoIdRegisteredFarAwayDoesNotCaptureTheRealShop() async throws {
        try await withLSLPApp { app in
            let squatter = try await LSLPClient.member(app, nick: "선점꾼")
            let owner = try await LSLPClient.member(app, nick: "진짜손님")
            let squatted = try await squatter.addShop("골목 수제버거", kakaoID: "770077", lon: 127.0600, lat: 37.5200, phone: "010-6666-0000")
            let real = try await owner.addShop("골목 수제버거", kakaoID: "770077", lon: 127.0276, lat: 37.4979, phone: "02-555-1234")
            XCTAssertNotEqual(try real.postID(), try squatted.postID(), "3 km apart: the id does not make them one place")
            XCTAssertEqual(real["content4"] as? String, "02-555-1234", "the shop B added shows B's phone")
            let squattedPlace = try await BurgerPlace.query(on: app.db).filter(\.$kakaoID == "770077").first()
            XCTAssertEqual(squattedPlace?.phone, "010-6666-0000", "the holder of the id keeps it, unchanged")

            // Within 200 m the id still names the place (Kakao's pin and the app's GPS differ), and
            // a registration that disagrees changes nothing but is kept for operators.
            let near = try await owner.addShop("골목 수제버거", kakaoID: "770077", lon: 127.0610, lat: 37.5205, phone: "02-555-1234")
            XCTAssertEqual(try near.postID(), try squatted.postID())
            XCTAssertEqual(near["content4"] as? String, "010-6666-0000")

            // A registration the place's rules refuse is refused and kept nowhere.
            let refused = try await owner.call(.POST, "/v1/posts", json: [
                "title": "골목 수제버거", "content": "#", "content1": "127.0276", "content2": "37.4979", "content3": "서울",
                "content4": "전화번호", "content5": "770077", "product_id": "LFRB_BURGER_HOUSE_TEST"])
            XCTAssertEqual(refused.status, .badRequest, refused.text)

            let admin = try await app.signUpAdmin().accessToken
            let listed = try await suggestions(app, token: admin)
            XCTAssertEqual(listed.count, 2, "\(listed)")
            let far = try XCTUnwrap(listed.first { ($0["reasons"] as? [String]) == ["kakao_id_far"] })
            XCTAssertEqual(far["phone"] as? String, "02-555-1234")
            XCTAssertEqual(far["kakaoId"] as? String, "770077")
            XCTAssertEqual((far["place"] as? [String: Any])?["phone"] as? String, "010-6666-0000")
            let close = try XCTUnwrap(listed.first { ($0["reasons"] as? [String]) != ["kakao_id_far"] })
            XCTAssertEqual(close["reasons"] as? [String], ["position", "phone"], "about 100 m off and another phone; the same address")

            // The same disagreement again is not stored twice.
            _ = try await owner.addShop("골목 수제버거", kakaoID: "770077", lon: 127.0610, lat: 37.5205, phone: "02-555-1234")
            let again = try await suggestions(app, token: admin)
            XCTAssertEqual(again.count, 2)

            // Operators only.
            let web = try await app.member("구경꾼")
            let forbidden = try await app.send(.GET, "/api/v1/burger-map/place-suggestions", token: web.token)
            XCTAssertEqual(forbidden.status, .forbidden)
            let anonymous = try await app.send(.GET, "/api/v1/burger-map/place-suggestions")
            XCTAssertEqual(anonymous.status, .unauthorized)
        }
    }

    /// The probe's second case, on the web (2026-11-27 finding 5; 2026-12-05): a fake address and
    /// phone under a shop's name, then the real shop 40 m away. Beyond `samePlaceMeters` (20 m) the
    /// real shop is a place of its own, with its own phone, address and position; operators are
    /// told the two may be one. Within 20 m a registration is handed the place and changes nothing.
    func testANameMatchFortyMetersAwayIsAPlaceOfItsOwnAndFifteenMetersAwayChangesNothing() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()
            let attacker = try await app.member("가짜가게")
            let made = try await app.send(.POST, "/api/v1/burger-map/places", json: NewPlace(
                name: "수제버거 골목집", address: "가짜 주소 9", lat: 37.5000, lon: 127.0300, phone: "010-6666-1111"), token: attacker.token)
            XCTAssertEqual(made.status, .created, made.text)
            let placeID = try XCTUnwrap(try made.object()["id"] as? String)
            XCTAssertEqual(try made.object()["verified"] as? Bool, false, "a two-minute-old account's place is its word only")

            let customer = try await app.member("손님")
            let own = try await app.send(.POST, "/api/v1/burger-map/places", json: NewPlace(
                name: "수제버거 골목집 본점", address: "서울 강남구 진짜로 1", lat: 37.50036, lon: 127.0300, phone: "02-555-1234"), token: customer.token)
            XCTAssertEqual(own.status, .created, "40 m away under the same name: a place of its own. \(own.text)")
            let ownObject = try own.object()
            let ownID = try XCTUnwrap(ownObject["id"] as? String)
            XCTAssertNotEqual(ownID, placeID)
            let detail = try await app.send(.GET, "/api/v1/burger-map/places/\(ownID)").object()
            XCTAssertEqual(detail["phone"] as? String, "02-555-1234", "its own phone, not the first registrant's")
            XCTAssertEqual(detail["address"] as? String, "서울 강남구 진짜로 1")
            XCTAssertEqual(try XCTUnwrap(detail["lat"] as? Double), 37.50036, accuracy: 1e-9)
            var stored = try await BurgerPlace.find(UUID(uuidString: placeID), on: app.db)
            XCTAssertEqual(stored?.phone, "010-6666-1111", "never changed by a registration")
            XCTAssertEqual(stored?.address, "가짜 주소 9")
            let admin = try await app.signUpAdmin().accessToken
            var listed = try await suggestions(app, token: admin)
            XCTAssertEqual(listed.count, 1, "\(listed)")
            XCTAssertEqual(listed.first?["reasons"] as? [String], ["same_name_nearby"], "operators decide whether the two are one")
            XCTAssertEqual((listed.first?["place"] as? [String: Any])?["id"] as? String, placeID)
            XCTAssertEqual(listed.first?["address"] as? String, "서울 강남구 진짜로 1")

            // 15 m from the first place (25 m from the second): handed the first, which changes not at all.
            let neighbour = try await app.member("이웃")
            let found = try await app.send(.POST, "/api/v1/burger-map/places", json: NewPlace(
                name: "수제버거 골목집", address: "서울 강남구 옆길 2", lat: 37.500135, lon: 127.0300, phone: "02-777-0000"), token: neighbour.token)
            XCTAssertEqual(found.status, .ok, "15 m away under the same name: the same place. \(found.text)")
            XCTAssertEqual(try found.object()["id"] as? String, placeID)
            XCTAssertEqual(try found.object()["phone"] as? String, "010-6666-1111")
            stored = try await BurgerPlace.find(UUID(uuidString: placeID), on: app.db)
            XCTAssertEqual(stored?.phone, "010-6666-1111")
            XCTAssertEqual(stored?.address, "가짜 주소 9")
            XCTAssertEqual(try XCTUnwrap(stored?.lat), 37.5000, accuracy: 1e-9)
            let count = try await BurgerPlace.query(on: app.db).count()
            XCTAssertEqual(count, 2)
            listed = try await suggestions(app, token: admin)
            XCTAssertEqual(listed.first?["reasons"] as? [String], ["phone", "address"], "the disagreement waits for operators")
        }
    }

    /// The same through the LookForRealBurger app's route, with Kakao ids: a web place's name 40 m
    /// away is a shop of its own (its phone, its address, the Kakao id); 15 m away is the web place,
    /// which takes a Kakao id then (and only then) and keeps its phone and address.
    func testTheAppsShopFortyMetersFromANamesakeIsItsOwnAndAKakaoIdAttachesOnlyWithinTwentyMeters() async throws {
        try await withLSLPApp { app in
            try await app.removeBurgerCatalog()
            let web = try await app.member("웹가게")
            let made = try await app.send(.POST, "/api/v1/burger-map/places", json: NewPlace(
                name: "수제버거 골목집", address: "가짜 주소 9", lat: 37.5000, lon: 127.0300, phone: "010-6666-1111"), token: web.token)
            XCTAssertEqual(made.status, .created, made.text)
            let placeID = try XCTUnwrap(UUID(uuidString: try XCTUnwrap(try made.object()["id"] as? String)))

            let appUser = try await LSLPClient.member(app, nick: "앱손님")
            let own = try await appUser.addShop("수제버거 골목집", kakaoID: "880088", lon: 127.0300, lat: 37.50036, phone: "02-555-1234")
            XCTAssertNotEqual(try own.postID(), ObjectID.of(placeID), "40 m: a shop of its own")
            XCTAssertEqual(own["content4"] as? String, "02-555-1234", "with the app user's phone")
            XCTAssertEqual(own["content3"] as? String, "서울 강남구 테헤란로 1", "and address")
            XCTAssertEqual(own["content5"] as? String, "880088", "and the Kakao id")
            var webPlace = try await BurgerPlace.find(placeID, on: app.db)
            XCTAssertNil(webPlace?.kakaoID, "40 m is too far to say the web place is Kakao's")
            XCTAssertEqual(webPlace?.phone, "010-6666-1111")

            let between = try await appUser.addShop("수제버거 골목집", kakaoID: "990099", lon: 127.0300, lat: 37.499775, phone: "02-555-1234")
            XCTAssertNotEqual(try between.postID(), ObjectID.of(placeID), "25 m: still a shop of its own")
            webPlace = try await BurgerPlace.find(placeID, on: app.db)
            XCTAssertNil(webPlace?.kakaoID)

            let close = try await appUser.addShop("수제버거 골목집", kakaoID: "770077", lon: 127.0300, lat: 37.500135, phone: "02-555-9999")
            XCTAssertEqual(try close.postID(), ObjectID.of(placeID), "15 m: the web place")
            XCTAssertEqual(close["content4"] as? String, "010-6666-1111", "whose phone a registration never changes")
            XCTAssertEqual(close["content3"] as? String, "가짜 주소 9")
            webPlace = try await BurgerPlace.find(placeID, on: app.db)
            XCTAssertEqual(webPlace?.kakaoID, "770077", "15 m: the place takes the Kakao id")
            XCTAssertEqual(webPlace?.phone, "010-6666-1111")
            XCTAssertEqual(webPlace?.address, "가짜 주소 9")
        }
    }

    /// Unverified until another account reviews there; the maker's own review does not count, and
    /// an account older than three days makes verified places.
    func testAYoungAccountsPlaceIsUnverifiedUntilAnotherAccountReviewsThere() async throws {
        try await withTestApp { app in
            let maker = try await app.member("새내기")
            let placeID = try await app.place(maker.token, "새내기 버거")
            func verified() async throws -> Bool? {
                try await app.send(.GET, "/api/v1/burger-map/places/\(placeID)").object()["verified"] as? Bool
            }
            var current = try await verified()
            XCTAssertEqual(current, false)
            var visitor = CookieBrowser(app: app)
            let page = try await visitor.get("/map/places/\(placeID)")
            XCTAssertTrue(page.text.contains(#"id="place-unverified""#), "the page says so")

            let own = try await app.postReview(maker.token, place: placeID)
            XCTAssertEqual(own.status, .created, own.text)
            current = try await verified()
            XCTAssertEqual(current, false, "the maker's own review is still their word")
            let other = try await app.member("단골")
            let review = try await app.postReview(other.token, place: placeID)
            XCTAssertEqual(review.status, .created, review.text)
            current = try await verified()
            XCTAssertEqual(current, true)
            let near = try await app.send(.GET, "/api/v1/burger-map/places?near=37.5512,126.9882")
            let listed = try XCTUnwrap((try near.object()["items"] as? [[String: Any]])?.first { $0["id"] as? String == placeID.uuidString })
            XCTAssertEqual(listed["verified"] as? Bool, true, "lists follow")
            let after = try await visitor.get("/map/places/\(placeID)")
            XCTAssertFalse(after.text.contains(#"id="place-unverified""#))

            let elder = try await app.member("오래된 손님")
            try await app.age(elder, by: BurgerMapRules.unverifiedCreatorAge + 60)
            let elderPlace = try await app.place(elder.token, "오래된 버거", lat: 37.56, lon: 126.98)
            let elderVerified = try await app.send(.GET, "/api/v1/burger-map/places/\(elderPlace)").object()["verified"] as? Bool
            XCTAssertEqual(elderVerified, true)
        }
    }
}
