import NIOConcurrencyHelpers
package import NIOCore
import NIOFoundationEssentialsCompat
package import Vapor

/// JSON answers kept encoded for a few seconds, for public lists many people read at once (a
/// map box, the newest reviews). An entry is served while it is younger than `lifetime` and no
/// write has called `invalidate()` since it was made; writes on other instances invalidate
/// through the event bus (the feature that owns the cache follows its topic). The lifetime
/// bounds how stale anything changed behind the feature's back (a renamed author) can be.
///
/// Readers who miss while the same answer is being made wait for it rather than making it again:
/// a burst of readers after a write (or a start) costs one answer, not one per reader.
package final class ResponseCache: Sendable {
    private struct Entry: Sendable {
        let body: ByteBuffer
        let generation: Int
        let expires: NIODeadline
    }

    private struct State: Sendable {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var generation = 0
        /// Answers being made, by key and generation, with the readers waiting for them (nil when
        /// the making failed: each waiter then makes its own and meets its own error).
        var making: [String: [CheckedContinuation<ByteBuffer?, Never>]] = [:]
    }

    package let capacity: Int
    /// What all entries may hold together: keys a client chooses (a list's `limit`) must not let
    /// it fill memory with large answers. An answer larger than this is served, never kept.
    package let maxBytes: Int
    package let lifetime: TimeAmount
    private let state = NIOLockedValueBox(State())

    package init(capacity: Int = 1_024, maxBytes: Int = 64 << 20, lifetime: TimeAmount = .seconds(10)) {
        self.capacity = capacity
        self.maxBytes = maxBytes
        self.lifetime = lifetime
    }

    /// Moves on every `invalidate()`; what was made at another generation is out of date.
    package var generation: Int { state.withLockedValue { $0.generation } }

    /// Everything cached so far is out of date.
    package func invalidate() {
        state.withLockedValue { $0.generation += 1 }
    }

    private enum Lookup {
        case cached(ByteBuffer)
        case wait(String)
        case make(String, generation: Int)
    }

    /// The cached answer for `key`, or `make()`'s, encoded once and kept.
    package func json<Value: Encodable>(_ key: String, _ make: () async throws -> Value) async throws -> Response {
        try await encoded(key) { ByteBuffer(data: try AppJSON.encoder().encode(try await make())) }
    }

    /// The cached answer for `key`, or the JSON `make()` wrote (by hand: `JSONBytes`), kept.
    package func encoded(_ key: String, _ make: () async throws -> ByteBuffer) async throws -> Response {
        var body: ByteBuffer?
        while body == nil {
            let now = NIODeadline.now()
            let lookup = state.withLockedValue { state -> Lookup in
                if let entry = state.entries[key], entry.generation == state.generation, entry.expires > now { return .cached(entry.body) }
                let flight = "\(key)#\(state.generation)"
                if state.making[flight] != nil { return .wait(flight) }
                state.making[flight] = []
                return .make(flight, generation: state.generation)
            }
            switch lookup {
            case .cached(let cached):
                body = cached
            case .wait(let flight):
                body = await withCheckedContinuation { continuation in
                    let waiting = state.withLockedValue { state -> Bool in
                        guard state.making[flight] != nil else { return false }
                        state.making[flight]?.append(continuation)
                        return true
                    }
                    if !waiting { continuation.resume(returning: nil) }  // finished meanwhile: look again
                }
            case .make(let flight, let generation):
                do {
                    let made = try await make()
                    finish(flight, with: made, key: key, generation: generation, now: now)
                    body = made
                } catch {
                    finish(flight, with: nil, key: key, generation: generation, now: now)
                    throw error
                }
            }
        }
        let response = Response(status: .ok, body: .init(buffer: body ?? ByteBuffer()))
        response.headers.contentType = .json
        return response
    }

    /// Keeps a made answer (within the budget) and hands it to the readers who waited for it.
    private func finish(_ flight: String, with body: ByteBuffer?, key: String, generation: Int, now: NIODeadline) {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<ByteBuffer?, Never>] in
            if let body, body.readableBytes <= maxBytes {
                // A full cache starts over: simpler than LRU, and the entries live seconds anyway.
                if state.entries.count >= capacity || state.bytes + body.readableBytes > maxBytes {
                    state.entries.removeAll(keepingCapacity: true)
                    state.bytes = 0
                }
                state.bytes += body.readableBytes - (state.entries[key]?.body.readableBytes ?? 0)
                state.entries[key] = Entry(body: body, generation: generation, expires: now + lifetime)
            }
            return state.making.removeValue(forKey: flight) ?? []
        }
        for waiter in waiters { waiter.resume(returning: body) }
    }
}
