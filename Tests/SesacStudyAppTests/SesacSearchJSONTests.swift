import Foundation
import Platform
@testable import SesacStudyApp
import WhatWeEatTesting
import XCTest

/// The 새싹 app's search answer, written by hand, says what Foundation's encoder says.
final class SesacSearchJSONTests: XCTestCase {
    func testTheAppsSearchAnswerIsByteForByteWhatTheEncoderWrites() throws {
        let people = AwkwardTexts.samples.enumerated().map { index, text in
            SesacSearch.Person(uid: "uid-\(index)", nick: text, lat: 37.5665 + Double(index) / 1000, long: index == 0 ? 127 : 126.978 - Double(index) / 7,
                               reputation: [index, 0, 3, 0, 0, 0, 0, 0, 0], studylist: [text, "anything"], reviews: index % 2 == 0 ? [text] : [],
                               gender: index % 2, type: 0, sesac: index % 5, background: index % 8)
        }
        let search = SesacSearch(fromQueueDB: people, fromQueueDBRequested: Array(people.prefix(2)), fromRecommend: ["치킨", "a\"b"])
        let written = SesacSearchJSON.write(search)
        let expected = try AppJSON.encoder().encode(search)
        XCTAssertEqual(String(decoding: written.bytes, as: UTF8.self), String(decoding: expected, as: UTF8.self))
    }
}
