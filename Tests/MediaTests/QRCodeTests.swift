@testable import Media
import Platform
import WhatWeEatTesting
import XCTest

/// The reference matrices were produced by independent encoders (segno 1.6.6 in byte mode with
/// error-level boosting off, and Nayuki's qrcodegen 1.8.0, which agree module for module) for
/// the same payload, level and forced mask. `#` is dark, `.` is light; no quiet zone.
final class QRCodeTests: XCTestCase {
    private static let longLink = "https://whatweeat.example/games/482913/join?invite="
        + "pizza-pasta-sushi-tacos-curry-ramen-bibimbap-pho-falafel-paella-risotto-gyoza-burrito-dal-poke"

    private func rows(of code: QRCode) -> [String] {
        (0..<code.size).map { y in String((0..<code.size).map { x in code.isDark(x: x, y: y) ? "#" : "." }) }
    }

    private func assertMatrix(_ code: QRCode, equals expected: [String], file: StaticString = #filePath, line: UInt = #line) {
        let actual = rows(of: code)
        XCTAssertEqual(actual.count, expected.count, "size", file: file, line: line)
        for (y, (row, expectedRow)) in zip(actual, expected).enumerated() where row != expectedRow {
            XCTFail("row \(y) differs:\n  got      \(row)\n  expected \(expectedRow)", file: file, line: line)
        }
    }

    func testHelloVersion1MediumMask2MatchesReference() throws {
        let code = try QRCode(encoding: "HELLO", errorCorrection: .medium, mask: 2)
        XCTAssertEqual(code.version, 1)
        XCTAssertEqual(code.size, 21)
        XCTAssertEqual(code.maskPattern, 2)
        assertMatrix(code, equals: [
            "#######....#..#######",
            "#.....#...#.#.#.....#",
            "#.###.#.##....#.###.#",
            "#.###.#.#.#.#.#.###.#",
            "#.###.#.##..#.#.###.#",
            "#.....#.####..#.....#",
            "#######.#.#.#.#######",
            "........##...........",
            "#.#####...##..#####..",
            ".##.##.#.######..##..",
            "..#####.#...#.##.###.",
            ".##.#....######..##..",
            ".#.######...#..#..#.#",
            "........#.#.#..#.#...",
            "#######..###.#..#.##.",
            "#.....#.#.#....#####.",
            "#.###.#.##.#.#..#.##.",
            "#.###.#.##.#####.#...",
            "#.###.#.##..#.##..#..",
            "#.....#..######.###..",
            "#######.##..#...#.##.",
        ])
    }

    func testJoinLinkVersion5HighMask6MatchesReference() throws {
        let code = try QRCode(encoding: "http://127.0.0.1:8080/join/482913?lang=en", errorCorrection: .high, mask: 6)
        XCTAssertEqual(code.version, 5)  // two blocks of different lengths at level H
        assertMatrix(code, equals: [
            "#######.....#.#..##.##.#....#.#######",
            "#.....#..##..####..########...#.....#",
            "#.###.#.#..#.....##..##..#.##.#.###.#",
            "#.###.#.#..#.#..#.###...####..#.###.#",
            "#.###.#....##.#.#..##..#.#....#.###.#",
            "#.....#..###..######.....##...#.....#",
            "#######.#.#.#.#.#.#.#.#.#.#.#.#######",
            ".........#.####.####.....####........",
            "...##.##.#.###.##.##..####..#....##..",
            "##.##..#...#.#.##..#..##..##...###...",
            ".....###.#...#...##...###.#####...#.#",
            "##.......#.....##.....##..#..######..",
            "#..#.###.##..###.####.##..##.###.#...",
            "....#.....#...####..####.#.#.#..#.##.",
            ".#....##.#....#..#######.#.###...##.#",
            ".##.#..#..##......#..###..#......##..",
            "###...#.##.##..#.#.#.##########...#..",
            "#..........##.#.#.###..#..###.....##.",
            "##..###...####..#.#.#.#.#.###..####.#",
            "#..#...###..##..##.......###...##..##",
            ".###..#.##.##.####..#.##....#.#.##...",
            ".###.....###.#.##.#.....##.##..##..#.",
            "...#.##.##.#....#...##..##.##.#.#####",
            "#.#.##.#....##.#.#.###..##.#...#.##..",
            "###..####.###.####..#.####..####.#.##",
            "####....#.....#.#...###..#####..###..",
            "##...##......##.#...##.##..#.....##.#",
            "#..........#...##..#.#.#..#.....###.#",
            "#.######.....####.##.....##.#########",
            "........#...#####..#.##.#####...####.",
            "#######.##.###..#..##.##.##.#.#.#####",
            "#.....#...##.###...#.#..###.#...##.#.",
            "#.###.#.##..#..#.###..#....######..##",
            "#.###.#.#..#.#.#####....##.#..#..#...",
            "#.###.#..#..#..###..####..#.##.######",
            "#.....#..####..##..#.####.##.####.###",
            "#######....##.....#....#..###.#.....#",
        ])
    }

