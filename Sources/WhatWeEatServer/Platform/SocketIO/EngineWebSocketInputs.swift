import NIOCore
import NIOWebSocket
import Vapor

/// What a WebSocket of a session delivers, in order.
enum EngineSocketInput: Sendable {
    case text(String)
    case binary
    case tooLarge
}

extension WebSocket {
    /// Collects what the socket receives, in order, from now on (the callbacks are in place when
    /// this returns); the stream finishes when the socket closes. Messages over `maxPayload` are
    /// reported, not kept; a client whose messages pile up past `backlog` is cut off.
    func engineInputs(maxPayload: Int, backlog: Int) async -> AsyncStream<EngineSocketInput> {
        let (inputs, feed) = AsyncStream<EngineSocketInput>.makeStream(bufferingPolicy: .bufferingOldest(backlog))
        let socket = self
        let register: @Sendable () -> Void = {
            socket.onText { socket, text in
                let result = feed.yield(text.utf8.count > maxPayload ? .tooLarge : .text(text))
                if case .dropped = result { socket.close(code: .policyViolation, promise: nil) }
            }
            socket.onBinary { socket, buffer in
                let result = feed.yield(buffer.readableBytes > maxPayload ? .tooLarge : .binary)
                if case .dropped = result { socket.close(code: .policyViolation, promise: nil) }
            }
            socket.onClose.whenComplete { _ in feed.finish() }
        }
        if eventLoop.inEventLoop {
            register()
        } else {
            try? await eventLoop.submit(register).get()
        }
        return inputs
    }
}

extension EngineSession {
    /// Hands what `socket` receives to the session, in order; the end of the socket last.
    nonisolated func consume(_ inputs: AsyncStream<EngineSocketInput>, from socket: WebSocket) {
        Task {
            for await input in inputs { await self.socketInput(input, from: socket) }
            await self.socketClosed(socket)
        }
    }
}
