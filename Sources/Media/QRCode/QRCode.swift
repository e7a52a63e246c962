import Foundation
import Platform

/// A QR Code (Model 2, ISO/IEC 18004) holding a short byte-mode payload, e.g. a game's join link.
///
/// Only what the server needs is implemented: byte mode, versions 1–10, all four error
/// correction levels. That covers up to 271 bytes at level low and 119 bytes at level high.
package struct QRCode: Sendable {
    package enum ErrorCorrection: Sendable, CaseIterable {
        case low, medium, quartile, high

        /// The two-bit level indicator used in the format information (note: not in L-M-Q-H order).
        fileprivate var formatBits: Int {
            switch self {
            case .low: 1
            case .medium: 0
            case .quartile: 3
            case .high: 2
            }
        }
    }

    enum EncodingError: Error, Equatable {
        /// The payload does not fit in the largest supported version at the requested level.
        case tooLong
        /// A forced mask pattern outside 0...7.
        case invalidMask
    }

    static let supportedVersions = 1...10

    package let version: Int
    /// Modules per side, without the quiet zone.
    package let size: Int
    package let errorCorrection: ErrorCorrection
    let maskPattern: Int
    /// Row-major, `true` = dark.
    private let modules: [Bool]

    /// Encodes `text` as UTF-8 bytes in the smallest version that fits.
    /// - Parameter mask: forces a mask pattern (0...7); `nil` picks the one with the lowest penalty.
    package init(encoding text: String, errorCorrection: ErrorCorrection = .medium, mask: Int? = nil) throws {
        if let mask, !(0...7).contains(mask) { throw EncodingError.invalidMask }
        let bytes = Array(text.utf8)
        guard let version = Self.supportedVersions.first(where: { v in
            // Mode indicator + character count + payload must fit in the data codewords.
            4 + Self.characterCountBits(version: v) + 8 * bytes.count
                <= 8 * Self.dataCodewordCount(version: v, level: errorCorrection)
        }) else { throw EncodingError.tooLong }

        var symbol = SymbolBuilder(version: version)
        symbol.drawFunctionPatterns()
        let data = Self.dataCodewords(for: bytes, version: version, level: errorCorrection)
        symbol.drawCodewords(Self.interleavedWithErrorCorrection(data, version: version, level: errorCorrection))

        let chosenMask: Int
        if let mask {
            chosenMask = mask
        } else {
            let penalties = (0..<8).map { symbol.masked($0, level: errorCorrection).penalty }
            // `min` keeps the first of equal elements, so ties go to the lower mask number.
            chosenMask = penalties.indices.min { penalties[$0] < penalties[$1] }!
        }
        let final = symbol.masked(chosenMask, level: errorCorrection)

        self.version = version
        self.size = final.size
        self.errorCorrection = errorCorrection
        self.maskPattern = chosenMask
        self.modules = final.modules
    }

    /// Coordinates outside the symbol read as light, like the quiet zone around it.
    func isDark(x: Int, y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return modules[y * size + x]
    }

    // MARK: - Data codewords

    private static func characterCountBits(version: Int) -> Int { version <= 9 ? 8 : 16 }

    private static func dataCodewords(for bytes: [UInt8], version: Int, level: ErrorCorrection) -> [UInt8] {
        let capacity = dataCodewordCount(version: version, level: level)
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)  // byte mode
        bits.append(bytes.count, count: characterCountBits(version: version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        bits.append(0, count: min(4, capacity * 8 - bits.count))  // terminator, shortened if full
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        // Alternating pad codewords fill the remaining capacity.
        var pad: UInt8 = 0xEC
        while codewords.count < capacity {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    // MARK: - Error correction and block structure

    /// Error correction codewords per block, indexed by version − 1 (ISO/IEC 18004 Table 9).
    private static func eccCodewordsPerBlock(level: ErrorCorrection) -> [Int] {
        switch level {
        case .low: [7, 10, 15, 20, 26, 18, 20, 24, 30, 18]
        case .medium: [10, 16, 26, 18, 24, 16, 18, 22, 22, 26]
        case .quartile: [13, 22, 18, 26, 18, 24, 18, 22, 20, 24]
        case .high: [17, 28, 22, 16, 22, 28, 26, 26, 24, 28]
        }
    }

    /// Number of error correction blocks, indexed by version − 1.
    private static func blockCount(level: ErrorCorrection) -> [Int] {
        switch level {
        case .low: [1, 1, 1, 1, 1, 2, 2, 2, 2, 4]
        case .medium: [1, 1, 1, 2, 2, 4, 4, 4, 5, 5]
        case .quartile: [1, 1, 2, 2, 4, 4, 6, 6, 8, 8]
        case .high: [1, 1, 2, 4, 4, 4, 5, 6, 8, 8]
        }
    }

    /// All codewords the symbol holds: its area minus function patterns, format and version info.
    private static func totalCodewordCount(version: Int) -> Int {
        let size = 17 + 4 * version
        var bits = size * size - 3 * 64 - 2 * (size - 16) - 31  // finders+separators, timing, format+dark
        let alignmentCount = alignmentPatternCenters(version: version).count
        if alignmentCount > 0 {
            bits -= 25 * (alignmentCount * alignmentCount - 3)  // corners under finders are skipped
            bits += 10 * (alignmentCount - 2)  // ...and those on the timing lines overlap them
        }
        if version >= 7 { bits -= 36 }
        return bits / 8  // leftover remainder bits hold no codeword
    }

    private static func dataCodewordCount(version: Int, level: ErrorCorrection) -> Int {
        totalCodewordCount(version: version)
            - eccCodewordsPerBlock(level: level)[version - 1] * blockCount(level: level)[version - 1]
    }

    /// Splits data into blocks (short ones first), appends each block's Reed–Solomon
    /// codewords, then interleaves column-wise so a burst of damage spreads over blocks.
    private static func interleavedWithErrorCorrection(_ data: [UInt8], version: Int, level: ErrorCorrection) -> [UInt8] {
        let blocks = blockCount(level: level)[version - 1]
        let eccLength = eccCodewordsPerBlock(level: level)[version - 1]
        let shortDataLength = data.count / blocks
        let longBlockCount = data.count % blocks
        let generator = ReedSolomon.generator(degree: eccLength)

        var dataBlocks: [ArraySlice<UInt8>] = []
        var start = 0
        for index in 0..<blocks {
            let length = shortDataLength + (index >= blocks - longBlockCount ? 1 : 0)
            dataBlocks.append(data[start..<start + length])
            start += length
        }
        let eccBlocks = dataBlocks.map { ReedSolomon.remainder(of: $0, generator: generator) }

        var result: [UInt8] = []
        for column in 0...shortDataLength {
            for block in dataBlocks where column < block.count { result.append(block[block.startIndex + column]) }
        }
        for column in 0..<eccLength {
            for block in eccBlocks { result.append(block[column]) }
        }
        return result
    }

    /// Centre coordinates of alignment patterns on each axis (ISO/IEC 18004 Annex E).
    fileprivate static func alignmentPatternCenters(version: Int) -> [Int] {
        switch version {
        case 1: []
        case 2...6: [6, 10 + 4 * version]
        case 7: [6, 22, 38]
        case 8: [6, 24, 42]
        case 9: [6, 26, 46]
        default: [6, 28, 50]
        }
    }
}

// MARK: - SVG

extension QRCode {
    /// A compact SVG: one path made of horizontal runs of dark modules over a white background.
    /// The quiet zone is part of the drawing because scanners need that light margin.
    package func svg(moduleSize: Int = 8, quietZone: Int = 4, title: String? = nil) -> String {
        let quietZone = max(quietZone, 0)
        let side = size + 2 * quietZone
        let pixels = side * max(moduleSize, 1)
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else { x += 1; continue }
                let runStart = x
                while x < size && isDark(x: x, y: y) { x += 1 }
                let length = x - runStart
                path += "M\(runStart + quietZone),\(y + quietZone)h\(length)v1h-\(length)z"
            }
        }
        var svg = #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(pixels)" height="\#(pixels)" "#
            + #"viewBox="0 0 \#(side) \#(side)" role="img" shape-rendering="crispEdges">"#
        if let title { svg += "<title>\(Markup.escape(title))</title>" }
        svg += #"<rect width="\#(side)" height="\#(side)" fill="white"/>"#
        svg += #"<path fill="black" d="\#(path)"/></svg>"#
        return svg
    }
}

// MARK: - Building blocks

private struct BitBuffer {
    private(set) var bits: [Bool] = []
    var count: Int { bits.count }

    mutating func append(_ value: Int, count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) { bits.append((value >> shift) & 1 == 1) }
    }

    var bytes: [UInt8] {
        stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
        }
    }
}

