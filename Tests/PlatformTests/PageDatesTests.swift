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

/// The inbox says when as the feed does: "지금", "5분 전", "3시간 전", "어제", "4일 전", then the date.
final class RelativePageDatesTests: XCTestCase {
    func testRelativeTimesInTheReadersLanguage() throws {
        let translator = try Translator.load(from: FileManager.default.currentDirectoryPath + "/Resources/translations")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func said(_ secondsAgo: TimeInterval, _ language: Language = .ko) -> String {
            PageDates.relative(now.addingTimeInterval(-secondsAgo), now: now, language) { translator.text($0, language, $1) }
        }
        XCTAssertEqual(said(20), "지금")
        XCTAssertEqual(said(5 * 60 + 10), "5분 전")
        XCTAssertEqual(said(3 * 3600 + 59), "3시간 전")
        XCTAssertEqual(said(30 * 3600), "어제")
        XCTAssertEqual(said(4 * 86_400 + 60), "4일 전")
        XCTAssertEqual(said(3 * 3600, .en), "3 hr. ago")
        XCTAssertEqual(said(3 * 3600, .ja), "3時間前")
        XCTAssertEqual(said(9 * 86_400), PageDates.medium(now.addingTimeInterval(-9 * 86_400), .ko), "a week on: the date")
        XCTAssertEqual(said(-30), "지금", "a clock a little ahead is now")
    }
}
