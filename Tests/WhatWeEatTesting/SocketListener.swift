import NIOConcurrencyHelpers
package import Vapor

/// A WebSocket on an app's real port that keeps what it hears (an inbox or chat socket, to see
/// it close when its session ends).
package final class SocketListener: Sendable {
    package let socket: WebSocket
    private let heard = NIOLockedValueBox<[String]>([])

    init(socket: WebSocket) {
        self.socket = socket
        socket.onText { [heard] _, text in heard.withLockedValue { $0.append(text) } }
    }

    package var texts: [String] { heard.withLockedValue { $0 } }

    package static func open(_ app: Application, port: Int, path: String = "/api/v1/notifications/live", token: String) async throws -> SocketListener {
        try await open(app, port: port, path: path, headers: ["Authorization": "Bearer \(token)"])
    }

    /// A page's socket, opened as `browser` (its cookies: session, device) from a page of `origin`
    /// (the site itself unless given: websocket-kit's handshake names the host without its port).
    package static func open(_ app: Application, port: Int, path: String, as browser: CookieBrowser, origin: String? = nil) async throws -> SocketListener {
        try await open(app, port: port, path: path, headers: ["Cookie": browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "),
                                                              "Origin": origin ?? "http://127.0.0.1"])
    }

    /// Heard texts once at least `count` arrived, waiting at most `seconds`.
    package func texts(atLeast count: Int, within seconds: Double = 5) async throws -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        while texts.count < count, Date() < deadline { try await Task.sleep(nanoseconds: 20_000_000) }
        return texts
    }

    package static func open(_ app: Application, port: Int, path: String, headers: HTTPHeaders) async throws -> SocketListener {
        let promise = app.eventLoopGroup.any().makePromise(of: SocketListener.self)
        WebSocket.connect(to: "ws://127.0.0.1:\(port)\(path)", headers: headers, on: app.eventLoopGroup) { socket in
            promise.succeed(SocketListener(socket: socket))
        }.cascadeFailure(to: promise)
        return try await promise.futureResult.get()
    }
}
