import NIOCore
import NIOWebSocket
import Vapor

/// What a WebSocket of a session delivers, in order.
enum EngineSocketInput: Sendable {
    case text(String)
    case binary
    case tooLarge
}

extension EngineSettings {
    /// What a session's WebSockets may carry: messages up to `maxPayload`, `backlog` of them waiting.
    var socketLimits: LiveSocketLimits {
        LiveSocketLimits(maxMessageBytes: maxPayload, backlog: backlog)
    }
}

extension EngineSession {
    /// Hands what `socket` receives (collected by `liveSocket` from its first frame) to the
    /// session, in order; the end of the socket last.
    nonisolated func consume(_ inputs: AsyncStream<LiveSocketInput>, from socket: WebSocket) {
        let maxPayload = settings.maxPayload
        Task {
            for await input in inputs {
                switch input {
                case .text(let text): await self.socketInput(text.utf8.count > maxPayload ? .tooLarge : .text(text), from: socket)
                case .binary(let buffer): await self.socketInput(buffer.readableBytes > maxPayload ? .tooLarge : .binary, from: socket)
                }
            }
            await self.socketClosed(socket)
        }
    }
}
