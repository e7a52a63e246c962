import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
package import NIOWebSocket
import Notifications
import Platform
package import SocketIO
package import XCTVapor

/// A Socket.IO handler for the tests: `echo` acknowledges with its arguments, `shout` is emitted
/// back as `heard`, `bye` makes the server disconnect the client; every call is recorded.
package final class EchoSocketIOHandler: SocketIOHandler {
    private let recorded = NIOLockedValueBox<[String]>([])
    private let clients = NIOLockedValueBox<[SocketIOClient]>([])

    package init() {}

    /// `connected <sid>`, `event <name> <arguments as JSON>`, `disconnected <sid>`, in order.
    package var log: [String] { recorded.withLockedValue { $0 } }
    package var connectedClients: [SocketIOClient] { clients.withLockedValue { $0 } }

    package func count(_ prefix: String) -> Int { log.filter { $0.hasPrefix(prefix) }.count }

    package func connected(_ client: SocketIOClient) async {
        clients.withLockedValue { $0.append(client) }
        recorded.withLockedValue { $0.append("connected \(client.id)") }
    }

    package func received(event: String, arguments: [SocketIOValue], from client: SocketIOClient) async -> [SocketIOValue]? {
        recorded.withLockedValue { $0.append("event \(event) \(SocketIOValue.array(arguments).json)") }
        switch event {
        case "echo": return arguments
        case "shout": await client.emit("heard", arguments)
        case "bye": await client.disconnect()
        default: break
        }
        return nil
    }

    package func disconnected(_ client: SocketIOClient) async {
        recorded.withLockedValue { $0.append("disconnected \(client.id)") }
    }
}

/// A raw Engine.IO client over a real WebSocket: what it sends is exactly what the test writes,
/// and every text message it receives is kept, to be read in order with `next()`.
package final class EngineTestSocket: Sendable {
    package let socket: WebSocket
    private let inbox = NIOLockedValueBox<(messages: [String], read: Int)>(([], 0))

    private init(socket: WebSocket) {
        self.socket = socket
    }

    /// Connects; `first` is sent from the upgrade callback itself, before anything else can run,
    /// the way clients send `2probe` the moment they have the 101.
    package static func connect(_ url: String, on app: Application, first: String? = nil, headers: HTTPHeaders = [:]) async throws -> EngineTestSocket {
        let promise = app.eventLoopGroup.any().makePromise(of: EngineTestSocket.self)
        WebSocket.connect(to: url, headers: headers, on: app.eventLoopGroup) { socket in
            let client = EngineTestSocket(socket: socket)
            socket.onText { _, text in client.inbox.withLockedValue { $0.messages.append(text) } }
            if let first { socket.send(first) }
            promise.succeed(client)
        }.cascadeFailure(to: promise)
        return try await promise.futureResult.get()
    }

    package func send(_ text: String) async throws {
        try await socket.send(text)
    }

    /// Everything received so far, read or not.
    package var received: [String] { inbox.withLockedValue { $0.messages } }

    /// The next message not yet read.
    package func next(timeout: Duration = .seconds(5)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let message = inbox.withLockedValue { box -> String? in
                guard box.read < box.messages.count else { return nil }
                box.read += 1
                return box.messages[box.read - 1]
            }
            if let message { return message }
            guard ContinuousClock.now < deadline else { throw ServerFailure(message: "no message within \(timeout); had \(received)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Messages not yet read, after waiting `quiet` for more.
    package func unread(after quiet: Duration) async throws -> [String] {
        try await Task.sleep(for: quiet)
        return inbox.withLockedValue { box in
            defer { box.read = box.messages.count }
            return Array(box.messages[box.read...])
        }
    }

    package func waitClosed(timeout: Duration = .seconds(5)) async throws {
        try await waitUntil(timeout: timeout) { self.socket.isClosed }
    }

    package var closeCode: WebSocketErrorCode? { socket.closeCode }

    package func close() async {
        try? await socket.close(code: .normalClosure)
    }
}

/// Polling requests over a real connection.
package struct EnginePolling {
    package struct Answer {
        package let status: HTTPResponseStatus
        package let headers: HTTPHeaders
        package let text: String
    }

    package let base: String
    /// Sent with every request (an `Origin`, say).
    package var headers: HTTPHeaders = [:]

    package init(base: String, headers: HTTPHeaders = [:]) {
        self.base = base
        self.headers = headers
    }

    package func get(_ query: String) async throws -> Answer {
        try await exchange(HTTPClientRequest(url: base + query))
    }

    package func post(_ query: String, _ body: String) async throws -> Answer {
        var request = HTTPClientRequest(url: base + query)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "text/plain;charset=UTF-8")
        request.body = .bytes(ByteBuffer(string: body))
        return try await exchange(request)
    }

    private func exchange(_ request: HTTPClientRequest) async throws -> Answer {
        var request = request
        request.headers.add(contentsOf: headers)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 4 << 20)
        return Answer(status: response.status, headers: response.headers, text: String(buffer: body))
    }
}

extension EnginePolling.Answer {
    /// The packets of a polling answer.
    package var packets: [String] { text.split(separator: "\u{1e}").map(String.init) }
}