    /// Version 7 is the first to carry version information blocks.
    func testLongLinkVersion7LowMask3MatchesReference() throws {
        let code = try QRCode(encoding: Self.longLink, errorCorrection: .low, mask: 3)
        XCTAssertEqual(code.version, 7)
        XCTAssertEqual(code.size, 45)
        assertMatrix(code, equals: [
            "#######.#...#...#..#.##..#.#####.#..#.#######",
            "#.....#..##.##..##..#.#.....####.#.#..#.....#",
            "#.###.#.#..#...#.....##..#.#.####..#..#.###.#",
            "#.###.#.#.##.#.############...##...##.#.###.#",
            "#.###.#.#.#.##...###########.#.######.#.###.#",
            "#.....#..#.###.######...###...#..#....#.....#",
            "#######.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#######",
            ".............##.#.###...##..#....#..#........",
            "####..#.#..#.#..#..######.####...##.##..###.#",
            "####.#..###.##.#...##..#.#..####...###...#.##",
            "####.#####.#####.#.#.#.....##.#.######.....##",
            "#.#.#....#####.###....###.#..####.#####..#.#.",
            "##...#####...#.#####..##.##..###.#...#...#.#.",
            ".......##...#..#..#.....###.#....#.#.##.##...",
            "##..######....#.########..#.###......##.#..#.",
            "..###..#.####.#####..#.##.###.#.###.##.#####.",
            "#####.####.###..#..##.#####...###..##.##..#..",
            "#.#.##.##...##.##.##.#..#..#....###.....#...#",
            "#.##.##.#.###...#.#.#..##.##...#.##.#####..#.",
            ".##..#..#.#####.#.####...#####....#...#.#...#",
            ".#..#########....#.#######.##.....#######.#..",
            ".#.##...#.#...#..#.##...##...###...##...#.###",
            ".#..#.#.#..##.###...#.#.##.####.#.#.#.#.#.###",
            ".##.#...#..##...#..##...#.##.####.#.#...#..##",
            "#...#####.#.#..####.#####.##.#.#...#######...",
            "..##....###.####.###.####.##.#.#.#.#...#.#.#.",
            "###...#.#...##.#.#.#.#..#.#.###.#...#..###...",
            "###.##..#..#.##.#.##...###.##.#.#.##..#.###..",
            "..#..##.....#####..#.#.##.#....########.###..",
            "###..#.#.#.#.####.#.#..#...###.#..#...###.#.#",
            "#.#.#.#.#..#.##...#..#.#..##...####.##..#..#.",
            "#.##.#.#####...#...##....#.##....##.#..#.#...",
            "#....##..###..#..#.######.#.#..#.##..##...##.",
            "##.##..#.##.#......#######....##...###.#.#..#",
            "....#.#...#..#...#..#...#...#.######.##.#..##",
            ".####...##....#.##.....#..#..#.###.#####.#...",
            "#..##.#......#..#.#########..###....#####....",
            "........#.#..#.#.####...#.#....###..#...#.##.",
            "#######...##.#.#.##.#.#.####..##....#.#.###..",
            "#.....#....#.#.#..###...#.#.#...##.##...#.##.",
            "#.###.#..###..####..#######..#.##..##########",
            "#.###.#.#####..##.#..##.#......#.##.#..#.#...",
            "#.###.#.##.......#.#..##..##.#.#######...##.#",
            "#.....#.###.##.##..#..####..#.#..#...####...#",
            "#######.###.##.#.#...###...##......#####..#..",
        ])
    }

