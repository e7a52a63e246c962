import CZlib

/// Inflates a whole zlib stream (RFC 1950) with the system's zlib: a PNG's colour profile is
/// stored that way, and the image cleaner keeps it only when it is exactly one stream with
/// nothing after it, inflating to no more than it allows.
enum ZlibStream {
    /// The inflated bytes, or nil when `data` is not one complete stream ending where `data` ends,
    /// or would inflate to more than `limit` bytes.
    static func inflateWhole(_ data: [UInt8], limit: Int) -> [UInt8]? {
        guard !data.isEmpty else { return nil }
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        return data.withUnsafeBufferPointer { input -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                let status = chunk.withUnsafeMutableBufferPointer { buffer -> Int32 in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                guard output.count + produced <= limit else { return nil }
                output += chunk[0..<produced]
                if status == Z_STREAM_END { return stream.avail_in == 0 ? output : nil }   // nothing after the stream
                guard status == Z_OK, produced > 0 || stream.avail_in > 0 else { return nil }  // broken, or cut short
            }
        }
    }
}
