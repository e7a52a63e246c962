package import Foundation
import XCTVapor

/// Small but real image files for upload tests, built byte by byte.
package enum TestImages {
    /// What a phone's EXIF says about where a photo was taken; it must never reach storage.
    package static let gpsText = "GPS 37.5663N 126.9779E"

    package static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    package static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    package static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    package static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    /// A valid RGB PNG: signature, IHDR, one IDAT (a zlib stream with one stored deflate block)
    /// and IEND, each chunk with its CRC. `seed` colours the pixels, so different seeds are
    /// different files.
    package static func png(width: Int = 3, height: Int = 2, seed: Int = 0) -> Data {
        var raw: [UInt8] = []
        for row in 0..<height {
            raw.append(0)  // filter: none
            for column in 0..<width {
                raw += [UInt8((seed * 37 + row) & 0xFF), UInt8((seed >> 8) & 0xFF), UInt8(column & 0xFF)]
            }
        }
        let length = raw.count
        let zlib: [UInt8] = [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            + raw + be32(adler32(raw))
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + pngChunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 2, 0, 0, 0])
            + pngChunk("IDAT", zlib)
            + pngChunk("IEND", []))
    }

    package static func jpegSegment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] { [0xFF, marker] + be16(payload.count + 2) + payload }

    /// A JPEG as a phone writes it: JFIF, an EXIF APP1 segment holding a GPS position, tables,
    /// a frame and a scan.
    package static func phoneJPEG(width: Int = 640, height: Int = 480, seed: UInt8 = 0) -> Data {
        let frame = [8] + be16(height) + be16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        return Data([0xFF, 0xD8]
            + jpegSegment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
            + jpegSegment(0xE1, Array("Exif".utf8) + [0, 0] + Array(gpsText.utf8))
            + jpegSegment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
            + jpegSegment(0xC0, frame)
            + jpegSegment(0xDA, [1, 1, 0, 0, 0x3F, 0])
            // Entropy-coded bytes (0xFF stuffed), as many as a plain picture of that size needs at least.
            // (a seed of 0xFF is stuffed too: in scan data 0xFF is always followed by 0x00)
            + [0x12, seed] + (seed == 0xFF ? [0x00] : []) + [0xFF, 0x00] + [UInt8](repeating: 0x55, count: width * height / 1_000 + 1)
            + [0x56, 0x78, 0xFF, 0xD9])
    }

    /// A 1×1 GIF: a format photos are not accepted in.
    package static let gif = Data(Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3B])
}

/// A part of a multipart body.
package struct UploadPart {
    package var name = "photo"
    package var filename: String? = "photo.png"
    package var contentType = "image/png"
    package var data: Data

    package init(name: String = "photo", filename: String? = "photo.png", contentType: String = "image/png", data: Data) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.data = data
    }
}

extension UploadPart {
    /// The parts as a multipart/form-data body, and its Content-Type with the boundary.
    package static func multipart(_ parts: [UploadPart]) -> (body: Data, contentType: String) {
        let boundary = "----whatweeat-test-\(UUID().uuidString)"
        var body = Data()
        for part in parts {
            var disposition = "form-data; name=\"\(part.name)\""
            if let filename = part.filename { disposition += "; filename=\"\(filename)\"" }
            body += Data("--\(boundary)\r\nContent-Disposition: \(disposition)\r\nContent-Type: \(part.contentType)\r\n\r\n".utf8)
            body += part.data
            body += Data("\r\n".utf8)
        }
        body += Data("--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }
}