/// Reed–Solomon over GF(256) with the QR field polynomial x⁸+x⁴+x³+x²+1 (0x11D).
private enum ReedSolomon {
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var product = 0
        for bit in stride(from: 7, through: 0, by: -1) {
            product = (product << 1) ^ ((product >> 7) * 0x11D)
            if (b >> bit) & 1 == 1 { product ^= Int(a) }
        }
        return UInt8(product)
    }

    /// Coefficients of ∏(x − αⁱ) for i in 0..<degree, highest power first, leading 1 omitted.
    static func generator(degree: Int) -> [UInt8] {
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                coefficients[j] = multiply(coefficients[j], root)
                if j + 1 < degree { coefficients[j] ^= coefficients[j + 1] }
            }
            root = multiply(root, 2)
        }
        return coefficients
    }

    /// The remainder of data·x^degree divided by the generator: the error correction codewords.
    static func remainder(of data: ArraySlice<UInt8>, generator: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for i in result.indices { result[i] ^= multiply(generator[i], factor) }
        }
        return result
    }
}

/// The module grid under construction; `isFunction` marks modules that masking must not touch.
private struct SymbolBuilder {
    let version: Int
    let size: Int
    var modules: [Bool]
    var isFunction: [Bool]

    init(version: Int) {
        self.version = version
        size = 17 + 4 * version
        modules = Array(repeating: false, count: size * size)
        isFunction = Array(repeating: false, count: size * size)
    }

