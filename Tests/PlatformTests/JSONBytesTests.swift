import Foundation
@testable import Platform
import WhatWeEatTesting
import XCTest

/// Hand-written JSON (`JSONBytes`) says what Foundation's encoder says.
final class JSONBytesTests: XCTestCase {
    func testStringsRoundTrip() throws {
        for text in AwkwardTexts.samples {
            var json = JSONBytes()
            json.string(text)
            let parsed = try JSONSerialization.jsonObject(with: Data(json.bytes), options: .fragmentsAllowed) as? String
            XCTAssertEqual(parsed, text, text.debugDescription)
        }
        var list = JSONBytes()
        list.strings(AwkwardTexts.samples)
        XCTAssertEqual(try JSONSerialization.jsonObject(with: Data(list.bytes)) as? [String], AwkwardTexts.samples)
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
}