    /// Version 10: 16-bit character count, 8 interleaved blocks of unequal length.
    func testLongLinkVersion10QuartileMask5MatchesReference() throws {
        let code = try QRCode(encoding: Self.longLink, errorCorrection: .quartile, mask: 5)
        XCTAssertEqual(code.version, 10)
        XCTAssertEqual(code.size, 57)
        assertMatrix(code, equals: [
            "#######.#####.....#...#.###.##...####.#.#.#...##..#######",
            "#.....#.#####.####.#..####.##.##.##...##...#.#.#..#.....#",
            "#.###.#..###.####......###.###..###...####.#####..#.###.#",
            "#.###.#...#.##.#.#.##########.###########..###.#..#.###.#",
            "#.###.#.....#.....##...#########...###...####..#..#.###.#",
            "#.....#..#.#......#....#..#...#..####.####.##.#...#.....#",
            "#######.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#.#######",
            "...........#.##.######..#.#...#.#...##..######..#........",
            ".#....####.##....##.##..#.#####...##.#.#.###.#...#.....##",
            ".##.##.#.#...#..####.#####.#.##..##...#########.######...",
            "#.#.#.#..#####...#..##.##.##.#.#.###...###.#####..##.##..",
            "##..##.##.###..#.#..#.#....#.#.#..#..#..##..#..#..######.",
            ".#....#.#.###......##.......#.##..#####.#.#.#..#.#..##.##",
            "..#.#....#..#.#.##....#.###....###.###...##.....##....###",
            "...####......####..#.###.#.#...####.###....#..###.#..##..",
            "..####..##.#...#...#..#.#..####.#.#...##.#...#....#..####",
            ".#.##.####......#.##...#.##..#.##..####...##.#...#...#...",
            "...#...#.##.##..###.###.#..#.#####..#..#.###.#.###...#..#",
            "....#.#.###.##..#.###.#...##..#..#.###..##.###.##...###.#",
            "##.#.#.#...##.....#.###..#...##..##..#.###..#####..####.#",
            "......###..##.##.....#.##...##.....###...#.#.##...#....##",
            "#.#.##..##...###...#.....#.##...###...###.###.#######.###",
            ".#..#.#.####..#.#..#####....##.####.####......#####.#...#",
            "..####....####..#.#.#..######..#.....##.#.###......####..",
            "..########...##..#...#...##..#.#..#.#.#.###.#.##.##.##.##",
            "#.##.#.#.##.#.#.#.###..##.#....##..###.######..###.#..###",
            "#.############.#.#....##..######....#####....##.########.",
            "#####...##.##....##.#.#..##...###.#...##.##..#..#...###..",
            "##..#.#.#.#...##.#....#####.#.#....##.#..#.#....#.#.#....",
            "#####...####....###..###.##...#.##..##.#####.#..#...###.#",
            "##..#######.#####.##.##..######....###..##.#....#####.#.#",
            "####.#....###...#...#...###..####..#.##.#.#.####..#####..",
            "###.#.#.####..##.##.###..###.#.#.##.#....###....#...##.##",
            ".#..#..#.###.#.###.#..#....#.###..#.#.#..###.##.#..##.#..",
            "....#.##..##.###.#.#..#..##..#....###.#....####.##...#.#.",
            "#..##...##....#####.##.#..#..#.##.#..##.###.####..##..#.#",
            "####..##.##.##.#.##.##.##.###..#.#..#..###.##..#...#.#.##",
            ".##.........#.###.##.#.....###.#.#.###..######...###.#..#",
            "..#.####.#..#.#....###.##.##.##...#####.#..##.##...#.##..",
            ".##.#..##.#..###..#.####.##...#.##.###....#...##....####.",
            "#.#.###...#.#.........#.#..#.#.##.#.#.#..#.......#.###...",
            ".#..##...#.######...#.###..#.#####.####..##..#..#..#..#.#",
            ".#..########..##.#..##..#.#.##.....#####.#...#..#.#.....#",
            ".##.#..#.....####.##.....#.#..#..##..#.######.##.######.#",
            ".####.#.###..#..#......##......#...####..###.##.######..#",
            ".#.........#.##..#.#.#..##.#..##.##..######.#.#.#####.##.",
            "#.#..#####...#.##....##.....#.#..##...###..#.###.#.#..#..",
            "#####..###..####.#.#.#..#.####.#.#.#.##.#.#.##.#.##.#.##.",
            "......###...#..#####.#....#######.#.#...#.#.#.########.#.",
            "........#.###.#..#...######...##.#.##..#.##.#...#...#.#.#",
            "#######.##.....##.###.##.##.#.#..###.##.#..#.####.#.###..",
            "#.....#..###..##..#########...##..#..#...#...#..#...#.#.#",
            "#.###.#..##.##..#..#.#..#.######.#####...###..#.#####..#.",
            "#.###.#..###..##.###.########.##.#.###...##.##.#.####....",
            "#.###.#..###.#.#.###.########...#..#...#.#.###..#...#.###",
            "#.....#.#.#....#..##...#....##...##..#..##.#####.#...##..",
            "#######..###..#####.##...###..#######....#.#....#.####.#.",
        ])
    }

