import BurgerMap
import Platform
import WhatWeEatTesting
import XCTVapor

/// Issue 61: a new place takes an address and shows the pin to confirm — where Kakao's address
/// search says it is (`GET /api/v1/burger-map/geocode`), else where the writer puts it — instead
/// of 위도/경도 fields.
final class PlaceGeocodeTests: XCTestCase {
    static let cityHall = FakeKakaoLocal.Place(id: "1", name: "서울특별시청", address: "서울 중구 태평로1가 31", roadAddress: "서울 중구 세종대로 110",
                                               lat: 37.5663, lon: 126.9779)

    func testAnAddressIsFoundWhereKakaoKnowsItAndTheAnswerSaysWhyNotOtherwise() async throws {
        let kakao = try await FakeKakaoLocal.start(places: [Self.cityHall])
        do {
            try await withTestApp(adjust: { settings in
                settings.kakao.restAPIKey = kakao.key
                settings.kakao.apiURL = kakao.url
            }) { app in
                let writer = try await app.member("작성자")
                let address = "세종대로 110".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let found = try await app.send(.GET, "/api/v1/burger-map/geocode?address=\(address)", token: writer.token).object()
                XCTAssertEqual(found["kakao"] as? String, "ok")
                let match = try XCTUnwrap(found["match"] as? [String: Any])
                XCTAssertEqual(match["lat"] as? Double, 37.5663)
                XCTAssertEqual(match["lon"] as? Double, 126.9779)
                XCTAssertEqual(match["roadAddress"] as? String, "서울 중구 세종대로 110")
                XCTAssertEqual(kakao.requests.last, ["address": "세종대로 110"])

                let unknown = try await app.send(.GET, "/api/v1/burger-map/geocode?address=%EC%97%86%EB%8A%94%EA%B8%B8%201", token: writer.token).object()
                XCTAssertEqual(unknown["kakao"] as? String, "ok")
                XCTAssertTrue(unknown["match"] is NSNull, "Kakao knows no such address: the writer places the pin")

                kakao.fail(true)
                let down = try await app.send(.GET, "/api/v1/burger-map/geocode?address=\(address)", token: writer.token).object()
                XCTAssertEqual(down["kakao"] as? String, "unavailable")
                kakao.fail(false)

                for bad in ["", "a", String(repeating: "가", count: 121)] {
                    let refused = try await app.send(.GET, "/api/v1/burger-map/geocode?address=" + (bad.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""),
                                                     token: writer.token)
                    XCTAssertEqual(refused.status, .badRequest, bad)
                }
                let anonymous = try await app.send(.GET, "/api/v1/burger-map/geocode?address=\(address)")
                XCTAssertEqual(anonymous.status, .unauthorized, "for writers only")

                // A network's budget: past it, a look-up in the same minute is `busy`, and Kakao is not asked.
                let asked = kakao.requests.count
                var outcomes: [String] = []
                for _ in 0..<PlaceGeocoder.lookupsPerNetworkPerMinute {
                    outcomes.append(try await app.send(.GET, "/api/v1/burger-map/geocode?address=\(address)", token: writer.token).object()["kakao"] as? String ?? "")
                }
                XCTAssertEqual(outcomes.last, "busy")
                XCTAssertLessThanOrEqual(kakao.requests.count - asked, PlaceGeocoder.lookupsPerNetworkPerMinute)
            }
        } catch {
            await kakao.stop()
            throw error
        }
        await kakao.stop()
    }

    func testWithoutAKeyTheWriterPlacesThePin() async throws {
        try await withTestApp { app in
            let writer = try await app.member("작성자")
            let answer = try await app.send(.GET, "/api/v1/burger-map/geocode?address=%EC%84%B8%EC%A2%85%EB%8C%80%EB%A1%9C", token: writer.token).object()
            XCTAssertEqual(answer["kakao"] as? String, "off")
            XCTAssertTrue(answer["match"] is NSNull)
            // The write page offers 주소 찾기 (a place needs no postcode); its policy allows the map and the service.
            var browser = try await CookieBrowser.signedIn(app, as: writer.email)
            let page = try await browser.get("/map/write")
            XCTAssertTrue(page.text.contains(#"data-address="new-place-address""#), "the address search fills the new place's address")
            XCTAssertTrue(page.text.contains("🔍 주소 찾기") && !page.text.contains("우편번호 찾기"), "a place's button asks for its address")
            let policy = page.headers.first(name: "Content-Security-Policy") ?? ""
            XCTAssertTrue(policy.contains("https://t1.daumcdn.net") && policy.contains("frame-src https://postcode.map.daum.net"), policy)
        }
    }
}
