import NIOCore

/// Values (a place's details, a review's card) kept under the same rule as a `ResponseCache`'s
/// answers: valid while no write has invalidated that cache since they were made, and for at most
/// its lifetime. For what pages and answers share but each writes differently (a page renders the
/// value; a signed-in reader adds their own state to it), where keeping encoded bytes would not do.
package final class KeptValues<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        let value: Value
        let generation: Int
        let expires: NIODeadline
    }

    private let entries: BoundedMemory<String, Entry>
    package let following: ResponseCache

    /// `name` labels its counts in `/metrics` (`whatweeat_memory_entries{memory}`).
    package init(name: String, following cache: ResponseCache, capacity: Int = 4_096) {
        self.following = cache
        entries = BoundedMemory(name: name, capacity: capacity)
    }

    /// The kept value for `key`, or `make()`'s, kept.
    package func value(_ key: String, _ make: () async throws -> Value) async throws -> Value {
        let now = NIODeadline.now()
        let generation = following.generation
        if let entry = entries[key], entry.generation == generation, entry.expires > now { return entry.value }
        let made = try await make()
        // Made from reads that began before any write after `generation`: stored under it, so a
        // write that landed meanwhile has already made it stale (and full, it drops such first).
        entries.keep(Entry(value: made, generation: generation, expires: now + following.lifetime), for: key,
                     stale: { $0.generation != generation || $0.expires <= now })
        return made
    }
}
