import XCTest
@testable import WhatWeEatServer

/// How the 새싹 스터디 apps write and read values (`SesacWire`).
final class SesacWireTests: XCTestCase {
    func testDatesAreWrittenToTheMillisecondAsJavaScriptDoes() throws {
        XCTAssertEqual(JavaScriptDate.string(Date(timeIntervalSince1970: 1_669_881_330.123_456)), "2022-12-01T07:55:30.123Z")
        XCTAssertEqual(JavaScriptDate.string(Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00.000Z")
        // A time stored exactly at a millisecond is that millisecond, whatever the binary fraction.
        for milliseconds in stride(from: Int64(1_764_070_000_000), to: 1_764_070_000_050, by: 1) {
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            XCTAssertEqual(JavaScriptDate.millisecond(of: date), milliseconds)
            XCTAssertEqual(SesacWire.parseDate(JavaScriptDate.string(date)).map(JavaScriptDate.millisecond(of:)), milliseconds)
        }
    }

    func testEveryDateFormatTheAppsSend() throws {
        let expected = Date(timeIntervalSince1970: 803_206_800)  // 1995-06-15T09:00:00Z
        for text in ["1995-06-15T09:00:00.000Z", "1995-06-15T09:00:00Z", "1995-06-15 09:00:00 +0000", "1995-06-15T18:00:00+09:00",
                     " 1995-06-15T09:00:00.000Z "] {
            XCTAssertEqual(SesacWire.parseDate(text), expected, text)
        }
        XCTAssertEqual(SesacWire.parseDate("1995-06-15"), Date(timeIntervalSince1970: 803_174_400))
        for bad in ["", "yesterday", "1995-02-30", "1995-13-01T00:00:00Z", "1995-06-15T25:00:00Z", "1995-06-15T09:00:00.Z", "1995-06-15T09:00:00Zjunk",
                    "１９９５-06-15"] {
            XCTAssertNil(SesacWire.parseDate(bad), bad)
        }
    }

    func testReviewPicksInEveryEncoding() {
        XCTAssertEqual(SesacWire.reputationPicks(["1", "0", "0", "1", "0", "0"]), [1, 0, 0, 1, 0, 0])
        XCTAssertEqual(SesacWire.reputationPicks(["1", "0", "0", "1", "0", "0", "1", "1", "1"]), [1, 0, 0, 1, 0, 0], "extras ignored")
        XCTAssertEqual(SesacWire.reputationPicks(["1"]), [1, 0, 0, 0, 0, 0], "missing ones count 0")
        XCTAssertEqual(SesacWire.reputationPicks(["[1, 0, 0, 1, 0, 0, 0, 0, 0]"]), [1, 0, 0, 1, 0, 0])
        XCTAssertEqual(SesacWire.reputationPicks(["\"1\"", "0"]), [1, 0, 0, 0, 0, 0])
        XCTAssertEqual(SesacWire.reputationPicks([]), [0, 0, 0, 0, 0, 0])
        for bad in [["2"], ["-1"], ["x"], ["[1, 2]"], ["[1, 0"]] { XCTAssertNil(SesacWire.reputationPicks(bad), "\(bad)") }
        XCTAssertEqual(SesacWire.reputation([1, 2, 3, 4, 5, 6]), [1, 2, 3, 4, 5, 6, 0, 0, 0])
    }

    func testStudyListsProductsAndCodes() {
        XCTAssertEqual(SesacWire.studyList(["swift", "anything", " ", "Anything", "알고리즘"]), ["swift", "알고리즘"])
        XCTAssertEqual(SesacWire.shownStudyList([]), ["anything"])
        XCTAssertEqual(SesacWire.shopItem(productID: "com.memolease.sesac1.sprout4")?.index, 4)
        XCTAssertEqual(SesacWire.shopItem(productID: "com.memolease.sesac1.background7")?.kind, .background)
        for bad in ["com.memolease.sesac1.sprout0", "com.memolease.sesac1.sprout5", "com.memolease.sesac1.background8", "com.whatweeat.mates.avatar1", ""] {
            XCTAssertNil(SesacWire.shopItem(productID: bad), bad)
        }
        XCTAssertEqual((0...5).map { SesacWire.penaltyStatus(dodgesToday: $0) }, [203, 203, 204, 205, 205, 205])
    }
}
