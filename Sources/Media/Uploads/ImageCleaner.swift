public import Foundation

/// Why an upload is not an image we keep.
public enum ImageProblem: Error, Equatable, Sendable {
    /// Not JPEG, PNG or WebP by its bytes.
    case unsupportedType
    /// Starts like one of them but does not parse as one.
    case malformed
    /// Declares more pixels than a photo has (`ImageCleaner.maxSide`, `maxPixels`), or far more
    /// than its compressed data could hold: a decompression bomb for whoever draws it.
    case tooManyPixels
}

/// An image as we store it: its bytes without metadata, its type and its size in pixels.
public struct CleanImage: Sendable, Equatable {
    public let data: Data
    public let type: ImageType
    public let width: Int
    public let height: Int
}

/// Removes what a photo says about the person who took it before it is stored: a phone's JPEG
/// carries the GPS position of the shop (and of the home next door) in EXIF, and cameras write
/// more EXIF into the extra frames of a multi-picture file. Kept: the pixels and what draws them
/// (JPEG tables, colour profiles). Everything else goes — what is kept is listed, not what is
/// dropped, so an unknown place for metadata is dropped too, and a kept segment keeps only what
/// drawing reads of it:
/// - JPEG: up to the first end-of-image marker, nothing after it (MPO frames, "motion photo"
///   videos, appended files); of the APPn segments only JFIF's header rewritten without its
///   thumbnail (JFXX thumbnails dropped), an ICC profile only when its chunks are one plain
///   profile (`isPlainICCProfile`), Adobe's 12 bytes, and none between scans; no comments;
/// - PNG: the critical chunks and the ancillary ones drawing needs (transparency, gamma,
///   chromaticities, colour space, HDR metadata, animation), and an ICC profile only when it
///   inflates (system zlib) to exactly one plain profile; nothing after IEND;
/// - WebP: the picture, alpha and animation chunks, and the ICC chunk when it is a plain
///   profile (VP8X's EXIF/XMP flags cleared, and its ICC flag when the profile went);
/// - GIF: no comments, no application blocks but the looping one.
/// Sizes are checked: at most `maxSide` pixels a side and `maxPixels` in all, and never far more
/// pixels than the compressed data could describe. The parsers read lengths from the file and
/// check each against what is left, so a truncated or lying file is refused, never a crash.
/// (Stripping EXIF drops its orientation tag too; the web pages resize photos in the browser,
/// which applies the orientation first.)
public enum ImageCleaner {
    public static let maxSide = 12_000
    public static let maxPixels = 50_000_000

    public static func clean(_ data: Data, allowing types: Set<ImageType> = [.jpeg, .png, .webp]) throws(ImageProblem) -> CleanImage {
        guard let type = ImageType.sniff(data), types.contains(type) else { throw .unsupportedType }
        let bytes = [UInt8](data)
        let image: CleanImage
        switch type {
        case .jpeg: image = try jpeg(bytes)
        case .png: image = try png(bytes)
        case .webp: image = try webp(bytes)
        case .gif: image = try gif(bytes)
        }
        return image
    }

    /// Refuses sizes no photo has.
    static func checkSize(width: Int, height: Int) throws(ImageProblem) {
        guard width > 0, height > 0 else { throw .malformed }
        guard width <= maxSide, height <= maxSide, width * height <= maxPixels else { throw .tooManyPixels }
    }

    // MARK: JPEG

    /// What of a segment is written out: `nil` drops it. Of the APPn segments only what says how
    /// to draw is kept, and only as much of it as drawing reads: JFIF's header without its
    /// thumbnail (written once), Adobe's 12 bytes (its colour transform). JFXX (thumbnails), EXIF,
    /// XMP, IPTC, MPF, comments and every unknown APPn go. ICC chunks are checked apart (`iccProfile`).
    static func keptJPEGSegment(_ marker: UInt8, _ segment: ArraySlice<UInt8>) -> [UInt8]? {
        let payload = segment.dropFirst(2)
        switch marker {
        case 0xE0:
            // "JFIF\0", version (2), units (1), densities (2 + 2); the thumbnail's size is written as 0×0.
            guard payload.starts(with: Array("JFIF\u{0}".utf8)), payload.count >= 12 else { return nil }
            return [0xFF, 0xE0, 0x00, 0x10] + payload.prefix(12) + [0x00, 0x00]
        case 0xEE:
            guard payload.starts(with: Array("Adobe".utf8)), payload.count >= 12 else { return nil }
            return [0xFF, 0xEE, 0x00, 0x0E] + payload.prefix(12)
        case 0xE1...0xEF, 0xFE: return nil                     // EXIF, ICC (apart), XMP, IPTC, MPF, comments and the rest
        default: return [0xFF, marker] + segment               // tables, frames, scans, restart intervals
        }
    }

