import Foundation
@testable import Mates
import Platform
import WhatWeEatTesting
import XCTest

/// The nearby answer, written by hand, says what Foundation's encoder says.
final class NearbyJSONTests: XCTestCase {
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
