@testable import MenuGame
import Platform
import WhatWeEatTesting
import XCTVapor

/// 우리뭐먹지's "주변 식당 안내" (seed 000): restaurants near the person, found by the menu's name
/// through Kakao Local (a local stand-in serving its documented JSON) — nearest first with their
/// distances, one look-up per menu and ~500 m square for ten minutes, a budget per network, and
/// nothing broken without a key or when Kakao fails.
final class MenuGameNearbyTests: XCTestCase {
    static let cityHall = (lat: 37.5665, lon: 126.9780)
    static let places = [
        FakeKakaoLocal.Place(id: "101", name: "시청 김치찌개집", phone: "02-111-2222", address: "서울 중구 태평로1가 31", roadAddress: "서울 중구 세종대로 110",
                             lat: 37.5660, lon: 126.9790),
        FakeKakaoLocal.Place(id: "102", name: "광화문 김치찌개", address: "서울 종로구 세종로 1", lat: 37.5700, lon: 126.9768),
        FakeKakaoLocal.Place(id: "103", name: "부산 김치찌개", address: "부산 중구", lat: 35.1000, lon: 129.0300),
        FakeKakaoLocal.Place(id: "104", name: "서울 된장찌개", address: "서울 중구", lat: 37.5662, lon: 126.9781),
    ]

    private func withKakao(_ body: (Application, FakeKakaoLocal) async throws -> Void) async throws {
        let kakao = try await FakeKakaoLocal.start(places: Self.places)
        do {
            try await withTestApp(adjust: { settings in
                settings.kakao.restAPIKey = kakao.key
                settings.kakao.apiURL = kakao.url
            }) { app in try await body(app, kakao) }
        } catch {
            await kakao.stop()
            throw error
        }
        await kakao.stop()
    }

    private func nearby(_ app: Application, _ menu: String, lat: Double = cityHall.lat, lon: Double = cityHall.lon, language: String = "ko") async throws -> [String: Any] {
        let response = try await app.send(.GET, "/api/v1/menu-game/menus/\(menu)/nearby?lat=\(lat)&lon=\(lon)", headers: ["Accept-Language": language])
        XCTAssertEqual(response.status, .ok, response.text)
        return try response.object()
    }

    func testKakaosRestaurantsForTheMenuNearestFirst() async throws {
        try await withKakao { app, kakao in
            let answer = try await nearby(app, "kimchi-jjigae")
            XCTAssertEqual(answer["kakao"] as? String, "ok")
            XCTAssertEqual(answer["name"] as? String, "김치찌개")
            let places = try XCTUnwrap(answer["places"] as? [[String: Any]])
            XCTAssertEqual(places.map { $0["name"] as? String }, ["시청 김치찌개집", "광화문 김치찌개"], "the menu's restaurants within reach, nearest first")
            let first = try XCTUnwrap(places.first)
            XCTAssertEqual(first["distanceMeters"] as? Int, Int(Coordinate(unchecked: 37.5660, 126.9790).distanceMeters(to: Coordinate(unchecked: 37.5665, 126.9780)).rounded()),
                           "the distance from the person, not from where Kakao was asked")
            XCTAssertEqual(first["address"] as? String, "서울 중구 세종대로 110", "the road address where there is one")
            XCTAssertEqual(first["phone"] as? String, "02-111-2222")
            XCTAssertEqual(first["url"] as? String, "http://place.map.kakao.com/101")
            XCTAssertEqual(first["source"] as? String, "kakao")
            XCTAssertNil(places.last?["phone"] as? String, "no phone: none shown")
            let links = try XCTUnwrap(answer["links"] as? [String: String])
            XCTAssertEqual(links["kakaoMap"], "https://map.kakao.com/link/search/%EA%B9%80%EC%B9%98%EC%B0%8C%EA%B0%9C")

            let asked = try XCTUnwrap(kakao.requests.first)
            XCTAssertEqual(asked["query"], "김치찌개")
            XCTAssertEqual(asked["category_group_code"], "FD6")
            XCTAssertEqual(asked["radius"], "2000")
            XCTAssertEqual(asked["sort"], "distance")

            // A classmate 100 m away: the same square, the kept answer.
            _ = try await nearby(app, "kimchi-jjigae", lat: Self.cityHall.lat + 0.0005, lon: Self.cityHall.lon + 0.0002)
            XCTAssertEqual(kakao.requests.count, 1, "one look-up per menu and square")
            // Another menu, or ten minutes later: asked again.
            _ = try await nearby(app, "bibimbap")
            XCTAssertEqual(kakao.requests.count, 2)
            try await app.withClock(\.menuGameEnvironment, ahead: 601) {
                _ = try await nearby(app, "kimchi-jjigae")
            }
            XCTAssertEqual(kakao.requests.count, 3, "kept ten minutes")

            // The name in the reader's language; the search stays Korean (Kakao's places are).
            let english = try await nearby(app, "kimchi-jjigae", language: "en")
            XCTAssertEqual(english["name"] as? String, "Kimchi stew")
        }
    }

