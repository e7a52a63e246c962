import BurgerMap
import Foundation
@testable import LookForRealBurgerApp
import Platform
import WhatWeEatTesting
import XCTest

/// The LookForRealBurger post page, written by hand, says what Foundation's encoder says.
final class LSLPPostPageJSONTests: XCTestCase {
    func testTheLookForRealBurgerPostPageIsByteForByteWhatTheEncoderWrites() throws {
        let people = [LSLPPerson(id: UUID(), nick: "미나 \"🍔\"", imageKey: nil), LSLPPerson(id: UUID(), nick: "a/b", imageKey: "abc.jpg")]
        let comments = AwkwardTexts.samples.enumerated().map { index, text in
            LSLPComment(CommentRow(id: UUID(), author: PersonRow(id: UUID(), nickname: text, imageKey: index % 2 == 0 ? nil : "k.png"),
                                   text: text, createdAt: Date(timeIntervalSince1970: 1_764_070_000.123 + Double(index))))
        }
        let shop = LSLPPost(post_id: ObjectID.of(UUID()), product_id: LSLPPostRules.Product.place.rawValue, title: "버거 \"킹\"", price: nil,
                            content: "#버거 \"킹\"", content1: "127.0276", content2: "37.4979", content3: "서울\n강남", content4: "",
                            content5: "12345678", createdAt: "2026-11-25T10:00:00.000Z", creator: people[0], files: [],
                            likes: [ObjectID.of(UUID())], likes2: [], buyers: [], hashTags: ["버거"], comments: comments)
        let review = LSLPPost(post_id: ObjectID.of(UUID()), product_id: LSLPPostRules.Product.review.rawValue, title: "\u{0}탭\t", price: 5,
                              content: AwkwardTexts.samples.joined(separator: " #"), content1: shop.post_id, content2: nil, content3: nil, content4: nil,
                              content5: nil, createdAt: "2026-11-25T10:00:00.001Z", creator: people[1], files: ["uploads/posts/a.jpg", "uploads/posts/b.png"],
                              likes: [], likes2: [ObjectID.of(UUID())], buyers: [ObjectID.of(UUID())], hashTags: AwkwardTexts.samples, comments: [])
        for page in [LSLPPostPage(data: [shop, review], nextCursor: nil), LSLPPostPage(data: [], nextCursor: "abc"), LSLPPostPage(data: [review], nextCursor: "x")] {
            let written = page.json()
            let expected = try AppJSON.encoder().encode(page)
            XCTAssertEqual(String(decoding: written.bytes, as: UTF8.self), String(decoding: expected, as: UTF8.self))
        }
    }
}