    /// An ICC chunk's profile bytes and its place in the sequence (`ICC_PROFILE\0`, sequence
    /// number, count), or nil when the APP2 segment is not one.
    private static func iccChunk(_ segment: ArraySlice<UInt8>) -> (number: Int, count: Int, data: ArraySlice<UInt8>)? {
        let payload = segment.dropFirst(2)
        let signature = Array("ICC_PROFILE\u{0}".utf8)
        guard payload.starts(with: signature), payload.count > signature.count + 2 else { return nil }
        let at = payload.startIndex + signature.count
        return (Int(payload[at]), Int(payload[at + 1]), payload[(at + 2)...])
    }

    /// A profile as colour management reads it, and nothing more: the 128-byte header (its size
    /// field is the profile's size, `acsp` at 36), the tag table, every tag's data inside the
    /// profile, and between and after them only zeros to the next 4-byte boundary. Anything else
    /// (bytes after the last tag, a gap between tags) could carry a file of its own.
    static func isPlainICCProfile(_ profile: [UInt8]) -> Bool {
        guard profile.count >= 132, profile.count <= 4 << 20, bigEndian(profile, 0, 4) == profile.count,
              Array(profile[36..<40]) == Array("acsp".utf8) else { return false }
        let tagCount = bigEndian(profile, 128, 4)
        let tableEnd = 132 + tagCount * 12
        guard (1...256).contains(tagCount), tableEnd <= profile.count else { return false }
        var spans = [(start: 0, end: tableEnd)]
        for tag in 0..<tagCount {
            let entry = 132 + tag * 12
            let offset = bigEndian(profile, entry + 4, 4), size = bigEndian(profile, entry + 8, 4)
            guard size >= 8, offset >= tableEnd, offset + size <= profile.count else { return false }
            spans.append((offset, offset + size))
        }
        var covered = 0
        for span in spans.sorted(by: { $0.start < $1.start }) {
            let aligned = (covered + 3) & ~3
            guard span.start <= aligned, profile[min(covered, span.start)..<span.start].allSatisfy({ $0 == 0 }) else { return false }
            covered = max(covered, span.end)
        }
        return (covered + 3) & ~3 >= profile.count && profile[covered...].allSatisfy { $0 == 0 }
    }

