import Foundation

/// Plain TCP for the tests that need to send exactly what a misbehaving client sends.
package enum RawHTTP {
    /// A connected socket with 5 s timeouts; `receiveBuffer` shrinks its receive buffer first.
    package static func connect(port: Int, receiveBuffer: Int? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { close(fd); throw ServerFailure(message: "connect failed: errno \(errno)") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Sends `request` and reads until the server closes or stops sending for a moment.
    package static func exchange(port: Int, _ request: String) throws -> String {
        let fd = try connect(port: port)
        defer { close(fd) }
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
            if let text = String(bytes: received, encoding: .utf8), text.contains("\r\n\r\n"),
               !text.contains("Connection: close") && !request.contains("Connection: close") { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Whether the server closed this connection (a read returns end of file at once).
    package static func isClosedByPeer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0
    }

    package static func cookies(_ response: String) -> [String: String] {
        var cookies: [String: String] = [:]
        for line in response.split(separator: "\r\n") where line.lowercased().hasPrefix("set-cookie:") {
            let pair = line.dropFirst("set-cookie:".count).trimmingCharacters(in: .whitespaces).split(separator: ";")[0]
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { cookies[String(parts[0])] = String(parts[1]) }
        }
        return cookies
    }
}

/// A WebSocket client written by hand over plain TCP, for the tests of clients that misbehave:
/// one that never reads (with a small receive buffer, so the server's writes back up), or one
/// that sends a message in endless fragments. It sends exactly the frames the test asks for.
package final class RawWebSocket {
    package let fd: Int32

    /// Connects and upgrades `path`; `receiveBuffer` shrinks the socket's receive buffer first.
    package init(port: Int, path: String, headers: [String: String] = [:], receiveBuffer: Int? = nil) throws {
        let fd = try RawHTTP.connect(port: port, receiveBuffer: receiveBuffer)
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        do { try Self.write(Array(request.utf8), to: fd) } catch { close(fd); throw error }
        // The answer's head, byte by byte, so nothing after it is taken.
        var head = [UInt8]()
        var byte: UInt8 = 0
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard recv(fd, &byte, 1, 0) == 1 else { close(fd); throw ServerFailure(message: "no upgrade answer: \(String(decoding: head, as: UTF8.self))") }
            head.append(byte)
        }
        self.fd = fd
        handshake = String(decoding: head, as: UTF8.self)
    }

    package let handshake: String
    package var upgraded: Bool { handshake.hasPrefix("HTTP/1.1 101") }

    deinit { close(fd) }

    package func write(_ bytes: [UInt8]) throws {
        try Self.write(bytes, to: fd)
    }

    package static func write(_ bytes: [UInt8], to fd: Int32) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw ServerFailure(message: "send failed: errno \(errno)") }
            sent += count
        }
    }

    /// One masked frame, as a client must send it.
    package func frame(opcode: UInt8, fin: Bool = true, _ payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count < 65_536 {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    package func sendText(_ text: String, fin: Bool = true) throws { try write(frame(opcode: 0x1, fin: fin, Array(text.utf8))) }
    package func sendContinuation(_ bytes: [UInt8], fin: Bool = false) throws { try write(frame(opcode: 0x0, fin: fin, bytes)) }

    /// The next frame the server sends (opcode and payload), or nil when the connection ends.
    package func readFrame() -> (opcode: UInt8, payload: [UInt8])? {
        func read(_ count: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            var got = 0
            while got < count {
                let n = bytes[got...].withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { return nil }
                got += n
            }
            return bytes
        }
        guard let head = read(2) else { return nil }
        var length = Int(head[1] & 0x7F)
        if length == 126 { guard let more = read(2) else { return nil }; length = Int(more[0]) << 8 | Int(more[1]) }
        if length == 127 { guard let more = read(8) else { return nil }; length = more.reduce(0) { $0 << 8 | Int($1) } }
        guard let payload = read(length) else { return nil }
        return (head[0] & 0x0F, payload)
    }
}

/// This process's resident memory in bytes (Linux), for the tests that measure what a
/// misbehaving client can make the server keep.
package func residentMemory() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
    return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) * 1024
}
