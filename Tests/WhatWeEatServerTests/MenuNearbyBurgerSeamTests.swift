import BurgerMap
import MenuGame
import Platform
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// The seam between the menu game and the burger map (issue 60): "햄버거", "수제버거" and the other
/// burger menus list our burger places first, then Kakao's; other menus never list them.
final class MenuNearbyBurgerSeamTests: XCTestCase {
    static let gangnam = (lat: 37.4998, lon: 127.0289)

    func testABurgerMenuListsOurBurgerPlacesFirst() async throws {
        let kakao = try await FakeKakaoLocal.start(places: [
            FakeKakaoLocal.Place(id: "201", name: "강남 햄버거 공방", address: "서울 강남구 역삼동 1", lat: 37.4999, lon: 127.0290),
            FakeKakaoLocal.Place(id: "202", name: "강남 김치찌개", address: "서울 강남구 역삼동 2", lat: 37.4997, lon: 127.0287),
        ])
        do {
            try await withTestApp(adjust: { settings in
                settings.kakao.restAPIKey = kakao.key
                settings.kakao.apiURL = kakao.url
            }) { app in
                let burger = try await app.send(.GET, "/api/v1/menu-game/menus/hamburger/nearby?lat=\(Self.gangnam.lat)&lon=\(Self.gangnam.lon)").object()
                let places = try XCTUnwrap(burger["places"] as? [[String: Any]])
                let sources = places.map { $0["source"] as? String ?? "" }
                XCTAssertEqual(sources.first, "burger_map", "our burger places come first")
                XCTAssertTrue(sources.contains("kakao"), "then Kakao's: \(places.map { $0["name"] ?? "" })")
                XCTAssertEqual(sources.firstIndex(of: "kakao").map { sources[$0...].allSatisfy { $0 == "kakao" } }, true, "ours, then theirs")
                let ours = try XCTUnwrap(places.first)
                XCTAssertEqual(ours["name"] as? String, "더블치즈버거 하우스", "the catalog's burger place nearest Gangnam station")
                XCTAssertTrue((ours["url"] as? String)?.contains("/map/places/") == true, "our place's page")
                let distances = places.filter { $0["source"] as? String == "burger_map" }.compactMap { $0["distanceMeters"] as? Int }
                XCTAssertEqual(distances, distances.sorted(), "ours nearest first too")
                XCTAssertEqual(kakao.requests.first?["query"], "햄버거")

                for menu in ["gourmet-burger"] {
                    let other = try await app.send(.GET, "/api/v1/menu-game/menus/\(menu)/nearby?lat=\(Self.gangnam.lat)&lon=\(Self.gangnam.lon)").object()
                    XCTAssertEqual((other["places"] as? [[String: Any]])?.first?["source"] as? String, "burger_map", menu)
                }
                let stew = try await app.send(.GET, "/api/v1/menu-game/menus/kimchi-jjigae/nearby?lat=\(Self.gangnam.lat)&lon=\(Self.gangnam.lon)").object()
                let stewPlaces = try XCTUnwrap(stew["places"] as? [[String: Any]])
                XCTAssertEqual(stewPlaces.map { $0["name"] as? String }, ["강남 김치찌개"], "a stew lists no burger place")
            }
        } catch {
            await kakao.stop()
            throw error
        }
        await kakao.stop()
    }
}