    func testABudgetPerNetworkAndAKakaoThatFails() async throws {
        try await withKakao { app, kakao in
            // 120 look-ups a minute a network (a class each asking for a menu of their own): each
            // here in a square of its own.
            let budget = NearbyRules.lookupsPerNetworkPerMinute
            XCTAssertEqual(budget, 120)
            for step in 0..<budget {
                let answer = try await nearby(app, "kimchi-jjigae", lat: 36.0 + Double(step) * 0.01)
                XCTAssertEqual(answer["kakao"] as? String, "ok", "look-up \(step + 1)")
            }
            let spent = try await nearby(app, "kimchi-jjigae", lat: 37.80 + 0.5)
            XCTAssertEqual(spent["kakao"] as? String, "busy", "the network's look-ups are spent: no error, the links remain")
            XCTAssertNotNil(spent["links"])
            XCTAssertEqual(kakao.requests.count, budget)
            let kept = try await nearby(app, "kimchi-jjigae", lat: 36.0)
            XCTAssertEqual(kept["kakao"] as? String, "ok", "a kept answer costs no look-up")

            try await app.withClock(\.menuGameEnvironment, ahead: 61) {
                kakao.fail(true)
                let failed = try await nearby(app, "kimchi-jjigae", lat: 38.45)
                XCTAssertEqual(failed["kakao"] as? String, "unavailable")
                XCTAssertEqual((failed["places"] as? [Any])?.count, 0)
            }
        }
    }

    /// A place's page goes into an `href`: only Kakao's own web addresses are taken as they are.
    func testOnlyKakaosWebAddressesAreLinked() throws {
        func place(url: String?, id: String = "123") throws -> KakaoPlace? {
            var document: [String: String] = ["id": id, "place_name": "집", "x": "126.97", "y": "37.56"]
            document["place_url"] = url
            return try KakaoLocal.places(in: JSONSerialization.data(withJSONObject: ["documents": [document]])).first
        }
        XCTAssertEqual(try place(url: "http://place.map.kakao.com/123")?.url, "http://place.map.kakao.com/123")
        for hostile in ["javascript:alert(1)", "https://evil.example/kakao.com", "https://kakao.com.evil.example/", "data:text/html,x"] {
            XCTAssertEqual(try place(url: hostile)?.url, "https://place.map.kakao.com/123", hostile)
        }
        XCTAssertEqual(try place(url: nil, id: "1\"><script>")?.url, "https://map.kakao.com/", "an id that is not one is not put in a URL")
    }

    func testWithoutAKeyNothingIsAskedAndBadInputIsRefused() async throws {
        try await withTestApp { app in
            let answer = try await nearby(app, "kimchi-jjigae")
            XCTAssertEqual(answer["kakao"] as? String, "off")
            XCTAssertEqual((answer["places"] as? [Any])?.count, 0)
            XCTAssertNotNil((answer["links"] as? [String: String])?["naverMap"])
            let ready = try await app.send(.GET, "/readyz").object()
            XCTAssertEqual((ready["details"] as? [String: String])?["kakao_local"], "off: no KAKAO_REST_API_KEY")

            for (path, status, code) in [
                ("/api/v1/menu-game/menus/kimchi-jjigae/nearby?lon=126.97", HTTPStatus.badRequest, "missing_field"),
                ("/api/v1/menu-game/menus/kimchi-jjigae/nearby?lat=abc&lon=126.97", .badRequest, "invalid_number"),
                ("/api/v1/menu-game/menus/kimchi-jjigae/nearby?lat=95&lon=126.97", .unprocessableEntity, "invalid_coordinate"),
                ("/api/v1/menu-game/menus/no-such-menu/nearby?lat=37.5&lon=126.97", .notFound, "menu_not_found"),
            ] {
                let response = try await app.send(.GET, path)
                XCTAssertEqual(response.status, status, path)
                XCTAssertEqual(response.errorCode, code, path)
            }
        }
    }
}
