import NIOCore
import NIOWebSocket
import Vapor

/// What a WebSocket of a session delivers, in order.
enum EngineSocketInput: Sendable {
    case text(String)
    case binary
    case tooLarge
}

extension EngineSession {
    /// Hands what `socket` receives (collected by the host from its first frame) to the session,
    /// in order; the end of the socket last.
    nonisolated func consume(_ inputs: AsyncStream<SocketFrame>, from socket: WebSocket) {
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
