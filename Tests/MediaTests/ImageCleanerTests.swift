@testable import Media
import Platform
import WhatWeEatTesting
import XCTest

/// Uploaded photos lose what they say about their taker (EXIF with GPS, XMP, comments) and keep
/// their pixels; files that lie about their structure are refused, never crash the parser.
final class ImageCleanerTests: XCTestCase {
    static let secret = Array("GPS 37.5663N 126.9779E".utf8)

    func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    func be32(_ value: Int) -> [UInt8] { [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    func le32(_ value: Int) -> [UInt8] { be32(value).reversed() }

    func jpegSegment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] { [0xFF, marker] + be16(payload.count + 2) + payload }

    /// A JPEG as a phone writes it: JFIF, EXIF with a position, a comment, a frame, a scan.
    func phoneJPEG(width: Int = 640, height: Int = 480) -> Data {
        let frame = [8] + be16(height) + be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        // Entropy-coded bytes (0xFF stuffed), as many as a plain picture of that size needs at least.
        let scanData: [UInt8] = [0x12, 0x34, 0xFF, 0x00] + [UInt8](repeating: 0x55, count: width * height / 1_000 + 1) + [0x56, 0x78]
        return Data([0xFF, 0xD8]
            + jpegSegment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
            + jpegSegment(0xE1, Array("Exif".utf8) + [0, 0] + Self.secret)
            + jpegSegment(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Self.secret)
            + jpegSegment(0xFE, Self.secret)
            + jpegSegment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
            + jpegSegment(0xC0, frame)
            + jpegSegment(0xDA, [1, 1, 0, 0, 0x3F, 0])
            + scanData + [0xFF, 0xD9])
    }

    func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] { be32(data.count) + Array(type.utf8) + data + [0, 0, 0, 0] }