    /// The ICC chunks of a JPEG, in order, when together they are one plain profile (`isPlainICCProfile`):
    /// written as they came; otherwise none.
    private static func checkedICCSegments(_ chunks: [(number: Int, count: Int, data: ArraySlice<UInt8>)]) -> [UInt8] {
        guard let count = chunks.first?.count, count == chunks.count,
              chunks.map(\.number) == Array(1...count), chunks.allSatisfy({ $0.count == count }) else { return [] }
        guard isPlainICCProfile(chunks.flatMap(\.data)) else { return [] }
        return chunks.flatMap { chunk -> [UInt8] in
            let length = 2 + 12 + 2 + chunk.data.count
            return [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE\u{0}".utf8)
                + [UInt8(chunk.number), UInt8(chunk.count)] + chunk.data
        }
    }

    package static func jpeg(_ bytes: [UInt8]) throws(ImageProblem) -> CleanImage {
        var output: [UInt8] = [0xFF, 0xD8]
        var index = 2
        var size: (width: Int, height: Int)?
        var scanBytes = 0
        var sawScan = false, wroteJFIF = false
        var iccChunks: [(number: Int, count: Int, data: ArraySlice<UInt8>)] = []
        var iccAt: Int?
        while true {
            // Markers may be padded with extra 0xFF bytes.
            guard index < bytes.count, bytes[index] == 0xFF else { throw .malformed }
            while index < bytes.count, bytes[index] == 0xFF { index += 1 }
            guard index < bytes.count else { throw .malformed }
            let marker = bytes[index]
            index += 1
            if marker == 0xD9 { output += [0xFF, 0xD9]; break }                     // end of image: nothing after it is kept
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { output += [0xFF, marker]; continue }
            guard index + 1 < bytes.count else { throw .malformed }
            let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            guard length >= 2, index + length <= bytes.count else { throw .malformed }
            let segment = bytes[index..<(index + length)]
            let isStartOfFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isStartOfFrame {
                guard length >= 7, size == nil else { throw .malformed }
                let base = segment.startIndex
                size = (Int(segment[base + 5]) << 8 | Int(segment[base + 6]), Int(segment[base + 3]) << 8 | Int(segment[base + 4]))
            }
            if marker == 0xE2, let chunk = iccChunk(segment) {
                guard !sawScan else { index += length; continue }   // nothing between scans but tables
                iccAt = iccAt ?? output.count
                iccChunks.append(chunk)
            } else if marker == 0xE0 {
                if !wroteJFIF, !sawScan, let header = keptJPEGSegment(marker, segment) { output += header; wroteJFIF = true }
            } else if let kept = keptJPEGSegment(marker, segment), !(sawScan && (0xE0...0xEF).contains(marker)) {
                output += kept
            }
            index += length
            if marker == 0xDA {
                // Entropy-coded data follows, up to the next marker that is not a stuffed 0xFF00
                // or a restart marker; it is copied as it is.
                guard size != nil else { throw .malformed }
                let start = index
                while index + 1 < bytes.count {
                    if bytes[index] == 0xFF, bytes[index + 1] != 0x00, !(0xD0...0xD7).contains(bytes[index + 1]) { break }
                    index += 1
                }
                guard index + 1 < bytes.count else { throw .malformed }   // no end of image
                output += bytes[start..<index]
                scanBytes += index - start
                sawScan = true
            }
        }
        guard let size else { throw .malformed }
        if let iccAt { output.insert(contentsOf: checkedICCSegments(iccChunks), at: iccAt) }
        try checkSize(width: size.width, height: size.height)
        // A uniform picture compresses to a few bits per 8×8 block; a file with a byte of scan for
        // every thousand pixels or less says it is larger than it is.
        guard scanBytes * 1_000 >= size.width * size.height else { throw .tooManyPixels }
        return CleanImage(data: Data(output), type: .jpeg, width: size.width, height: size.height)
    }

    // MARK: PNG

    /// Chunks that say what the pixels are and how to draw them; every other chunk is dropped.
    static let pngKeptChunks: Set<String> = [
        "IHDR", "PLTE", "IDAT", "IEND", "tRNS", "gAMA", "cHRM", "sRGB", "cICP", "mDCv", "cLLi", "acTL", "fcTL", "fdAT",
    ]

    /// A PNG `iCCP` chunk's data: a name (1–79 Latin-1 characters), a zero, compression method 0,
    /// then one zlib stream that inflates to a plain ICC profile and ends with the chunk.
    static func isPlainPNGProfile(_ data: ArraySlice<UInt8>) -> Bool {
        guard let zero = data.firstIndex(of: 0), (1...79).contains(zero - data.startIndex),
              data[data.startIndex..<zero].allSatisfy({ (32...126).contains($0) || $0 >= 161 }),
              zero + 1 < data.endIndex, data[zero + 1] == 0,
              let profile = ZlibStream.inflateWhole(Array(data[(zero + 2)...]), limit: 4 << 20) else { return false }
        return isPlainICCProfile(profile)
    }

    package static func png(_ bytes: [UInt8]) throws(ImageProblem) -> CleanImage {
        var output = Array(bytes[0..<8])
        var index = 8
        var header: (width: Int, height: Int, bitsPerPixel: Int)?
        var compressedBytes = 0
        var ended = false
        while index < bytes.count {
            guard index + 12 <= bytes.count else { throw .malformed }
            let length = bigEndian(bytes, index, 4)
            let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
            let total = 12 + length
            guard length >= 0, index + total <= bytes.count else { throw .malformed }
            if type == "IHDR" {
                guard length >= 13, header == nil else { throw .malformed }
                let depth = Int(bytes[index + 16]), colour = Int(bytes[index + 17])
                let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colour] ?? 4
                header = (bigEndian(bytes, index + 8, 4), bigEndian(bytes, index + 12, 4), channels * max(1, depth))
            }
            if type == "IDAT" || type == "fdAT" { compressedBytes += length }
            if pngKeptChunks.contains(type) || (type == "iCCP" && isPlainPNGProfile(bytes[(index + 8)..<(index + 8 + length)])) {
                output += bytes[index..<(index + total)]
            }
            index += total
            if type == "IEND" { ended = true; break }
        }
        guard ended, let header else { throw .malformed }
        try checkSize(width: header.width, height: header.height)
        // Deflate shrinks data at most about 1,032 times; the rows' bytes cannot come from less.
        let rowBytes = (header.width * header.bitsPerPixel + 7) / 8 + 1
        guard compressedBytes * 1_100 >= rowBytes * header.height else { throw .tooManyPixels }
        return CleanImage(data: Data(output), type: .png, width: header.width, height: header.height)
    }

    // MARK: WebP

    static let webpKeptChunks: Set<String> = ["VP8X", "VP8 ", "VP8L", "ALPH", "ANIM", "ANMF", "ICCP"]

