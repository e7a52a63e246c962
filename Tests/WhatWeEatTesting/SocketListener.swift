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
        let promise = app.eventLoopGroup.any().makePromise(of: SocketListener.self)
        WebSocket.connect(to: "ws://127.0.0.1:\(port)\(path)", headers: ["Authorization": "Bearer \(token)"], on: app.eventLoopGroup) { socket in
            promise.succeed(SocketListener(socket: socket))
        }.cascadeFailure(to: promise)
        return try await promise.futureResult.get()
    }
}
