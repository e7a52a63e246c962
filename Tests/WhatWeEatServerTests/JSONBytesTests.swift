@testable import BanchanApp
@testable import BurgerMap
import Foundation
@testable import LookForRealBurgerApp
@testable import Mates
@testable import Platform
@testable import SesacStudyApp
@testable import SocketIO
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

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
        let values = [0, -1, 9, 10, 99, 100, 1_234_567, -90, Int.max, Int.min]
        numbers.ints(values)
        XCTAssertEqual(String(decoding: numbers.bytes, as: UTF8.self), "[" + values.map(String.init).joined(separator: ",") + "]")
        // A long text without escapes (copied at once) and one with an escape at its very end.
        let long = String(repeating: "미나 burger ", count: 40)
        for text in [long, long + "\"", long + "\u{1}"] {
            var json = JSONBytes()
            json.string(text)
            XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(json.bytes), options: .fragmentsAllowed) as? String, text)
        }
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

    func testTheLookForRealBurgerPostPageIsByteForByteWhatTheEncoderWrites() throws {
        let people = [LSLPPerson(id: UUID(), nick: "미나 \"🍔\"", imageKey: nil), LSLPPerson(id: UUID(), nick: "a/b", imageKey: "abc.jpg")]
        let comments = Self.awkward.enumerated().map { index, text in
            LSLPComment(CommentRow(id: UUID(), author: PersonRow(id: UUID(), nickname: text, imageKey: index % 2 == 0 ? nil : "k.png"),
                                   text: text, createdAt: Date(timeIntervalSince1970: 1_764_070_000.123 + Double(index))))
        }
        let shop = LSLPPost(post_id: ObjectID.of(UUID()), product_id: LSLPPostRules.Product.place.rawValue, title: "버거 \"킹\"", price: nil,
                            content: "#버거 \"킹\"", content1: "127.0276", content2: "37.4979", content3: "서울\n강남", content4: "",
                            content5: "12345678", createdAt: "2026-11-25T10:00:00.000Z", creator: people[0], files: [],
                            likes: [ObjectID.of(UUID())], likes2: [], buyers: [], hashTags: ["버거"], comments: comments)
        let review = LSLPPost(post_id: ObjectID.of(UUID()), product_id: LSLPPostRules.Product.review.rawValue, title: "\u{0}탭\t", price: 5,
                              content: Self.awkward.joined(separator: " #"), content1: shop.post_id, content2: nil, content3: nil, content4: nil,
                              content5: nil, createdAt: "2026-11-25T10:00:00.001Z", creator: people[1], files: ["uploads/posts/a.jpg", "uploads/posts/b.png"],
                              likes: [], likes2: [ObjectID.of(UUID())], buyers: [ObjectID.of(UUID())], hashTags: Self.awkward, comments: [])
        for page in [LSLPPostPage(data: [shop, review], nextCursor: nil), LSLPPostPage(data: [], nextCursor: "abc"), LSLPPostPage(data: [review], nextCursor: "x")] {
            let written = page.json()
            let expected = try AppJSON.encoder().encode(page)
            XCTAssertEqual(String(decoding: written.bytes, as: UTF8.self), String(decoding: expected, as: UTF8.self))
        }
    }
}
