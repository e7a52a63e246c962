import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
package import Vapor

/// Bytes written to a socket that the client has not taken yet. A client that stops reading
/// leaves writes queued in the server's memory (NIO queues whatever the kernel does not take);
/// past `limit` the socket is closed with 1008 instead of queueing more.
package final class UnflushedWrites: Sendable {
    package let limit: Int
    private let pending = NIOLockedValueBox(0)

    package init(limit: Int) {
        self.limit = limit
    }

    package var bytes: Int { pending.withLockedValue { $0 } }

    /// Sends `text`, or closes the socket and answers false when that would pass the limit.
    @discardableResult
    package func send(_ text: String, on socket: WebSocket) -> Bool {
        let size = text.utf8.count
        let admitted = pending.withLockedValue { pending in
            guard pending + size <= limit else { return false }
            pending += size
            return true
        }
        guard admitted else {
            socket.close(code: .policyViolation, promise: nil)
            return false
        }
        let written = socket.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { [pending] _ in pending.withLockedValue { $0 -= size } }
        socket.send(text, promise: written)
        return true
    }
}
