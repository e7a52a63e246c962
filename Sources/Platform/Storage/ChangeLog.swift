package import Fluent
import NIOConcurrencyHelpers

/// What a store's transaction changed, recorded while it runs and told once it committed: the one
/// way a store announces inside a transaction (the map's places and content, mates' profiles and
/// requests, accounts' users and sessions), so its memories and the other instances follow only
/// what was kept. `Database.writeTransaction(recording:)` gives each attempt a fresh log: an
/// attempt rolled back and tried again tells nothing of itself.
package final class ChangeLog<Changes: Sendable>: Sendable {
    private let changes: NIOLockedValueBox<Changes>

    package init(_ empty: Changes) {
        changes = NIOLockedValueBox(empty)
    }

    /// Notes a change, to be told after the commit.
    package func record(_ change: (inout Changes) -> Void) {
        changes.withLockedValue { change(&$0) }
    }

    /// What was recorded so far.
    package var recorded: Changes { changes.withLockedValue { $0 } }
}

extension Database {
    /// `writeTransaction` with a change log: `work` records what it changed in the log it is
    /// given; the answer is its result and what the committed attempt recorded, for the caller to
    /// announce now that it is kept (nothing is answered when the transaction rolls back).
    package func writeTransaction<T: Sendable, Changes: Sendable>(
        recording empty: Changes, _ work: @escaping @Sendable (any Database, ChangeLog<Changes>) async throws -> T
    ) async throws -> (result: T, changes: Changes) {
        try await writeTransaction { transaction in
            let log = ChangeLog(empty)
            let result = try await work(transaction, log)
            return (result, log.recorded)
        }
    }
}