    private mutating func setFunction(x: Int, y: Int, dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    mutating func drawFunctionPatterns() {
        for i in 0..<size {
            setFunction(x: 6, y: i, dark: i % 2 == 0)
            setFunction(x: i, y: 6, dark: i % 2 == 0)
        }
        // Finders, with their light separators clipped to the symbol.
        for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 where (0..<size).contains(cx + dx) && (0..<size).contains(cy + dy) {
                    let ring = max(abs(dx), abs(dy))
                    setFunction(x: cx + dx, y: cy + dy, dark: ring != 2 && ring != 4)
                }
            }
        }
        let centers = QRCode.alignmentPatternCenters(version: version)
        for cy in centers {
            for cx in centers {
                let overlapsFinder = (cx == 6 && cy == 6) || (cx == 6 && cy == size - 7) || (cx == size - 7 && cy == 6)
                if overlapsFinder { continue }
                for dy in -2...2 {
                    for dx in -2...2 { setFunction(x: cx + dx, y: cy + dy, dark: max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        drawFormatBits(0)  // reserves the area; the real bits depend on the mask
        drawVersionBits()
    }

    /// 15 bits: level and mask, a BCH(15,5) remainder, XORed with 0x5412 so they are never all light.
    mutating func drawFormatBits(_ formatData: Int) {
        var remainder = formatData
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (formatData << 10 | remainder) ^ 0x5412
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }

        // Copy around the top-left finder.
        for i in 0...5 { setFunction(x: 8, y: i, dark: bit(i)) }
        setFunction(x: 8, y: 7, dark: bit(6))
        setFunction(x: 8, y: 8, dark: bit(7))
        setFunction(x: 7, y: 8, dark: bit(8))
        for i in 9..<15 { setFunction(x: 14 - i, y: 8, dark: bit(i)) }
        // Copy split between the top-right and bottom-left finders.
        for i in 0..<8 { setFunction(x: size - 1 - i, y: 8, dark: bit(i)) }
        for i in 8..<15 { setFunction(x: 8, y: size - 15 + i, dark: bit(i)) }
        setFunction(x: 8, y: size - 8, dark: true)  // the "dark module"
    }

    /// Versions 7+ carry their version number in two 6×3 blocks, protected by a BCH(18,6) code.
    private mutating func drawVersionBits() {
        guard version >= 7 else { return }
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for i in 0..<18 {
            let dark = (bits >> i) & 1 == 1
            let (a, b) = (size - 11 + i % 3, i / 3)
            setFunction(x: a, y: b, dark: dark)
            setFunction(x: b, y: a, dark: dark)
        }
    }

    /// Places codewords MSB first in two-module-wide columns, zig-zagging up and down from the
    /// bottom-right and skipping the vertical timing column. Unfilled remainder bits stay light.
    mutating func drawCodewords(_ codewords: [UInt8]) {
        var bitIndex = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !isFunction[y * size + x] && bitIndex < codewords.count * 8 {
                    modules[y * size + x] = (codewords[bitIndex >> 3] >> (7 - (bitIndex & 7))) & 1 == 1
                    bitIndex += 1
                }
            }
            right -= 2
        }
    }

    /// A copy with data mask `mask` applied and its format information drawn.
    func masked(_ mask: Int, level: QRCode.ErrorCorrection) -> SymbolBuilder {
        var copy = self
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] {
                let invert = switch mask {
                case 0: (x + y) % 2 == 0
                case 1: y % 2 == 0
                case 2: x % 3 == 0
                case 3: (x + y) % 3 == 0
                case 4: (x / 3 + y / 2) % 2 == 0
                case 5: x * y % 2 + x * y % 3 == 0
                case 6: (x * y % 2 + x * y % 3) % 2 == 0
                default: ((x + y) % 2 + x * y % 3) % 2 == 0
                }
                if invert { copy.modules[y * size + x].toggle() }
            }
        }
        copy.drawFormatBits(level.formatBits << 3 | mask)
        return copy
    }

    /// ISO/IEC 18004:2015 §7.8.3.1 penalty, scored over the complete symbol (format and version
    /// information included, as the standard says) — lower is better.
    var penalty: Int {
        var score = 0
        var darkCount = 0
        let rows = (0..<size).map { y in Array(modules[y * size..<(y + 1) * size]) }
        let columns = (0..<size).map { x in (0..<size).map { y in modules[y * size + x] } }
        for line in rows + columns {
            score += Self.runPenalty(line) + Self.finderLikePenalty(line)
        }
        for y in 0..<size {
            for x in 0..<size {
                let dark = modules[y * size + x]
                if dark { darkCount += 1 }
                // N2: every 2×2 block of one colour (an m×n block thus scores 3·(m−1)·(n−1)).
                if x > 0, y > 0, modules[(y - 1) * size + x] == dark,
                   modules[y * size + x - 1] == dark, modules[(y - 1) * size + x - 1] == dark {
                    score += 3
                }
            }
        }
        // N4: 10 points per full 5% that the dark share deviates from 50%.
        let total = size * size
        score += 10 * (abs(darkCount * 20 - total * 10) / total)
        return score
    }

    /// N1: a run of 5 + i same-coloured modules scores 3 + i.
    private static func runPenalty(_ line: [Bool]) -> Int {
        var score = 0
        var runLength = 0
        for (index, dark) in line.enumerated() {
            runLength = index > 0 && line[index - 1] == dark ? runLength + 1 : 1
            let runEnds = index == line.count - 1 || line[index + 1] != dark
            if runEnds && runLength >= 5 { score += runLength - 2 }
        }
        return score
    }

    /// N3: 40 points per dark-light-dark-dark-dark-light-dark pattern with four light modules
    /// before or after it; modules beyond the edge count as light since the quiet zone is.
    private static func finderLikePenalty(_ line: [Bool]) -> Int {
        let pattern = [true, false, true, true, true, false, true]
        func isLight(_ range: Range<Int>) -> Bool {
            range.clamped(to: 0..<line.count).allSatisfy { !line[$0] }
        }
        var score = 0
        for start in 0...(line.count - pattern.count) where Array(line[start..<start + 7]) == pattern {
            if isLight(start - 4..<start) || isLight(start + 7..<start + 11) { score += 40 }
        }
        return score
    }
}