    package static func webp(_ bytes: [UInt8]) throws(ImageProblem) -> CleanImage {
        guard bytes.count >= 12, littleEndian(bytes, 4, 4) + 8 <= bytes.count else { throw .malformed }
        var chunks: [[UInt8]] = []
        var index = 12
        var size: (width: Int, height: Int)?
        var hasPicture = false, droppedProfile = false
        while index + 8 <= bytes.count {
            let fourCC = String(decoding: bytes[index..<(index + 4)], as: UTF8.self)
            let length = littleEndian(bytes, index + 4, 4)
            let padded = length + (length & 1)
            guard index + 8 + length <= bytes.count else { throw .malformed }
            var chunk = Array(bytes[index..<min(bytes.count, index + 8 + padded)])
            let body = Array(bytes[(index + 8)..<(index + 8 + length)])
            switch fourCC {
            case "VP8X":
                guard body.count >= 10 else { throw .malformed }
                chunk[8] &= ~(0x08 | 0x04)   // no EXIF, no XMP any more
                size = (littleEndian(body, 4, 3) + 1, littleEndian(body, 7, 3) + 1)
            case "VP8 " where size == nil:
                guard body.count >= 10 else { throw .malformed }
                size = (littleEndian(body, 6, 2) & 0x3FFF, littleEndian(body, 8, 2) & 0x3FFF)
            case "VP8L" where size == nil:
                guard body.count >= 5, body[0] == 0x2F else { throw .malformed }
                let bits = littleEndian(body, 1, 4)
                size = ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
            default: break
            }
            if ["VP8 ", "VP8L", "ANMF"].contains(fourCC) { hasPicture = true }
            if fourCC == "ICCP", !isPlainICCProfile(body) {
                droppedProfile = true
            } else if webpKeptChunks.contains(fourCC) {
                chunks.append(chunk)
            }
            index += 8 + padded
        }
        guard hasPicture, let size else { throw .malformed }
        try checkSize(width: size.width, height: size.height)
        if droppedProfile, let extended = chunks.firstIndex(where: { $0.starts(with: Array("VP8X".utf8)) }) {
            chunks[extended][8] &= ~0x20   // no ICC profile any more
        }
        let payload = Array("WEBP".utf8) + chunks.flatMap { $0 }
        let riffSize = UInt32(payload.count)
        let header = Array("RIFF".utf8) + [UInt8(riffSize & 0xFF), UInt8(riffSize >> 8 & 0xFF), UInt8(riffSize >> 16 & 0xFF), UInt8(riffSize >> 24 & 0xFF)]
        return CleanImage(data: Data(header + payload), type: .webp, width: size.width, height: size.height)
    }

    // MARK: GIF

    package static func gif(_ bytes: [UInt8]) throws(ImageProblem) -> CleanImage {
        guard bytes.count >= 13 else { throw .malformed }
        let width = littleEndian(bytes, 6, 2), height = littleEndian(bytes, 8, 2)
        var index = 13
        if bytes[10] & 0x80 != 0 { index += 3 << (Int(bytes[10] & 0x07) + 1) }   // global colour table
        var output = Array(bytes[0..<min(index, bytes.count)])
        guard index <= bytes.count else { throw .malformed }
        var frames = 0
        /// The end of the data sub-blocks starting at `start` (after the terminating zero).
        func subBlocksEnd(_ start: Int) throws(ImageProblem) -> Int {
            var at = start
            while true {
                guard at < bytes.count else { throw .malformed }
                let count = Int(bytes[at])
                at += 1 + count
                if count == 0 { return at }
            }
        }
        loop: while true {
            guard index < bytes.count else { throw .malformed }
            switch bytes[index] {
            case 0x3B:
                output.append(0x3B)
                break loop
            case 0x21:
                guard index + 2 < bytes.count else { throw .malformed }
                let label = bytes[index + 1]
                let end = try subBlocksEnd(index + 2)
                let isLooping = label == 0xFF && bytes.count > index + 13 && Array(bytes[(index + 3)..<(index + 14)]) == Array("NETSCAPE2.0".utf8)
                // Graphic control, plain text and looping blocks stay; comments and other applications' data go.
                if label == 0xF9 || label == 0x01 || isLooping { output += bytes[index..<end] }
                index = end
            case 0x2C:
                guard index + 10 <= bytes.count else { throw .malformed }
                var end = index + 10
                if bytes[index + 9] & 0x80 != 0 { end += 3 << (Int(bytes[index + 9] & 0x07) + 1) }   // local colour table
                end = try subBlocksEnd(end + 1)                                                    // LZW code size, then data
                output += bytes[index..<end]
                index = end
                frames += 1
            default:
                throw .malformed
            }
        }
        guard frames > 0 else { throw .malformed }
        try checkSize(width: width, height: height)
        return CleanImage(data: Data(output), type: .gif, width: width, height: height)
    }

    // MARK: Bytes

    private static func bigEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int {
        (0..<count).reduce(0) { $0 << 8 | Int(bytes[at + $1]) }
    }

    private static func littleEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int {
        (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
    }
}
