import Accounts
@testable import BurgerMap
import BurgerMapTesting
import Fluent
import LookForRealBurgerApp
import Platform
import WhatWeEatTesting
import XCTVapor

/// The burger map's places over HTTP: registering (one place per name within 20 m), map boxes
/// with pins or clusters, nearest first, search by name or address, bad input and permissions.
/// Tests that count what they add start from a map without the seeded catalog.
final class BurgerMapPlacesTests: XCTestCase {
    struct Place: Decodable { let id: UUID; let name: String; let distanceMeters: Double?; let reviewCount: Int; let averageRating: Double? }
    struct Cluster: Decodable { let lat: Double; let lon: Double; let count: Int }
    struct Places: Decodable { let items: [Place]; let clusters: [Cluster] }

    func add(_ app: Application, _ token: String, _ name: String, lat: Double, lon: Double, address: String = "서울 중구") async throws -> TestingHTTPResponse {
        try await app.send(.POST, "/api/v1/burger-map/places", raw: #"{"name": "\#(name)", "address": "\#(address)", "lat": \#(lat), "lon": \#(lon)}"#, token: token)
    }

    func testRegisteringFindsTheSamePlaceWithinTwentyMeters() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()
            let anonymous = try await app.send(.POST, "/api/v1/burger-map/places", raw: #"{"name": "버거랩", "address": "서울", "lat": 37.5, "lon": 127.0}"#)
            XCTAssertEqual(anonymous.status, .unauthorized)
            let token = try await app.signUp().accessToken
            let first = try await add(app, token, "더블 치즈버거", lat: 37.5663, lon: 126.9779)
            XCTAssertEqual(first.status, .created, first.text)
            let placeID = try first.json(Place.self).id
            let again = try await add(app, token, "더블치즈버거", lat: 37.5664, lon: 126.9779)   // 11 m north, spaces differ
            XCTAssertEqual(again.status, .ok)
            XCTAssertEqual(try again.json(Place.self).id, placeID)
            let beside = try await add(app, token, "더블치즈버거", lat: 37.5660, lon: 126.9779)  // 33 m south
            XCTAssertEqual(beside.status, .created, "beyond 20 m the same name is a place of its own")
            let farther = try await add(app, token, "더블치즈버거", lat: 37.5680, lon: 126.9779)  // 190 m north
            XCTAssertEqual(farther.status, .created)
            let other = try await add(app, token, "버거랩", lat: 37.5663, lon: 126.9779)
            XCTAssertEqual(other.status, .created)
            let count = try await BurgerPlace.query(on: app.db).count()
            XCTAssertEqual(count, 4)

            let detail = try await app.send(.GET, "/api/v1/burger-map/places/\(placeID)")
            XCTAssertEqual(detail.status, .ok)
            let object = try detail.object()
            XCTAssertTrue(object["averageRating"] is NSNull && object["photoURL"] is NSNull, "explicit nulls before reviews")
            XCTAssertEqual(object["score"] as? Double, PlaceRanking.priorMean)
            for missing in ["/api/v1/burger-map/places/\(UUID())", "/api/v1/burger-map/places/not-a-uuid"] {
                let response = try await app.send(.GET, missing)
                XCTAssertEqual(response.status, .notFound)
                XCTAssertEqual(response.errorCode, "place_not_found")
            }
        }
    }

