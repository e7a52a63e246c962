import NIOConcurrencyHelpers

/// Numbers reads of the database as they start, for a memory that reloads from it: two reloads
/// can overlap (a write's own and a follower's of an earlier announcement) and finish in any
/// order, and a read that started later has seen every change an earlier one saw. A memory keeps
/// the number of the read it holds and drops a result whose number is lower.
package final class ReadOrder: Sendable {
    private let taken = NIOLockedValueBox(0)

    package init() {}

    /// The number of a read about to start.
    package func take() -> Int {
        taken.withLockedValue { taken in
            taken += 1
            return taken
        }
    }
}
