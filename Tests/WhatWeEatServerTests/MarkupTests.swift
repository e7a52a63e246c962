import BanchanApp
import Platform
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTest

/// The escapers every page, SVG and script block relies on.
final class MarkupTests: XCTestCase {
    func testAttributeAndTextEscaping() {
        XCTAssertEqual(Markup.escape(#"a"b'c&d<e>f"#), "a&quot;b&#39;c&amp;d&lt;e&gt;f")
        XCTAssertEqual(Markup.escape("&amp;"), "&amp;amp;", "entities in input are text, not markup")
        XCTAssertEqual(Markup.escape("치즈버거 🍔"), "치즈버거 🍔")
    }

    func testJSONInScriptsCannotEndTheElementOrOpenAComment() throws {
        let data = try JSONSerialization.data(withJSONObject: ["v": "</script><!--<b>&"])
        let text = Markup.scriptJSON(data)
        XCTAssertFalse(text.contains("<") || text.contains(">") || text.contains("&"), text)
        let back = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
        XCTAssertEqual(back?["v"], "</script><!--<b>&", "JSON reads the same value back")
    }

    /// A page's config is written by hand; it must read back as what JSONSerialization would
    /// have written, for every kind of value pages put in it.
    func testPageConfigValuesReadBackAsGiven() throws {
        struct Spliced: Encodable { let id = 7; let name = "<b>버거</b>" }
        let value: [String: Any] = [
            "text": "따옴표 \" 와 \\ 와 줄\n바꿈 </script>", "flag": true, "off": false, "count": 42, "ratio": 37.5665,
            "whole": 2.0, "none": NSNull(), "list": [1.5, 2.5], "names": ["a", "b"], "nested": ["zoom": 13, "q": ""],
            "missing": Optional<String>.none as Any, "encoded": try PageConfig.Encoded(Spliced()),
        ]
        var json = JSONBytes()
        json.any(value)
        let read = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any])
        XCTAssertEqual(read["text"] as? String, "따옴표 \" 와 \\ 와 줄\n바꿈 </script>")
        XCTAssertEqual(read["flag"] as? Bool, true)
        XCTAssertEqual(read["off"] as? Bool, false)
        XCTAssertEqual(read["count"] as? Int, 42)
        XCTAssertEqual(read["ratio"] as? Double, 37.5665)
        XCTAssertEqual(read["whole"] as? Int, 2)
        XCTAssertTrue(read["none"] is NSNull)
        XCTAssertTrue(read["missing"] is NSNull)
        XCTAssertEqual(read["list"] as? [Double], [1.5, 2.5])
        XCTAssertEqual(read["names"] as? [String], ["a", "b"])
        XCTAssertEqual((read["nested"] as? [String: Any])?["zoom"] as? Int, 13)
        XCTAssertEqual((read["encoded"] as? [String: Any])?["name"] as? String, "<b>버거</b>")
        XCTAssertTrue(String(decoding: json.bytes, as: UTF8.self).contains(#"true"#))

        var escaped: [UInt8] = []
        Markup.appendScriptSafe(json.bytes[...], to: &escaped)
        let safe = String(decoding: escaped, as: UTF8.self)
        XCTAssertFalse(safe.contains("<") || safe.contains(">") || safe.contains("&"))
        XCTAssertEqual(safe, Markup.scriptJSON(Data(json.bytes)))
    }

    func testTextLimitsCountBytesAsWellAsCharacters() {
        XCTAssertTrue("미나".fits(characters: 20, bytes: 80))
        XCTAssertFalse(("z" + String(repeating: "\u{301}", count: 1_000)).fits(characters: 20, bytes: 80), "one character, 2 KB")
        XCTAssertEqual("가나다".truncated(toBytes: 7), "가나", "cut at a character boundary")
    }

    /// openapi.yaml's `maxLength` counts code points (JSON Schema's rule): a text within a limit
    /// in characters but past it in code points is refused, or the API would take what its
    /// document says it refuses (the fuzzer's search of 2026-12-07).
    func testTextLimitsCountCodePointsAsTheDocumentDoes() {
        let conjuncts = "पन्ह पन्ह त्र र्च कृकृ ड्ड न्हृे إلا بسم الله"
        XCTAssertEqual(conjuncts.unicodeScalars.count, 45)
        XCTAssertLessThanOrEqual(conjuncts.count, 40, "fewer characters than code points")
        XCTAssertFalse(conjuncts.fits(characters: 40, bytes: 160))
        XCTAssertTrue(conjuncts.fits(characters: 45, bytes: 160))
        XCTAssertTrue("🧑‍🍳🍚".fits(characters: 2, bytes: 32, codePoints: 16), "two pictures, four code points")
        XCTAssertFalse("🧑‍🍳🍚".fits(characters: 2, bytes: 32), "the character limit is the code point limit unless said")
    }
}