    /// Expected masks come from segno's N1/N2/N4 scoring run over each complete reference symbol
    /// (format and version information drawn, as ISO/IEC 18004:2015 §7.8.3.1 requires), with N3
    /// counted at every start position. For these inputs segno's own automatic choice agrees.
    func testAutomaticMaskMatchesReferencePenaltyChoice() throws {
        let cases: [(String, QRCode.ErrorCorrection, Int)] = [
            ("http://127.0.0.1:8080/join/482913", .low, 1),
            ("http://127.0.0.1:8080/join/482913", .medium, 6),
            ("http://127.0.0.1:8080/join/482913", .quartile, 6),
            ("http://127.0.0.1:8080/join/482913", .high, 3),
            ("https://whatweeat.example/join/000042", .high, 3),
            (Self.longLink, .low, 2),
            (Self.longLink, .quartile, 6),
        ]
        for (text, level, expectedMask) in cases {
            let code = try QRCode(encoding: text, errorCorrection: level)
            XCTAssertEqual(code.maskPattern, expectedMask, "\(text) at \(level)")
            XCTAssertEqual(rows(of: code), rows(of: try QRCode(encoding: text, errorCorrection: level, mask: expectedMask)))
        }
    }

    /// segno's own choice for "HELLO" at M is mask 2, because it scores the symbol with the format
    /// information area left blank. ISO/IEC 18004:2015 §7.8.3.1 says the area evaluated is the
    /// complete symbol; scored that way (with segno's own scorer) mask 3 wins, 992 to 1058.
    func testAutomaticMaskScoresTheCompleteSymbolIncludingFormatInformation() throws {
        XCTAssertEqual(try QRCode(encoding: "HELLO", errorCorrection: .medium).maskPattern, 3)
    }

    func testPicksSmallestVersionThatFits() throws {
        XCTAssertEqual(try QRCode(encoding: String(repeating: "a", count: 17), errorCorrection: .low).version, 1)
        XCTAssertEqual(try QRCode(encoding: String(repeating: "a", count: 18), errorCorrection: .low).version, 2)
        XCTAssertEqual(try QRCode(encoding: String(repeating: "a", count: 7), errorCorrection: .high).version, 1)
        XCTAssertEqual(try QRCode(encoding: String(repeating: "a", count: 8), errorCorrection: .high).version, 2)
        XCTAssertEqual(try QRCode(encoding: "").version, 1)
        // Multi-byte UTF-8 counts in bytes: 6 × 2 bytes + 4 × 1 = 16 bytes, which is version 1 at L (max 17).
        XCTAssertEqual(try QRCode(encoding: "ääääää1234", errorCorrection: .low).version, 1)
    }

