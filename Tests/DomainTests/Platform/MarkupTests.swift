import BanchanApp
import Platform
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

    func testTextLimitsCountBytesAsWellAsCharacters() {
        XCTAssertTrue("미나".fits(characters: 20, bytes: 80))
        XCTAssertFalse(("z" + String(repeating: "\u{301}", count: 1_000)).fits(characters: 20, bytes: 80), "one character, 2 KB")
        XCTAssertEqual("가나다".truncated(toBytes: 7), "가나", "cut at a character boundary")
    }
}
