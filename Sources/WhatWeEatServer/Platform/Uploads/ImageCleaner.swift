import Foundation

/// Why an upload is not an image we keep.
public enum ImageProblem: Error, Equatable, Sendable {
    /// Not JPEG, PNG or WebP by its bytes.
    case unsupportedType
    /// Starts like one of them but does not parse as one.
    case malformed
}

/// An image as we store it: its bytes without metadata, its type and its size in pixels.
public struct CleanImage: Sendable, Equatable {
    public let data: Data
    public let type: ImageType
    public let width: Int
    public let height: Int
}

/// Removes what a photo says about the person who took it before it is stored: a phone's JPEG
/// carries the GPS position of the shop (and of the home next door) in EXIF. Kept: the pixels
/// and what draws them (JPEG tables, colour profiles). Dropped:
/// - JPEG: APP1 (EXIF, XMP), APP13 (IPTC), COM segments;
/// - PNG: eXIf, tEXt, zTXt, iTXt and tIME chunks;
/// - WebP: EXIF and XMP chunks (and their flags in VP8X).
/// The parsers read lengths from the file and check each against what is left, so a truncated or
/// lying file is `malformed`, never a crash. (Stripping EXIF drops its orientation tag too; the
/// web pages resize photos in the browser, which applies the orientation first.)
public enum ImageCleaner {
    public static func clean(_ data: Data, allowing types: Set<ImageType> = [.jpeg, .png, .webp]) throws(ImageProblem) -> CleanImage {
        guard let type = ImageType.sniff(data), types.contains(type) else { throw .unsupportedType }
        let bytes = [UInt8](data)
        switch type {
        case .jpeg: return try jpeg(bytes)
        case .png: return try png(bytes)
        case .webp: return try webp(bytes)
        case .gif: throw .unsupportedType
        }
    }

    // MARK: JPEG

    static func jpeg(_ bytes: [UInt8]) throws(ImageProblem) -> CleanImage {
        var output: [UInt8] = [0xFF, 0xD8]
        var index = 2
        var size: (width: Int, height: Int)?
        while true {
            // Markers may be padded with extra 0xFF bytes.
            guard index < bytes.count, bytes[index] == 0xFF else { throw .malformed }
            while index < bytes.count, bytes[index] == 0xFF { index += 1 }
            guard index < bytes.count else { throw .malformed }
            let marker = bytes[index]
            index += 1
            if marker == 0xD9 { output += [0xFF, 0xD9]; break }                    // EOI without scan data
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { output += [0xFF, marker]; continue }
            guard index + 1 < bytes.count else { throw .malformed }
            let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            guard length >= 2, index + length <= bytes.count else { throw .malformed }
            let segment = Array(bytes[index..<(index + length)])
            let isStartOfFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isStartOfFrame {
                guard length >= 7 else { throw .malformed }
                size = (Int(segment[5]) << 8 | Int(segment[6]), Int(segment[3]) << 8 | Int(segment[4]))
            }
            let isMetadata = marker == 0xE1 || marker == 0xED || marker == 0xFE
            if !isMetadata { output += [0xFF, marker] + segment }
            index += length
            if marker == 0xDA {
                // Start of scan: the compressed picture follows to the end; copy it as it is.
                output += bytes[index...]
                break
            }
        }
        guard let size, size.width > 0, size.height > 0 else { throw .malformed }
        return CleanImage(data: Data(output), type: .jpeg, width: size.width, height: size.height)
    }

    // MARK: PNG

    static let pngMetadataChunks: Set<String> = ["eXIf", "tEXt", "zTXt", "iTXt", "tIME"]

    static func png(_ bytes: [UInt8]) throws(ImageProblem) -> CleanImage {
        var output = Array(bytes[0..<8])
        var index = 8
        var size: (width: Int, height: Int)?
        var ended = false
        while index < bytes.count {
            guard index + 12 <= bytes.count else { throw .malformed }
            let length = bigEndian(bytes, index, 4)
            let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
            let total = 12 + length
            guard length >= 0, index + total <= bytes.count else { throw .malformed }
            if type == "IHDR" {
                guard length >= 8 else { throw .malformed }
                size = (bigEndian(bytes, index + 8, 4), bigEndian(bytes, index + 12, 4))
            }
            if !pngMetadataChunks.contains(type) { output += bytes[index..<(index + total)] }
            index += total
            if type == "IEND" { ended = true; break }
        }
        guard ended, let size, size.width > 0, size.height > 0 else { throw .malformed }
        return CleanImage(data: Data(output), type: .png, width: size.width, height: size.height)
    }

    // MARK: WebP

    static func webp(_ bytes: [UInt8]) throws(ImageProblem) -> CleanImage {
        guard bytes.count >= 12, littleEndian(bytes, 4, 4) + 8 <= bytes.count else { throw .malformed }
        var chunks: [[UInt8]] = []
        var index = 12
        var size: (width: Int, height: Int)?
        var hasPicture = false
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
            if fourCC != "EXIF" && fourCC != "XMP " { chunks.append(chunk) }
            index += 8 + padded
        }
        guard hasPicture, let size, size.width > 0, size.height > 0 else { throw .malformed }
        let payload = Array("WEBP".utf8) + chunks.flatMap { $0 }
        let riffSize = UInt32(payload.count)
        let header = Array("RIFF".utf8) + [UInt8(riffSize & 0xFF), UInt8(riffSize >> 8 & 0xFF), UInt8(riffSize >> 16 & 0xFF), UInt8(riffSize >> 24 & 0xFF)]
        return CleanImage(data: Data(header + payload), type: .webp, width: size.width, height: size.height)
    }

    // MARK: Bytes

    private static func bigEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int {
        (0..<count).reduce(0) { $0 << 8 | Int(bytes[at + $1]) }
    }

    private static func littleEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int {
        (0..<count).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
    }
}
