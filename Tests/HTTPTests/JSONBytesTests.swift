import Foundation
import XCTVapor
@testable import WhatWeEatServer

/// Hand-written JSON says what Foundation's encoder says.
final class JSONBytesTests: XCTestCase {
    static let awkward = ["", "plain", "미나 🍔", "say \"hi\"", #"back\slash"#, "a/b", "tab\there", "line\nbreak", "\r", "\u{0}\u{1}\u{1f}\u{7f}",
                          "\u{2028}\u{2029}", "👩‍👩‍👧", "\u{08}\u{0c}"]

    func testStringsRoundTrip() throws {
        for text in Self.awkward {
            var json = JSONBytes()
            json.string(text)
            let parsed = try JSONSerialization.jsonObject(with: Data(json.bytes), options: .fragmentsAllowed) as? String
            XCTAssertEqual(parsed, text, text.debugDescription)
        }
        var list = JSONBytes()
        list.strings(Self.awkward)
        XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(list.bytes)) as? [String], Self.awkward)
        var numbers = JSONBytes()
        numbers.ints([0, -1, Int.max, Int.min])
        XCTAssertEqual(String(decoding: numbers.bytes, as: UTF8.self), "[0,-1,\(Int.max),\(Int.min)]")
    }

    func testTheAppsSearchAnswerIsByteForByteWhatTheEncoderWrites() throws {
        let people = Self.awkward.enumerated().map { index, text in
            SesacSearch.Person(uid: "uid-\(index)", nick: text, lat: 37.5665 + Double(index) / 1000, long: index == 0 ? 127 : 126.978 - Double(index) / 7,
                               reputation: [index, 0, 3, 0, 0, 0, 0, 0, 0], studylist: [text, "anything"], reviews: index % 2 == 0 ? [text] : [],
                               gender: index % 2, type: 0, sesac: index % 5, background: index % 8)
        }
        let search = SesacSearch(fromQueueDB: people, fromQueueDBRequested: Array(people.prefix(2)), fromRecommend: ["치킨", "a\"b"])
        let written = SesacSearchJSON.write(search)
        let expected = try AppJSON.encoder().encode(search)
        XCTAssertEqual(String(decoding: written.bytes, as: UTF8.self), String(decoding: expected, as: UTF8.self))
    }

    func testANearbyPersonIsByteForByteWhatTheEncoderWrites() throws {
        let people = [
            MatePerson(id: UUID(), nickname: "미나 \"🍔\" a/b", gender: "female", topics: ["iOS 면접", #"C\C++"#], reputation: [0, 3, 0, 12, 1, 0],
                       avatar: 2, background: 7, distanceMeters: 1234.5),
            MatePerson(id: UUID(), nickname: "x", gender: "unspecified", topics: [], reputation: [0, 0, 0, 0, 0, 0], avatar: 0, background: 0,
                       distanceMeters: nil),
        ]
        for person in people {
            var json = JSONBytes()
            NearbyJSON.person(&json, person)
            let expected = try AppJSON.encoder().encode(MatePersonResponse(person))
            XCTAssertEqual(String(decoding: json.bytes, as: UTF8.self), String(decoding: expected, as: UTF8.self))
        }
        // The whole answer parses, with every field the document names.
        let whole = NearbyJSON.write(people: people, recommendedTopics: ["치킨", "a\"b"], requestedMe: [people[1]], radiusMeters: 1500)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(whole.bytes)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["people", "recommendedTopics", "requestedMe", "radiusMeters"])
        XCTAssertEqual((object["people"] as? [Any])?.count, 2)
        XCTAssertEqual(object["recommendedTopics"] as? [String], ["치킨", "a\"b"])
        XCTAssertEqual(object["radiusMeters"] as? Int, 1500)
        let empty = NearbyJSON.write(people: [], recommendedTopics: [], requestedMe: [], radiusMeters: 100)
        XCTAssertEqual(String(decoding: empty.bytes, as: UTF8.self), #"{"people":[],"radiusMeters":100,"recommendedTopics":[],"requestedMe":[]}"#)
    }
}
