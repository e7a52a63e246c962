@testable import BurgerMap
import BurgerMapTesting
import LookForRealBurgerApp
import Notifications
import Platform
import WhatWeEatTesting
import XCTest

/// The burger map's plain rules: positions and map boxes, clusters that follow the zoom, what
/// makes a place, a review or a comment valid, and the ranking.
final class BurgerMapRulesTests: XCTestCase {
    let cityHall = Coordinate(unchecked: 37.5663, 126.9779)      // 서울시청
    let gangnam = Coordinate(unchecked: 37.4979, 127.0276)       // 강남역

    func testCoordinatesAreRangeChecked() {
        XCTAssertNoThrow(try Coordinate(lat: 37.5, lon: 127.0))
        XCTAssertThrowsError(try Coordinate(lat: 91, lon: 0)) { XCTAssertEqual($0 as? GeoProblem, .latitudeOutOfRange) }
        XCTAssertThrowsError(try Coordinate(lat: 0, lon: -180.5)) { XCTAssertEqual($0 as? GeoProblem, .longitudeOutOfRange) }
        XCTAssertThrowsError(try Coordinate(lat: .nan, lon: 0))
        XCTAssertThrowsError(try Coordinate(lat: 0, lon: .infinity))
    }

    func testDistancesMatchKnownOnes() {
        // City Hall to Gangnam station is about 8.9 km as the crow flies.
        XCTAssertEqual(cityHall.distanceMeters(to: gangnam), 8_870, accuracy: 150)
        XCTAssertEqual(cityHall.distanceMeters(to: cityHall), 0, accuracy: 0.001)
        // One degree of latitude is about 111.2 km everywhere.
        XCTAssertEqual(Coordinate(unchecked: 10, 20).distanceMeters(to: Coordinate(unchecked: 11, 20)), 111_195, accuracy: 50)
    }

    func testABoxAroundAPointHoldsEveryPointWithinTheRadius() {
        let box = cityHall.box(radiusMeters: 1_500)
        for bearing in stride(from: 0.0, to: 360, by: 30) {
            let dLat = 1_499 * cos(bearing * .pi / 180) / 111_195
            let dLon = 1_499 * sin(bearing * .pi / 180) / (111_195 * cos(cityHall.lat * .pi / 180))
            XCTAssertTrue(box.contains(Coordinate(unchecked: cityHall.lat + dLat, cityHall.lon + dLon)), "bearing \(bearing)")
        }
        XCTAssertFalse(box.contains(gangnam))
    }

    func testMapBoxesAreParsedAndBounded() throws {
        let box = try BoundingBox(parsing: "126.9,37.4,127.1,37.6")
        XCTAssertEqual(box, BoundingBox(unchecked: 126.9, 37.4, 127.1, 37.6))
        XCTAssertTrue(box.contains(cityHall))
        let cases: [(String, GeoProblem)] = [
            ("126.9,37.4,127.1", .malformedBox), ("a,b,c,d", .malformedBox), ("", .malformedBox),
            ("127.1,37.4,126.9,37.6", .emptyBox), ("126.9,37.6,127.1,37.6", .emptyBox),
            ("120,30,131,38", .boxTooLarge), ("126,91,127,92", .latitudeOutOfRange), ("-181,0,-179,1", .longitudeOutOfRange),
        ]
        for (text, problem) in cases {
            XCTAssertThrowsError(try BoundingBox(parsing: text), text) { XCTAssertEqual($0 as? GeoProblem, problem, text) }
        }
    }

    func testClustersFollowTheGridOfTheBox() {
        let box = BoundingBox(unchecked: 126.8, 37.4, 127.2, 37.7)
        let grid = ClusterGrid(box: box, divisions: 4)
        // Three places around City Hall, two around Gangnam, one outside the box.
        let points = [cityHall, Coordinate(unchecked: 37.567, 126.978), Coordinate(unchecked: 37.565, 126.977),
                      gangnam, Coordinate(unchecked: 37.498, 127.028), Coordinate(unchecked: 35.18, 129.07)]
        let clusters = grid.clusters(of: points)
        XCTAssertEqual(clusters.map(\.count).sorted(), [2, 3])
        XCTAssertEqual(clusters.reduce(0) { $0 + $1.count }, 5, "the point outside the box is left out")
        let hall = try? XCTUnwrap(clusters.first { $0.count == 3 })
        XCTAssertEqual(hall?.lat ?? 0, 37.566, accuracy: 0.001, "a cluster sits at the mean of its places")
        // A point on the box's far edge still falls in the last cell.
        XCTAssertEqual(grid.cell(of: Coordinate(unchecked: 37.7, 127.2)).column, 3)
        XCTAssertEqual(grid.cell(of: Coordinate(unchecked: 37.7, 127.2)).row, 3)
        // Zoomed in, the same places fall into more, smaller cells.
        let street = ClusterGrid(box: BoundingBox(unchecked: 126.97, 37.56, 126.99, 37.57), divisions: 8)
        XCTAssertGreaterThan(street.clusters(of: points).count, 1)
    }

    func testPlaceRules() {
        XCTAssertNoThrow(try BurgerMapRules.checkPlace(name: "버거랩 시청점", address: "서울 중구 세종대로 110", phone: "02-123-4567"))
        XCTAssertNoThrow(try BurgerMapRules.checkPlace(name: "Shack", address: "1 Main St", phone: nil))
        XCTAssertThrowsError(try BurgerMapRules.checkPlace(name: "  ", address: "x", phone: nil))
        XCTAssertThrowsError(try BurgerMapRules.checkPlace(name: String(repeating: "버", count: 61), address: "x", phone: nil))
        XCTAssertThrowsError(try BurgerMapRules.checkPlace(name: "a", address: "", phone: nil))
        XCTAssertThrowsError(try BurgerMapRules.checkPlace(name: "a", address: "b", phone: "call me"))
        XCTAssertThrowsError(try BurgerMapRules.checkPlace(name: "a\u{0}b", address: "b", phone: nil))
    }

