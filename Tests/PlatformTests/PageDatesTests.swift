import Foundation
@testable import Platform
import WhatWeEatTesting
import XCTest

/// `PageDates` writes what the Foundation formatters it replaced wrote, for any date.
final class PageDatesTests: XCTestCase {
    func testMatchesTheFormattersItReplaced() {
        let iso = ISO8601DateFormatter()
        let dotted = DateFormatter()
        dotted.locale = Locale(identifier: "ko_KR")
        dotted.timeZone = TimeZone(identifier: "Asia/Seoul")
        dotted.dateFormat = "yyyy.MM.dd HH:mm"
        var generator = SystemRandomNumberGenerator()
        // Fixed edges (the epoch, a leap day, the turn of a year in Seoul but not in UTC, the last
        // half-millisecond of a second, of a minute and of a year, which the formatters round up)
        // and random moments between 1990 and 2100, fractional seconds included.
        let fixed: [TimeInterval] = [0, 951_782_400, 1_704_034_800, 1_704_067_199.999, 1_796_000_000.5,
                                     1_704_067_199.9994, 1_704_067_199.9996, 1_704_067_259.9996, 1_796_000_000.9995,
                                     1_796_000_000.99951, 1_796_000_000.99949]
        let random = (0..<500).map { _ in TimeInterval.random(in: 631_152_000..<4_102_444_800, using: &generator) }
        for seconds in fixed + random {
            let date = Date(timeIntervalSince1970: seconds)
            XCTAssertEqual(PageDates.machine(date), iso.string(from: date), "\(seconds)")
            if seconds >= 631_152_000 { XCTAssertEqual(PageDates.dotted(date), dotted.string(from: date), "\(seconds)") }
        }
        for language in Language.allCases {
            let medium = DateFormatter()
            medium.locale = Locale(identifier: language.rawValue)
            medium.timeZone = TimeZone(identifier: "Asia/Seoul")
            medium.dateStyle = .medium
            medium.timeStyle = .short
            let date = Date(timeIntervalSince1970: 1_796_000_000)
            XCTAssertEqual(PageDates.medium(date, language), medium.string(from: date))
        }
    }
}
