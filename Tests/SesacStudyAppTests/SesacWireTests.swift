import Mates
import MatesTesting
import Platform
@testable import SesacStudyApp
import SocketIO
import WhatWeEatTesting
import XCTest

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

    /// The integer arithmetic says what a Gregorian calendar says, across centuries and leap days.
    func testDatesAreTheCalendarsDates() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try XCTUnwrap(TimeZone(identifier: "UTC"))
        var generator = SystemRandomNumberGenerator()
        let leapDays = [951_782_400.0, 1_709_164_800, -2_203_891_200, 4_107_456_000].map { $0 + 86_399.999 }  // 2000-02-29, 2024-02-29, 1900-03-01, 2100-03-01
        let samples = leapDays + (0..<2_000).map { _ in Double(Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &generator)) / 1000 }
        for seconds in samples {
            let date = Date(timeIntervalSince1970: seconds)
            let milliseconds = JavaScriptDate.millisecond(of: date)
            let whole = Date(timeIntervalSince1970: TimeInterval(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000))
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: whole)
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                                  parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, Int(((milliseconds % 1000) + 1000) % 1000))
            XCTAssertEqual(JavaScriptDate.string(date), expected, "\(seconds)")
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