    func testTheSamePlaceIsTheSameNameWithinTwentyMeters() {
        let near = Coordinate(unchecked: cityHall.lat + 0.00015, cityHall.lon)  // about 17 m north
        let beside = Coordinate(unchecked: cityHall.lat + 0.0003, cityHall.lon) // about 33 m north
        let far = Coordinate(unchecked: cityHall.lat + 0.0009, cityHall.lon)    // about 100 m north
        XCTAssertTrue(BurgerMapRules.isSamePlace(("더블 치즈버거", cityHall), ("더블치즈버거", near)))
        XCTAssertTrue(BurgerMapRules.isSamePlace(("Burger Lab", cityHall), ("burger lab", near)))
        XCTAssertFalse(BurgerMapRules.isSamePlace(("더블치즈버거", cityHall), ("더블치즈버거", beside)), "probe 2026-12-05: 40 m was handed over")
        XCTAssertFalse(BurgerMapRules.isSamePlace(("더블치즈버거", cityHall), ("더블치즈버거", far)))
        XCTAssertFalse(BurgerMapRules.isSamePlace(("버거랩", cityHall), ("버거킹", near)))
        // Beyond 20 m and within 50 m a namesake is only told to operators.
        XCTAssertTrue(BurgerMapRules.isNearbyNamesake(("더블치즈버거", cityHall), ("더블 치즈버거", beside)))
        XCTAssertFalse(BurgerMapRules.isNearbyNamesake(("더블치즈버거", cityHall), ("더블치즈버거", near)), "that is the place itself")
        XCTAssertFalse(BurgerMapRules.isNearbyNamesake(("더블치즈버거", cityHall), ("더블치즈버거", far)))
        XCTAssertFalse(BurgerMapRules.isNearbyNamesake(("버거랩", cityHall), ("버거킹", beside)))
    }

    func testReviewAndCommentRules() {
        let photo = UUID()
        XCTAssertNoThrow(try BurgerMapRules.checkReview(rating: 5, title: "육즙 최고", text: "패티가\n두꺼워요", photoIDs: [photo]))
        let cases: [(Int, String, String, [UUID], BurgerMapProblem)] = [
            (0, "t", "", [photo], .invalidRating), (6, "t", "", [photo], .invalidRating),
            (3, "", "", [photo], .invalidTitle), (3, "t", String(repeating: "가", count: 2_001), [photo], .invalidText),
            (3, "t", "", [], .invalidPhotoCount), (3, "t", "", (0..<6).map { _ in UUID() }, .invalidPhotoCount),
            (3, "t", "", [photo, photo], .duplicatePhoto),
        ]
        for (rating, title, text, photos, problem) in cases {
            XCTAssertThrowsError(try BurgerMapRules.checkReview(rating: rating, title: title, text: text, photoIDs: photos)) {
                XCTAssertEqual($0 as? BurgerMapProblem, problem)
            }
        }
        XCTAssertNoThrow(try BurgerMapRules.checkComment("맛있겠다"))
        XCTAssertThrowsError(try BurgerMapRules.checkComment(" "))
        XCTAssertThrowsError(try BurgerMapRules.checkComment(String(repeating: "a", count: 501)))
        XCTAssertThrowsError(try BurgerMapRules.checkReportReason(""))
    }

    func testOnePerfectReviewDoesNotBeatFortyGreatOnes() {
        let single = PlaceRanking.score(ratingSum: 5, reviewCount: 1)
        let many = PlaceRanking.score(ratingSum: 184, reviewCount: 40)   // 4.6 on average
        XCTAssertGreaterThan(many, single)
        XCTAssertEqual(PlaceRanking.score(ratingSum: 0, reviewCount: 0), PlaceRanking.priorMean, "no reviews: the prior")
        XCTAssertLessThan(PlaceRanking.score(ratingSum: 40, reviewCount: 40), PlaceRanking.score(ratingSum: 3, reviewCount: 1),
                          "forty 1★ reviews sink below one 3★")
    }

    func testNamesOfOneShopInTwoDirectoriesMatch() {
        for (a, b) in [("버거킹 서울역", "버거킹 서울역점"), ("버거킹 서울역", "버거킹(서울역 지점)"), ("Shake Shack 강남", "shake shack 강남점"),
                       ("맘스터치 본점", "맘스터치"), ("ＡＢＣ버거", "abc 버거")] {
            XCTAssertEqual(BurgerMapRules.matchKey(a), BurgerMapRules.matchKey(b), "\(a) / \(b)")
        }
        for (a, b) in [("버거킹 서울역", "버거킹 용산역"), ("점", ""), ("롯데리아", "맥도날드")] {
            XCTAssertNotEqual(BurgerMapRules.matchKey(a), BurgerMapRules.matchKey(b), "\(a) / \(b)")
        }
        XCTAssertEqual(BurgerMapRules.matchKey("점"), "점", "a name that is only a suffix stays")
        // An unknown address: allowed only when the caller says so (a Kakao place without one).
        XCTAssertThrowsError(try BurgerMapRules.checkPlace(name: "버거", address: "", phone: nil))
        XCTAssertNoThrow(try BurgerMapRules.checkPlace(name: "버거", address: "", phone: nil, addressKnown: false))
        XCTAssertThrowsError(try BurgerMapRules.checkPlace(name: "버거", address: String(repeating: "주", count: 121), phone: nil, addressKnown: false))
    }
}