    func testLargestSupportedPayloadsAndTooLong() throws {
        let limits: [(QRCode.ErrorCorrection, Int)] = [(.low, 271), (.medium, 213), (.quartile, 151), (.high, 119)]
        for (level, maxBytes) in limits {
            XCTAssertEqual(try QRCode(encoding: String(repeating: "x", count: maxBytes), errorCorrection: level).version, 10)
            XCTAssertThrowsError(try QRCode(encoding: String(repeating: "x", count: maxBytes + 1), errorCorrection: level)) {
                XCTAssertEqual($0 as? QRCode.EncodingError, .tooLong)
            }
        }
    }

    func testRejectsMaskOutsideZeroToSeven() {
        XCTAssertThrowsError(try QRCode(encoding: "x", mask: 8)) { XCTAssertEqual($0 as? QRCode.EncodingError, .invalidMask) }
        XCTAssertThrowsError(try QRCode(encoding: "x", mask: -1)) { XCTAssertEqual($0 as? QRCode.EncodingError, .invalidMask) }
    }

    func testOutsideTheSymbolReadsLight() throws {
        let code = try QRCode(encoding: "HELLO")
        XCTAssertTrue(code.isDark(x: 0, y: 0))
        XCTAssertFalse(code.isDark(x: -1, y: 0))
        XCTAssertFalse(code.isDark(x: 0, y: code.size))
    }

    func testSVGHasEscapedTitleQuietZoneAndSize() throws {
        let code = try QRCode(encoding: "http://127.0.0.1:8080/join/482913")
        XCTAssertEqual(code.size, 29)
        let svg = code.svg(moduleSize: 8, quietZone: 4, title: #"Join "Pizza & Pasta" <now>"#)
        XCTAssertTrue(svg.hasPrefix("<svg "))
        XCTAssertTrue(svg.hasSuffix("</svg>"))
        XCTAssertTrue(svg.contains("<title>Join &quot;Pizza &amp; Pasta&quot; &lt;now&gt;</title>"))
        XCTAssertTrue(svg.contains(#"viewBox="0 0 37 37""#))
        XCTAssertTrue(svg.contains(#"width="296" height="296""#))
        XCTAssertTrue(svg.contains(#"role="img""#))
        XCTAssertTrue(svg.contains(#"shape-rendering="crispEdges""#))
        XCTAssertEqual(svg.components(separatedBy: "<path").count - 1, 1)
        XCTAssertFalse(code.svg().contains("<title>"))
        XCTAssertTrue(code.svg(quietZone: 0).contains(#"viewBox="0 0 29 29""#))
    }

    /// Redraws the path's runs ("Mx,yhNv1h-Nz") and compares them with the module matrix.
    func testSVGPathDrawsExactlyTheDarkModules() throws {
        let code = try QRCode(encoding: "http://127.0.0.1:8080/join/482913", errorCorrection: .quartile)
        let quietZone = 2
        let svg = code.svg(quietZone: quietZone)
        let pathData = try XCTUnwrap(svg.components(separatedBy: #" d=""#).last?.components(separatedBy: "\"").first)
        var drawn = Set<[Int]>()
        for run in pathData.split(separator: "z") {
            let numbers = run.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
            XCTAssertEqual(numbers.count, 5, String(run))
            let (x, y, length) = (numbers[0] - quietZone, numbers[1] - quietZone, numbers[2])
            for dx in 0..<length { drawn.insert([x + dx, y]) }
        }
        var dark = Set<[Int]>()
        for y in 0..<code.size { for x in 0..<code.size where code.isDark(x: x, y: y) { dark.insert([x, y]) } }
        XCTAssertEqual(drawn, dark)
    }
}
