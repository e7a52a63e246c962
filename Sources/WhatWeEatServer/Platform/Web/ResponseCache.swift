import NIOConcurrencyHelpers
import NIOCore
import Vapor

/// JSON answers kept encoded for a few seconds, for public lists many people read at once (a
/// map box, the newest reviews). An entry is served while it is younger than `lifetime` and no
/// write has called `invalidate()` since it was made; writes on other instances invalidate
/// through the event bus (the feature that owns the cache follows its topic). The lifetime
/// bounds how stale anything changed behind the feature's back (a renamed author) can be.
final class ResponseCache: Sendable {
    private struct Entry: Sendable {
        let body: ByteBuffer
        let generation: Int
        let expires: NIODeadline
    }

    private struct State: Sendable {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var generation = 0
    }

    let capacity: Int
    /// What all entries may hold together: keys a client chooses (a list's `limit`) must not let
    /// it fill memory with large answers. An answer larger than this is served, never kept.
    let maxBytes: Int
    let lifetime: TimeAmount
    private let state = NIOLockedValueBox(State())

    init(capacity: Int = 1_024, maxBytes: Int = 64 << 20, lifetime: TimeAmount = .seconds(10)) {
        self.capacity = capacity
        self.maxBytes = maxBytes
        self.lifetime = lifetime
    }

    /// Everything cached so far is out of date.
    func invalidate() {
        state.withLockedValue { $0.generation += 1 }
    }

    /// The cached answer for `key`, or `make()`'s, encoded once and kept.
    func json<Value: Encodable>(_ key: String, _ make: () async throws -> Value) async throws -> Response {
        let now = NIODeadline.now()
        let (cached, generation) = state.withLockedValue { state -> (ByteBuffer?, Int) in
            guard let entry = state.entries[key], entry.generation == state.generation, entry.expires > now else {
                return (nil, state.generation)
            }
            return (entry.body, state.generation)
        }
        let body: ByteBuffer
        if let cached {
            body = cached
        } else {
            body = ByteBuffer(data: try AppJSON.encoder().encode(try await make()))
            let entry = Entry(body: body, generation: generation, expires: now + lifetime)
            if body.readableBytes <= maxBytes {
                state.withLockedValue { state in
                    // A full cache starts over: simpler than LRU, and the entries live seconds anyway.
                    if state.entries.count >= capacity || state.bytes + body.readableBytes > maxBytes {
                        state.entries.removeAll(keepingCapacity: true)
                        state.bytes = 0
                    }
                    state.bytes += body.readableBytes - (state.entries[key]?.body.readableBytes ?? 0)
                    state.entries[key] = entry
                }
            }
        }
        let response = Response(status: .ok, body: .init(buffer: body))
        response.headers.contentType = .json
        return response
    }
}
