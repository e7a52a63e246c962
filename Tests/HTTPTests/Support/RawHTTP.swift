import Foundation

/// Plain TCP for the tests that need to send exactly what a misbehaving client sends.
enum RawHTTP {
    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
        return fd
    }

    /// Sends `request` and reads until the server closes or stops sending for a moment.
    static func exchange(port: Int, _ request: String) throws -> String {
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
    static func isClosedByPeer(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0
    }

    static func cookies(_ response: String) -> [String: String] {
        var cookies: [String: String] = [:]
        for line in response.split(separator: "\r\n") where line.lowercased().hasPrefix("set-cookie:") {
            let pair = line.dropFirst("set-cookie:".count).trimmingCharacters(in: .whitespaces).split(separator: ";")[0]
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { cookies[String(parts[0])] = String(parts[1]) }
        }
        return cookies
    }
}
