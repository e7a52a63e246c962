package import Foundation

/// What a PNG's or a baseline/progressive JPEG's header says: its format and size; nil for
/// anything else (an SVG, a WebP), which KakaoTalk and most messengers cannot draw as a card.
package func rasterImageSize(_ data: Data) -> (format: String, width: Int, height: Int)? {
    let bytes = [UInt8](data)
    func int(_ at: Int, _ length: Int) -> Int { bytes[at..<(at + length)].reduce(0) { $0 << 8 | Int($1) } }
    if bytes.count > 24, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] {
        return ("png", int(16, 4), int(20, 4))
    }
    guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
    // Walk the JPEG's segments to its frame header (SOF0…SOF15 but DHT, JPG and DAC).
    var at = 2
    while at + 9 < bytes.count {
        guard bytes[at] == 0xFF else { return nil }
        let marker = bytes[at + 1]
        if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
            return ("jpeg", int(at + 7, 2), int(at + 5, 2))
        }
        at += 2 + int(at + 2, 2)
    }
    return nil
}
