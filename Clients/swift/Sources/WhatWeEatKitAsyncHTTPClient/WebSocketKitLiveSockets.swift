import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import WebSocketKit
import WhatWeEatKit

/// Live sockets over SwiftNIO (WebSocketKit): for Linux, where `URLSessionWebSocketTask` needs a
/// libcurl built with WebSockets (Debian's is not).
public struct WebSocketKitLiveSockets: LiveSocketConnector {
    public let eventLoopGroup: any EventLoopGroup
    /// Frames over this many bytes close the socket (the server's own lines stay far below).
    public let maxFrameSize: Int

    public init(eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, maxFrameSize: Int = 1 << 20) {
        self.eventLoopGroup = eventLoopGroup
        self.maxFrameSize = maxFrameSize
    }

    public func connect(to url: URL, headers: [String: String]) async throws -> any LiveSocket {
        let (texts, continuation) = AsyncThrowingStream<String, any Error>.makeStream(bufferingPolicy: .bufferingNewest(liveBufferLimit))
        var httpHeaders = HTTPHeaders()
        for (name, value) in headers { httpHeaders.add(name: name, value: value) }
        // The socket as the upgrade hands it over: the connection's own future may complete
        // before that callback has run.
        let upgraded = eventLoopGroup.any().makePromise(of: WebSocket.self)
        WebSocket.connect(to: url, headers: httpHeaders, configuration: .init(maxFrameSize: maxFrameSize), on: eventLoopGroup) { socket in
            // Set before the first frame can arrive: the rooms speak the moment they open.
            socket.onText { _, text in continuation.yield(text) }
            socket.onBinary { _, buffer in continuation.yield(String(buffer: buffer)) }
            socket.onClose.whenComplete { _ in continuation.finish() }
            upgraded.succeed(socket)
        }.whenFailure { error in
            continuation.finish(throwing: error)
            upgraded.fail(error)
        }
        return WebSocketKitLiveSocket(socket: try await upgraded.futureResult.get(), texts: texts)
    }
}

struct WebSocketKitLiveSocket: LiveSocket {
    let socket: WebSocket
    let texts: AsyncThrowingStream<String, any Error>

    func send(_ text: String) async throws { try await socket.send(text) }

    func close() async { try? await socket.close() }
}
