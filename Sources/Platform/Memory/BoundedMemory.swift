import Metrics
import NIOConcurrencyHelpers

/// A dictionary under a lock that never holds more than `capacity` entries: the one way the
/// server keeps something in memory by key (verified tokens, kept fragments, remembered accounts).
///
/// - **Full:** a new key finds the memory full → `stale` (when given) drops what has expired; if
///   that frees nothing, the memory starts over (every value is made again once), so it never
///   grows past `capacity`, whatever keys a crowd sends. A memory whose entries are not copies
///   but the only record (a budget's slots in their window) is made with
///   `startsOverWhenFull: false`: it drops only what has expired, since forgetting a live entry
///   would hand its key a fresh budget — anyone able to send `capacity` keys could reset them all.
/// - **Reads racing a change** (`generation`): take `generation` before reading the database and
///   hand it to `keep`; a `forget` that landed meanwhile makes that value stale, so it is not kept.
/// - **Counts in `/metrics`:** `whatweeat_memory_entries{memory}` (set on every write) and
///   `whatweeat_memory_starts_over_total{memory}`, by the memory's `name`.
package final class BoundedMemory<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var entries: [Key: Value] = [:]
        /// Moves on every `forget`; a value read before it moved is not kept.
        var generation: UInt64 = 0
    }

    package let name: String
    package let capacity: Int
    private let startsOverWhenFull: Bool
    private let state = NIOLockedValueBox(State())
    private let entriesGauge: Gauge
    private let startsOver: Counter

    package init(name: String, capacity: Int, startsOverWhenFull: Bool = true) {
        self.name = name
        self.capacity = max(1, capacity)
        self.startsOverWhenFull = startsOverWhenFull
        entriesGauge = Gauge(label: "whatweeat_memory_entries", dimensions: [("memory", name)])
        startsOver = Counter(label: "whatweeat_memory_starts_over_total", dimensions: [("memory", name)])
        startsOver.increment(by: 0)
    }

    /// The value kept for `key`, if any.
    package subscript(key: Key) -> Value? {
        state.withLockedValue { $0.entries[key] }
    }

    package var count: Int { state.withLockedValue { $0.entries.count } }

    /// Taken before reading what will be kept; hand it back to `keep(_:for:readAt:)`.
    package var generation: UInt64 { state.withLockedValue { $0.generation } }

    /// Keeps `value` for `key` (unless a `forget` came after `generation`, when given). A new key
    /// in a full memory first drops what `stale` says has expired, and starts over if that freed
    /// nothing.
    package func keep(_ value: Value, for key: Key, readAt generation: UInt64? = nil, stale: ((Value) -> Bool)? = nil) {
        let count = state.withLockedValue { state -> Int in
            if let generation, state.generation != generation { return state.entries.count }
            if state.entries.count >= capacity, state.entries[key] == nil { makeRoom(in: &state.entries, stale: stale) }
            state.entries[key] = value
            return state.entries.count
        }
        entriesGauge.record(count)
    }

    /// The kept values of `keys` that `usable` accepts, read under one lock (a hundred people a
    /// call: locking per key was a tenth of it), the keys without one, and the generation to hand
    /// to `keep(_:readAt:)` with what is read for them.
    package func values(for keys: [Key], where usable: (Value) -> Bool) -> (found: [Key: Value], missing: [Key], generation: UInt64) {
        state.withLockedValue { state in
            var found: [Key: Value] = [:]
            found.reserveCapacity(keys.count)
            var missing: [Key] = []
            for key in keys where found[key] == nil {
                if let value = state.entries[key], usable(value) { found[key] = value } else { missing.append(key) }
            }
            return (found, missing, state.generation)
        }
    }

    /// Keeps several values at once, unless a `forget` came after `generation`; a memory they
    /// would overfill makes room as `keep` does.
    package func keep(_ values: [Key: Value], readAt generation: UInt64, stale: ((Value) -> Bool)? = nil) {
        let count = state.withLockedValue { state -> Int in
            guard state.generation == generation else { return state.entries.count }
            if state.entries.count + values.count > capacity { makeRoom(in: &state.entries, stale: stale, making: values.count) }
            state.entries.merge(values) { _, new in new }
            return state.entries.count
        }
        entriesGauge.record(count)
    }

    /// Changes the entry of `key` in place under the lock (`nil` removes it), making room first
    /// as `keep` does when the key is new; answers what `body` answers.
    package func update<Result>(_ key: Key, stale: ((Value) -> Bool)? = nil, _ body: (inout Value?) -> Result) -> Result {
        let (result, count) = state.withLockedValue { state -> (Result, Int) in
            var entry = state.entries[key]
            let result = body(&entry)
            if let entry {
                if state.entries.count >= capacity, state.entries[key] == nil { makeRoom(in: &state.entries, stale: stale) }
                state.entries[key] = entry
            } else {
                state.entries[key] = nil
            }
            return (result, state.entries.count)
        }
        entriesGauge.record(count)
        return result
    }

    /// Forgets `key` (every key when nil); a value read before this is not kept.
    package func forget(_ key: Key?) {
        let count = state.withLockedValue { state -> Int in
            state.generation &+= 1
            if let key { state.entries[key] = nil } else { state.entries.removeAll(keepingCapacity: true) }
            return state.entries.count
        }
        entriesGauge.record(count)
    }

    private func makeRoom(in entries: inout [Key: Value], stale: ((Value) -> Bool)?, making room: Int = 1) {
        if let stale { entries = entries.filter { !stale($0.value) } }
        guard entries.count + room > capacity, startsOverWhenFull else { return }
        entries.removeAll(keepingCapacity: true)
        startsOver.increment()
    }
}
