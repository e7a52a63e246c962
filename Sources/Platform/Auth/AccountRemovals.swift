package import Fluent
import NIOConcurrencyHelpers
import Vapor

/// What features do when an account is deleted. Rows that belong to the account go by cascade,
/// but numbers other rows keep about them (a review's like count, a place's rating) must move in
/// the same transaction, and work outside the database (files, caches) follows after it.
/// Features register in their `configure`; the accounts feature runs them when someone withdraws.
package final class AccountRemovals: Sendable {
    package struct Handler: Sendable {
        /// Inside the deleting transaction, before the account's row goes.
        package let beforeDelete: @Sendable (_ user: UUID, _ transaction: any Database) async throws -> Void
        /// After the transaction committed (files, caches, other instances).
        package let afterDelete: @Sendable (_ user: UUID, _ database: any Database) async throws -> Void
    }

    private let handlers = NIOLockedValueBox<[Handler]>([])

    package init() {}

    package func register(
        beforeDelete: @escaping @Sendable (UUID, any Database) async throws -> Void,
        afterDelete: @escaping @Sendable (UUID, any Database) async throws -> Void = { _, _ in }
    ) {
        handlers.withLockedValue { $0.append(Handler(beforeDelete: beforeDelete, afterDelete: afterDelete)) }
    }

    package var all: [Handler] { handlers.withLockedValue { $0 } }
}

extension Application {
    private struct AccountRemovalsKey: StorageKey { typealias Value = AccountRemovals }

    package var accountRemovals: AccountRemovals {
        if let existing = storage[AccountRemovalsKey.self] { return existing }
        let removals = AccountRemovals()
        storage[AccountRemovalsKey.self] = removals
        return removals
    }
}
