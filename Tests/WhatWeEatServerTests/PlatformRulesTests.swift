import BanchanApp
import BurgerMap
import LookForRealBurgerApp
import Media
import MenuGame
import Platform
import SocketIO
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTest

final class PlatformRulesTests: XCTestCase {
    func testAcceptLanguageNegotiation() {
        XCTAssertNil(Language.negotiate(acceptLanguage: nil))
        XCTAssertNil(Language.negotiate(acceptLanguage: "fr, de"))
        XCTAssertEqual(Language.negotiate(acceptLanguage: "en-US,en;q=0.9"), .en)
        XCTAssertEqual(Language.negotiate(acceptLanguage: "fr;q=1, ja;q=0.4, en;q=0.3"), .ja)
        XCTAssertEqual(Language.negotiate(acceptLanguage: "en;q=0.5, ko"), .ko)
        XCTAssertEqual(Language.negotiate(acceptLanguage: "ja-JP, en"), .ja, "equal quality keeps the header's order")
        XCTAssertNil(Language.negotiate(acceptLanguage: "en;q=0"), "q=0 means not acceptable")
    }

    func testPageCursorRoundTripsAndRejectsForgeries() throws {
        let cursor = PageCursor(createdAt: Date(timeIntervalSince1970: 1_795_316_964.684991), id: UUID())
        XCTAssertEqual(PageCursor(encoded: cursor.encoded), cursor)
        XCTAssertNil(PageCursor(encoded: "%%%"))
        XCTAssertNil(PageCursor(encoded: Data("nan|\(UUID())".utf8).base64URLEncodedString()))
        XCTAssertNil(PageCursor(encoded: Data("12|not-a-uuid".utf8).base64URLEncodedString()))
    }

    func testImageSniffingReadsBytesNotNames() {
        XCTAssertEqual(ImageType.sniff(Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0])), .jpeg)
        XCTAssertEqual(ImageType.sniff(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0])), .png)
        XCTAssertEqual(ImageType.sniff(Data("GIF89a....".utf8)), .gif)
        XCTAssertEqual(ImageType.sniff(Data("RIFF\0\0\0\0WEBPVP8 ".utf8)), .webp)
        XCTAssertNil(ImageType.sniff(Data("RIFF\0\0\0\0WAVEfmt ".utf8)))
        XCTAssertNil(ImageType.sniff(Data("<svg xmlns=...>".utf8)), "SVG can carry script; not accepted as a photo")
        XCTAssertNil(ImageType.sniff(Data()))
    }

    func testUploadKeysCannotEscapeTheFolder() {
        let hash = String(repeating: "a", count: 64)
        XCTAssertTrue(DiskFileStorage.isValidKey("\(hash).png"))
        XCTAssertFalse(DiskFileStorage.isValidKey("../\(hash).png"))
        XCTAssertFalse(DiskFileStorage.isValidKey("\(hash).svg"))
        XCTAssertFalse(DiskFileStorage.isValidKey("jwt-secret"))
        XCTAssertFalse(DiskFileStorage.isValidKey(String(repeating: "g", count: 64) + ".png"))
    }

    func testPlaceholdersAreFilledInOnePass() {
        XCTAssertEqual(Translator.fill("{count}개 중 {shown}개", ["count": "10", "shown": "3"]), "10개 중 3개")
        XCTAssertEqual(Translator.fill("{a}{a}", ["a": "x"]), "xx", "every occurrence")
        XCTAssertEqual(Translator.fill("{unknown} and {a}", ["a": "x"]), "{unknown} and x", "other braces stay")
        XCTAssertEqual(Translator.fill("{a{a}}", ["a": "x"]), "{ax}")
        XCTAssertEqual(Translator.fill("{a}", ["a": "{b}", "b": "no"]), "{b}", "a value is not filled again")
        XCTAssertEqual(Translator.fill("no end {a", ["a": "x"]), "no end {a")
        XCTAssertEqual(Translator.fill("", ["a": "x"]), "")
    }

    /// The guard in front of MultipartKit finds a non-ASCII header name after any delimiter, wherever
    /// it falls, and leaves header values (a Korean filename) and bodies alone.
    func testTheMultipartGuardFindsNonASCIIHeaderNamesAnywhere() {
        func body(_ parts: [String]) -> [UInt8] { Array(parts.joined().utf8) }
        let clean = body(["--b\r\n", "Content-Disposition: form-data; name=\"file\"; filename=\"버거.jpg\"\r\n\r\n",
                          "----b--b\r-", String(repeating: "-", count: 300), "\r\n--b--\r\n"])
        XCTAssertFalse(MultipartGuard.hasNonASCIIHeaderName(clean, boundary: "b"))
        let hostileFirst = body(["--b\r\n", "Cönt: x\r\n\r\nbody\r\n--b--"])
        XCTAssertTrue(MultipartGuard.hasNonASCIIHeaderName(hostileFirst, boundary: "b"))
        let hostileLater = body(["--b\r\n", "A: 1\r\n\r\n", String(repeating: "x-", count: 5_000), "\r\n--b\r\n", "A: 1\r\nñ: 2\r\n\r\n"])
        XCTAssertTrue(MultipartGuard.hasNonASCIIHeaderName(hostileLater, boundary: "b"))
        let hostileAtTheEnd = body(["preamble --b\r\n", "é"])
        XCTAssertTrue(MultipartGuard.hasNonASCIIHeaderName(hostileAtTheEnd, boundary: "b"))
        XCTAssertFalse(MultipartGuard.hasNonASCIIHeaderName(Array("--b".utf8), boundary: "b"), "shorter than a delimiter")
        XCTAssertFalse(MultipartGuard.hasNonASCIIHeaderName([], boundary: "b"))
    }

    func testTranslationCatalogsAreComplete() throws {
        let translator = try Translator.load(from: FileManager.default.currentDirectoryPath + "/Resources/translations")
        let korean = try XCTUnwrap(translator.catalogs[.ko])
        for language in [Language.en, .ja] {
            let catalog = try XCTUnwrap(translator.catalogs[language])
            XCTAssertEqual(Set(catalog.keys), Set(korean.keys), "\(language) has the same keys as Korean")
            for (key, text) in korean {
                // `{title|을/를}` (a Korean particle after the value) names the same `{title}`.
                let placeholders = { (s: String) in Set(s.matches(of: /\{([a-z]+)(?:\|[^{}]+)?\}/).map { "{" + String($0.output.1) + "}" }) }
                XCTAssertEqual(placeholders(catalog[key] ?? ""), placeholders(text), "\(language) \(key) keeps its placeholders")
            }
        }
        XCTAssertEqual(translator.text("error.password_too_short", .en, ["min": "8"]), "The password must be at least 8 characters.")
        XCTAssertEqual(translator.text("no.such.key", .ja), "no.such.key")
    }
}
