import NIOConcurrencyHelpers
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

    private let entries = NIOLockedValueBox<[String: Entry]>([:])
    package let following: ResponseCache
    package let capacity: Int

    package init(following cache: ResponseCache, capacity: Int = 4_096) {
        self.following = cache
        self.capacity = capacity
    }

    /// The kept value for `key`, or `make()`'s, kept.
    package func value(_ key: String, _ make: () async throws -> Value) async throws -> Value {
        let now = NIODeadline.now()
        let generation = following.generation
        if let entry = entries.withLockedValue({ $0[key] }), entry.generation == generation, entry.expires > now { return entry.value }
        let made = try await make()
        entries.withLockedValue { entries in
            if entries.count >= capacity, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            // Made from reads that began before any write after `generation`: stored under it, so a
            // write that landed meanwhile has already made it stale.
            entries[key] = Entry(value: made, generation: generation, expires: now + following.lifetime)
        }
        return made
    }
}