    func phonePNG(width: Int = 320, height: Int = 200) -> Data {
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + pngChunk("IHDR", be32(width) + be32(height) + [8, 6, 0, 0, 0])
            + pngChunk("tEXt", Array("Location\u{0}".utf8) + Self.secret)
            + pngChunk("eXIf", Self.secret)
            + pngChunk("IDAT", [0x78, 0x9C] + [UInt8](repeating: 3, count: (width * 4 + 1) * height / 1_000 + 1))
            + pngChunk("IEND", []))
    }

    func webpChunk(_ fourCC: String, _ data: [UInt8]) -> [UInt8] {
        Array(fourCC.utf8) + le32(data.count) + data + (data.count % 2 == 1 ? [0] : [])
    }

    func phoneWebP(width: Int = 800, height: Int = 600) -> Data {
        let w = width - 1, h = height - 1
        let flags: UInt8 = 0x08 | 0x04 | 0x10   // EXIF, XMP, alpha
        let canvas: [UInt8] = [UInt8(w & 0xFF), UInt8(w >> 8 & 0xFF), UInt8(w >> 16 & 0xFF), UInt8(h & 0xFF), UInt8(h >> 8 & 0xFF), UInt8(h >> 16 & 0xFF)]
        let vp8x: [UInt8] = [flags, 0, 0, 0] + canvas
        let frameHeader: [UInt8] = [0, 0, 0, 0x9D, 0x01, 0x2A]
        let frameSize: [UInt8] = [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8), 9, 9]
        var body: [UInt8] = Array("WEBP".utf8)
        body += webpChunk("VP8X", vp8x)
        body += webpChunk("ALPH", [1, 2, 3])
        body += webpChunk("VP8 ", frameHeader + frameSize)
        body += webpChunk("EXIF", Self.secret)
        body += webpChunk("XMP ", Self.secret)
        return Data(Array("RIFF".utf8) + le32(body.count) + body)
    }

    /// A small ICC profile as colour management reads it: a header, one tag (the white point).
    func plainProfile(trailing: [UInt8] = []) -> [UInt8] {
        let size = 164 + trailing.count
        var header = be32(size) + [UInt8](repeating: 0, count: 124)
        header.replaceSubrange(36..<40, with: Array("acsp".utf8))
        let table = be32(1) + Array("wtpt".utf8) + be32(144) + be32(20)
        let whitePoint = Array("XYZ ".utf8) + [0, 0, 0, 0] + be32(0xF6D6) + be32(0x10000) + be32(0xD32D)
        return header + table + whitePoint + trailing
    }

    func assertNoSecret(_ data: Data, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNil(data.range(of: Data(Self.secret)), "the position is gone", file: file, line: line)
    }

    func testJPEGLosesEXIFXMPAndCommentsAndKeepsItsPicture() throws {
        let original = phoneJPEG()
        let clean = try ImageCleaner.clean(original)
        XCTAssertEqual(clean.type, .jpeg)
        XCTAssertEqual(clean.width, 640)
        XCTAssertEqual(clean.height, 480)
        assertNoSecret(clean.data)
        XCTAssertNotNil(clean.data.range(of: Data(Array("JFIF".utf8))), "JFIF stays")
        XCTAssertTrue(clean.data.suffix(6).elementsEqual([0x55, 0x55, 0x56, 0x78, 0xFF, 0xD9]), "the scan is copied as it is")
        XCTAssertNotNil(clean.data.range(of: Data([0x12, 0x34, 0xFF, 0x00, 0x55])), "stuffed bytes stay in the scan")
        XCTAssertEqual(try ImageCleaner.clean(clean.data), clean, "cleaning is idempotent")
    }

    func testPNGAndWebPLoseTheirMetadataChunks() throws {
        let png = try ImageCleaner.clean(phonePNG())
        XCTAssertEqual([png.width, png.height], [320, 200])
        assertNoSecret(png.data)
        XCTAssertNotNil(png.data.range(of: Data(Array("IDAT".utf8))))

        let webp = try ImageCleaner.clean(phoneWebP())
        XCTAssertEqual([webp.width, webp.height], [800, 600])
        assertNoSecret(webp.data)
        let bytes = [UInt8](webp.data)
        XCTAssertEqual(Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16, bytes.count - 8, "RIFF size recomputed")
        XCTAssertEqual(bytes[20] & 0x0C, 0, "VP8X no longer announces EXIF or XMP")
        XCTAssertEqual(bytes[20] & 0x10, 0x10, "other flags (alpha) stay")
    }

    func testOtherTypesAndBrokenFilesAreRefused() {
        let refusals: [(Data, ImageProblem)] = [
            (Data("<?php echo 1; ?>".utf8), .unsupportedType),
            (Data("GIF89a".utf8) + Data(repeating: 0, count: 20), .unsupportedType),   // GIF is not a photo type here
            (phoneJPEG().prefix(40), .malformed),                                         // cut inside a segment
            (Data([0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 1, 2]), .malformed),               // a length past the end
            (Data([0xFF, 0xD8, 0xFF, 0xD9]), .malformed),                                 // no frame
            (phonePNG().prefix(30), .malformed),
            (Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(pngChunk("IDAT", [1]) ), .malformed),   // no IHDR, no IEND
            (Data(Array("RIFF".utf8) + le32(4) + Array("WEBP".utf8)), .malformed),
            (phoneWebP().prefix(30), .malformed),
        ]
        for (data, problem) in refusals {
            XCTAssertThrowsError(try ImageCleaner.clean(data)) { XCTAssertEqual($0 as? ImageProblem, problem, "\([UInt8](data.prefix(12)))") }
        }
        // Random bytes after each signature: refused or cleaned, never a crash.
        var generator = SystemRandomNumberGenerator()
        for signature in [[0xFF, 0xD8, 0xFF] as [UInt8], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], Array("RIFF\u{10}\u{0}\u{0}\u{0}WEBP".utf8)] {
            for _ in 0..<300 {
                let tail = (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                _ = try? ImageCleaner.clean(Data(signature + tail))
            }
        }
    }

    // MARK: Metadata past the first scan (the 2026-11-26 probe, item 5)

    /// A camera's multi-picture file (CIPA DC-007 MPO): the first frame with an APP2 `MPF` index,
    /// then a second whole JPEG with its own EXIF — where cameras write the position again.
    func cameraMPO() -> Data {
        var first = [UInt8](phoneJPEG())
        let mpf = jpegSegment(0xE2, Array("MPF".utf8) + [0] + Array("MM".utf8) + [0, 0x2A, 0, 0, 0, 8] + [UInt8](repeating: 0, count: 16))
        first.insert(contentsOf: mpf, at: 2)
        return Data(first) + phoneJPEG(width: 160, height: 120)
    }

    func testNothingAfterTheFirstEndOfImageIsKept() throws {
        for (name, upload) in [
            ("an MPO whose second frame carries EXIF", cameraMPO()),
            ("a phone's trailer after the picture", phoneJPEG() + Data("MotionPhoto_Data".utf8) + Data(Self.secret)),
            ("a JPEG appended to a JPEG", phoneJPEG() + phoneJPEG(width: 32, height: 32)),
        ] {
            let clean = try ImageCleaner.clean(upload)
            assertNoSecret(clean.data)
            XCTAssertNil(clean.data.range(of: Data("MPF".utf8)), "\(name): the multi-picture index is gone")
            let bytes = [UInt8](clean.data)
            XCTAssertEqual(bytes.count, try ImageCleaner.clean(phoneJPEG()).data.count, "\(name): only the first picture stays")
            XCTAssertEqual(Array(bytes.suffix(2)), [0xFF, 0xD9], name)
            XCTAssertEqual([clean.width, clean.height], [640, 480], name)
        }
    }

    func testSegmentsBetweenScansAreWalkedAndOnlyDrawingOnesKept() throws {
        // A progressive JPEG: tables and a scan, then EXIF and a comment between scans, more
        // tables and a second scan, then the end.
        var bytes = [UInt8](phoneJPEG().dropLast(2))
        bytes += jpegSegment(0xE1, Array("Exif".utf8) + [0, 0] + Self.secret)
        bytes += jpegSegment(0xFE, Self.secret)
        bytes += jpegSegment(0xC4, [0x10] + [UInt8](repeating: 0, count: 16))
        bytes += jpegSegment(0xDA, [1, 1, 0, 0, 0x3F, 0]) + [0x21, 0x43] + [0xFF, 0xD9]
        let clean = try ImageCleaner.clean(Data(bytes))
        assertNoSecret(clean.data)
        let out = [UInt8](clean.data)
        XCTAssertNotNil(clean.data.range(of: Data([0xFF, 0xC4, 0x00, 0x13, 0x10])), "a table between scans stays")
        XCTAssertEqual(Array(out.suffix(4)), [0x21, 0x43, 0xFF, 0xD9], "the second scan stays")
        // An ICC profile stays; other APPn segments (here APP11, where JUMBF goes) do not.
        var withProfile = [UInt8](phoneJPEG())
        withProfile.insert(contentsOf: jpegSegment(0xE2, Array("ICC_PROFILE".utf8) + [0, 1, 1] + plainProfile())
                           + jpegSegment(0xEB, Array("JP".utf8) + Self.secret), at: 2)
        let profiled = try ImageCleaner.clean(Data(withProfile))
        XCTAssertNotNil(profiled.data.range(of: Data(plainProfile())), "the profile, whole")
        assertNoSecret(profiled.data)
        // A scan that never ends is a broken file.
        XCTAssertThrowsError(try ImageCleaner.clean(phoneJPEG().dropLast(2))) { XCTAssertEqual($0 as? ImageProblem, .malformed) }
    }

    func testPNGKeepsOnlyChunksThatDrawAndNothingAfterIEND() throws {
        var bytes = [UInt8](phonePNG())
        let iend = bytes.count - 12
        bytes.insert(contentsOf: pngChunk("gEOm", Self.secret) + pngChunk("iCCP", Array("icc".utf8) + [0, 0, 1, 2])
                     + pngChunk("sRGB", [0]) + pngChunk("pHYs", Array(Self.secret.prefix(9))) + pngChunk("bKGD", [0, 1]), at: iend)
        bytes += pngChunk("eXIf", Self.secret)
        let clean = try ImageCleaner.clean(Data(bytes))
        assertNoSecret(clean.data)
        XCTAssertNotNil(clean.data.range(of: Data("sRGB".utf8)), "the colour space stays")
        for dropped in ["iCCP", "pHYs", "bKGD"] {
            XCTAssertNil(clean.data.range(of: Data(dropped.utf8)), "\(dropped): not a profile; the others do not draw")
        }
        XCTAssertEqual(Array(clean.data.suffix(8)), Array("IEND".utf8) + [0, 0, 0, 0])
    }

    func testGIFsLoseCommentsAndApplicationData() throws {
        let header: [UInt8] = Array("GIF89a".utf8) + [2, 0, 2, 0, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF]
        let looping: [UInt8] = [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        let xmp: [UInt8] = [0x21, 0xFF, 11] + Array("XMP DataXMP".utf8) + [UInt8(Self.secret.count)] + Self.secret + [0]
        let comment: [UInt8] = [0x21, 0xFE, UInt8(Self.secret.count)] + Self.secret + [0]
        let image: [UInt8] = [0x2C, 0, 0, 0, 0, 2, 0, 2, 0, 0, 2, 2, 0x44, 1, 0]
        let clean = try ImageCleaner.clean(Data(header + looping + xmp + comment + image + [0x3B]), allowing: [.gif])
        assertNoSecret(clean.data)
        XCTAssertEqual([UInt8](clean.data), header + looping + image + [0x3B])
        XCTAssertEqual([clean.width, clean.height], [2, 2])
    }

    // MARK: Sizes (the 2026-11-26 probe, item 12)

    func testSizesNoPhotoHasAreRefused() {
        let bombs: [(String, Data)] = [
            ("a JPEG 60000 wide", phoneJPEG(width: 60_000, height: 10)),
            ("a JPEG of 8000×8000 (64 Mpx)", phoneJPEG(width: 8_000, height: 8_000)),
            ("a PNG of 4294967280²", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", be32(4_294_967_280) + be32(4_294_967_280) + [8, 6, 0, 0, 0])
                                         + pngChunk("IDAT", [UInt8](repeating: 1, count: 100)) + pngChunk("IEND", []))),
            ("a PNG of 60000² with 100 bytes of data", Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", be32(6_000) + be32(6_000) + [8, 6, 0, 0, 0])
                                         + pngChunk("IDAT", [UInt8](repeating: 1, count: 100)) + pngChunk("IEND", []))),
            ("a WebP canvas of 16384²", phoneWebP(width: 16_384, height: 16_384)),
        ]
        for (name, data) in bombs {
            XCTAssertThrowsError(try ImageCleaner.clean(data), name) { XCTAssertEqual($0 as? ImageProblem, .tooManyPixels, name) }
        }
        // A JPEG that says 4000×3000 but carries a few bytes of picture.
        var thin = [UInt8](phoneJPEG(width: 4_000, height: 3_000))
        let scanStart = thin.count - (4_000 * 3_000 / 1_000 + 1) - 4
        thin.removeSubrange(scanStart..<(thin.count - 4))
        XCTAssertThrowsError(try ImageCleaner.clean(Data(thin))) { XCTAssertEqual($0 as? ImageProblem, .tooManyPixels) }
        // The largest sizes still pass.
        XCTAssertNoThrow(try ImageCleaner.clean(phoneJPEG(width: 12_000, height: 4_000)))
        XCTAssertNoThrow(try ImageCleaner.clean(phoneJPEG(width: 4_000, height: 3_000)))
    }

    // MARK: Probe 2026-11-27, finding 10: a carrier each

    /// The probe's base picture with one segment inserted after SOI (its own JFIF dropped first).
    func jpegWith(_ segment: [UInt8]) -> Data {
        var bytes = [UInt8](phoneJPEG())
        let jfifLength = Int(bytes[4]) << 8 | Int(bytes[5])
        bytes.removeSubrange(2..<(4 + jfifLength))
        bytes.insert(contentsOf: segment, at: 2)
        return Data(bytes)
    }

    func testAJFIFHeaderIsRewrittenWithoutItsThumbnail() throws {
        let thumbnail = [UInt8](repeating: 0xDC, count: 40 * 40 * 3)   // another picture, 40×40 RGB
        let clean = try ImageCleaner.clean(jpegWith(jpegSegment(0xE0, Array("JFIF".utf8) + [0, 1, 2, 1, 0, 72, 0, 72, 40, 40] + thumbnail)))
        XCTAssertEqual(Array(clean.data.prefix(20)), [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 2, 1, 0, 72, 0, 72, 0, 0],
                       "version, units and density kept; no thumbnail")
        XCTAssertNil(clean.data.range(of: Data(thumbnail.prefix(300))))
    }

    func testAJFXXThumbnailIsDropped() throws {
        let thumbnailJPEG = [UInt8](phoneJPEG(width: 16, height: 16))
        let clean = try ImageCleaner.clean(jpegWith(jpegSegment(0xE0, Array("JFXX".utf8) + [0, 0x10] + thumbnailJPEG)))
        assertNoSecret(clean.data)
        XCTAssertNil(clean.data.range(of: Data("JFXX".utf8)))
        XCTAssertEqual(clean.data.ranges(of: Data([0xFF, 0xD8])).count, 1, "one picture in the file")
    }

    func testAnAdobeSegmentKeepsItsTwelveBytes() throws {
        let adobe = Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 1]
        let clean = try ImageCleaner.clean(jpegWith(jpegSegment(0xEE, adobe + Array("Exif".utf8) + [0, 0] + Self.secret)))
        assertNoSecret(clean.data)
        XCTAssertNotNil(clean.data.range(of: Data([0xFF, 0xEE, 0x00, 0x0E] + adobe)), "the colour transform stays")
    }

    func testAnICCChunkStaysOnlyWhenItIsAPlainProfile() throws {
        let hidden = Array("Exif".utf8) + [0, 0] + Self.secret
        for (name, profile) in [("trailing data", plainProfile(trailing: hidden)), ("not a profile", hidden),
                                ("a gap between tags", plainProfile().prefix(144) + hidden + plainProfile().suffix(20))] {
            let clean = try ImageCleaner.clean(jpegWith(jpegSegment(0xE2, Array("ICC_PROFILE".utf8) + [0, 1, 1] + profile)))
            assertNoSecret(clean.data)
            XCTAssertNil(clean.data.range(of: Data("ICC_PROFILE".utf8)), name)
        }
        // A profile in two chunks is one profile; a missing chunk drops both.
        let whole = plainProfile()
        let two = jpegSegment(0xE2, Array("ICC_PROFILE".utf8) + [0, 1, 2] + whole.prefix(100)) + jpegSegment(0xE2, Array("ICC_PROFILE".utf8) + [0, 2, 2] + whole.dropFirst(100))
        let kept = try ImageCleaner.clean(jpegWith(two))
        XCTAssertEqual(kept.data.ranges(of: Data("ICC_PROFILE".utf8)).count, 2)
        let half = try ImageCleaner.clean(jpegWith(jpegSegment(0xE2, Array("ICC_PROFILE".utf8) + [0, 1, 2] + whole.prefix(100))))
        XCTAssertNil(half.data.range(of: Data("ICC_PROFILE".utf8)))
        XCTAssertTrue(ImageCleaner.isPlainICCProfile(whole))
    }

    func testAWebPProfileWithSomethingAfterItGoesAndItsFlagWithIt() throws {
        var bytes = [UInt8](phoneWebP())
        let profileChunk = webpChunk("ICCP", plainProfile(trailing: Self.secret))
        bytes.insert(contentsOf: profileChunk, at: 12 + 8 + 10)   // after VP8X
        bytes[20] |= 0x20
        let total = bytes.count - 8
        bytes.replaceSubrange(4..<8, with: le32(total))
        let clean = try ImageCleaner.clean(Data(bytes))
        assertNoSecret(clean.data)
        XCTAssertNil(clean.data.range(of: Data("ICCP".utf8)))
        XCTAssertEqual([UInt8](clean.data)[20] & 0x20, 0, "VP8X no longer says there is a profile")
    }

    /// A zlib stream (RFC 1950) holding `data` in one stored block, with its Adler-32.
    func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var a = 1, b = 0
        for byte in data { a = (a + Int(byte)) % 65_521; b = (b + a) % 65_521 }
        let length = data.count
        return [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            + data + be32(b << 16 | a)
    }

    func pngWithProfile(_ chunkData: [UInt8]) throws -> CleanImage {
        var bytes = [UInt8](phonePNG())
        bytes.insert(contentsOf: pngChunk("iCCP", chunkData), at: 8 + 25)   // after IHDR
        return try ImageCleaner.clean(Data(bytes))
    }

    func testAPNGProfileStaysOnlyWhenItInflatesToAPlainProfile() throws {
        let name = Array("Display P3".utf8) + [0, 0]
        let kept = try pngWithProfile(name + zlibStored(plainProfile()))
        XCTAssertNotNil(kept.data.range(of: Data("iCCP".utf8)), "a real profile draws the colours right")
        XCTAssertNotNil(kept.data.range(of: Data(plainProfile())), "as it was")
        for (why, data) in [("bytes after the stream", name + zlibStored(plainProfile()) + Self.secret),
                            ("a profile with bytes after its tags", name + zlibStored(plainProfile(trailing: Self.secret))),
                            ("not a profile", name + zlibStored(Self.secret)),
                            ("a cut stream", name + Array(zlibStored(plainProfile()).dropLast(6))),
                            ("no name", [0, 0] + zlibStored(plainProfile()))] {
            let clean = try pngWithProfile(data)
            XCTAssertNil(clean.data.range(of: Data("iCCP".utf8)), why)
            assertNoSecret(clean.data)
        }
        XCTAssertNil(ZlibStream.inflateWhole(zlibStored([UInt8](repeating: 7, count: 2_000)), limit: 1_000), "inflating stops at the limit")
    }
}