    func testBadPlacesAreRefusedAndWriteNothing() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()
            let token = try await app.signUp().accessToken
            let cases: [(String, HTTPStatus, String)] = [
                (#"{"name": "a", "address": "b", "lat": 91, "lon": 127}"#, .unprocessableEntity, "invalid_coordinate"),
                (#"{"name": "a", "address": "b", "lat": 37, "lon": -181}"#, .unprocessableEntity, "invalid_coordinate"),
                (#"{"name": " ", "address": "b", "lat": 37, "lon": 127}"#, .unprocessableEntity, "invalid_place_name"),
                (#"{"name": "a", "address": "", "lat": 37, "lon": 127}"#, .unprocessableEntity, "invalid_place_address"),
                (#"{"name": "a", "address": "b", "lat": 37, "lon": 127, "phone": "call me"}"#, .unprocessableEntity, "invalid_place_phone"),
                (#"{"address": "b", "lat": 37, "lon": 127}"#, .badRequest, "missing_field"),
                (#"{"name": "a", "address": "b", "lat": "north", "lon": 127}"#, .badRequest, "invalid_type"),
            ]
            for (body, status, code) in cases {
                let response = try await app.send(.POST, "/api/v1/burger-map/places", raw: body, token: token)
                XCTAssertEqual(response.status, status, body)
                XCTAssertEqual(response.errorCode, code, body)
            }
            let count = try await BurgerPlace.query(on: app.db).count()
            XCTAssertEqual(count, 0)
        }
    }

    func testABoxShowsItsPlacesAndSearchFindsKoreanSubstrings() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()
            let token = try await app.signUp().accessToken
            _ = try await add(app, token, "더블치즈버거", lat: 37.5663, lon: 126.9779, address: "서울 중구 세종대로")
            _ = try await add(app, token, "Burger Lab", lat: 37.5700, lon: 126.9830, address: "서울 종로구")
            _ = try await add(app, token, "해운대 수제버거", lat: 35.1587, lon: 129.1604, address: "부산 해운대구")
            let seoul = try await app.send(.GET, "/api/v1/burger-map/places?bbox=126.9,37.5,127.1,37.6").json(Places.self)
            XCTAssertEqual(Set(seoul.items.map(\.name)), ["더블치즈버거", "Burger Lab"])
            XCTAssertEqual(seoul.clusters.count, 0)
            let cheese = try await app.send(.GET, "/api/v1/burger-map/places?bbox=126.9,37.5,127.1,37.6&q=%EC%B9%98%EC%A6%88").json(Places.self)
            XCTAssertEqual(cheese.items.map(\.name), ["더블치즈버거"], "치즈 finds 더블치즈버거")
            let byAddress = try await app.send(.GET, "/api/v1/burger-map/places?bbox=126.9,37.5,127.1,37.6&q=%EC%A2%85%EB%A1%9C").json(Places.self)
            XCTAssertEqual(byAddress.items.map(\.name), ["Burger Lab"], "종로 matches an address")
            let caseless = try await app.send(.GET, "/api/v1/burger-map/places?bbox=126.9,37.5,127.1,37.6&q=burger%20LAB").json(Places.self)
            XCTAssertEqual(caseless.items.map(\.name), ["Burger Lab"])
            let wildcard = try await app.send(.GET, "/api/v1/burger-map/places?bbox=126.9,37.5,127.1,37.6&q=%25").json(Places.self)
            XCTAssertEqual(wildcard.items.count, 0, "a % in the search is a character, not a wildcard")
        }
    }

    func testACrowdedBoxAnswersClusters() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()
            // 150 places around City Hall and 60 around Gangnam: 210 in the box, over the 200 pins.
            for index in 0..<210 {
                let (lat, lon) = index < 150 ? (37.5663, 126.9779) : (37.4979, 127.0276)
                _ = try await app.burgerMapStore.addPlace(name: "버거 \(index)", address: "서울", at: Coordinate(unchecked: lat + Double(index % 10) * 0.0001, lon),
                                                          phone: nil, kakaoID: nil, unverified: false, by: nil)
            }
            let city = try await app.send(.GET, "/api/v1/burger-map/places?bbox=126.8,37.4,127.2,37.7").json(Places.self)
            XCTAssertEqual(city.items.count, 0)
            XCTAssertEqual(city.clusters.map(\.count).sorted(), [60, 150])
            // Zoomed in on City Hall the 150 are few enough for pins.
            let street = try await app.send(.GET, "/api/v1/burger-map/places?bbox=126.97,37.56,126.99,37.57").json(Places.self)
            XCTAssertEqual(street.items.count, 150)
        }
    }

    func testNearestFirstWithDistances() async throws {
        try await withTestApp { app in
            try await app.removeBurgerCatalog()
            let token = try await app.signUp().accessToken
            _ = try await add(app, token, "시청 버거", lat: 37.5663, lon: 126.9779)
            _ = try await add(app, token, "강남 버거", lat: 37.4979, lon: 127.0276)
            _ = try await add(app, token, "부산 버거", lat: 35.1587, lon: 129.1604)
            let near = try await app.send(.GET, "/api/v1/burger-map/places?near=37.5665,126.9780&limit=2").json(Places.self)
            XCTAssertEqual(near.items.map(\.name), ["시청 버거", "강남 버거"])
            XCTAssertEqual(near.items[0].distanceMeters ?? -1, 22, accuracy: 5)
            XCTAssertEqual(near.items[1].distanceMeters ?? -1, 8_890, accuracy: 200)
            let all = try await app.send(.GET, "/api/v1/burger-map/places?near=37.5665,126.9780").json(Places.self)
            XCTAssertEqual(all.items.count, 3, "widening boxes reach Busan")
        }
    }

    func testBadMapQueriesAreClientErrors() async throws {
        try await withTestApp { app in
            let cases: [(String, HTTPStatus, String)] = [
                ("", .badRequest, "missing_area"),
                ("?bbox=126,37,127,38&near=37,127", .badRequest, "ambiguous_area"),
                ("?bbox=126,37,127", .badRequest, "invalid_bbox"),
                ("?bbox=127,37,126,38", .unprocessableEntity, "empty_bbox"),
                ("?bbox=115,30,127,38", .unprocessableEntity, "bbox_too_large"),
                ("?bbox=126,91,127,92", .unprocessableEntity, "invalid_coordinate"),
                ("?near=37", .badRequest, "invalid_near"),
                ("?near=91,127", .unprocessableEntity, "invalid_coordinate"),
                ("?near=37,127&limit=0", .badRequest, "invalid_limit"),
                ("?near=37,127&limit=101", .badRequest, "invalid_limit"),
                ("?near=37,127&q=" + String(repeating: "a", count: 41), .unprocessableEntity, "invalid_search"),
                // 45 code points in fewer characters, and 38 letters with spaces around: past
                // the 40 the document states, counted as JSON Schema counts them.
                ("?near=37,127&q=%E0%A4%AA%E0%A4%A8%E0%A5%8D%E0%A4%B9+%E0%A4%AA%E0%A4%A8%E0%A5%8D%E0%A4%B9+%E0%A4%A4%E0%A5%8D%E0%A4%B0+%E0%A4%B0%E0%A5%8D%E0%A4%9A+%E0%A4%95%E0%A5%83%E0%A4%95%E0%A5%83+%E0%A4%A1%E0%A5%8D%E0%A4%A1+%E0%A4%A8%E0%A5%8D%E0%A4%B9%E0%A5%83%E0%A5%87+%D8%A5%D9%84%D8%A7+%D8%A8%D8%B3%D9%85+%D8%A7%D9%84%D9%84%D9%87",
                 .unprocessableEntity, "invalid_search"),
                ("?near=37,127&q=" + String(repeating: "+", count: 5) + String(repeating: "a", count: 38) + "+", .unprocessableEntity, "invalid_search"),
            ]
            for (query, status, code) in cases {
                let response = try await app.send(.GET, "/api/v1/burger-map/places" + query)
                XCTAssertEqual(response.status, status, query)
                XCTAssertEqual(response.errorCode, code, query)
            }
        }
    }
}
