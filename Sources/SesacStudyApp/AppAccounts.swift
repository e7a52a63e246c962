import Foundation
import NIOConcurrencyHelpers
import Platform
import Vapor

/// Each app uid's account, in memory: fixed from the uid's sign-up to its withdrawal, and asked on
/// every `/v1` poll and search (reading the row as a Fluent model by reflection was a tenth of the
/// apps' search). A withdrawal forgets the uid here and on every instance (`topic`); an account's
/// deletion forgets them all. A read that began before a forget is not kept.
final class AppAccounts: Sendable {
    static let topic = "sesac.app-accounts"
    static let capacity = 100_000

    private struct State {
        var accounts: [String: UUID] = [:]
        var generation: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())

    func account(of uid: String) -> UUID? { state.withLockedValue { $0.accounts[uid] } }

    /// Taken before reading; hand it back to `remember`.
    var generation: UInt64 { state.withLockedValue { $0.generation } }

    func remember(_ account: UUID, of uid: String, readAt generation: UInt64) {
        state.withLockedValue { state in
            guard state.generation == generation else { return }
            if state.accounts.count >= Self.capacity { state.accounts.removeAll(keepingCapacity: true) }
            state.accounts[uid] = account
        }
    }

    /// Forgets the uid here and on the other instances.
    func forget(_ uid: String, announcingOn events: any EventBus) async {
        apply(forgetting: uid)
        await events.publish(uid, to: Self.topic)
    }

    /// Forgets every uid here and on the other instances (an account went, with its uids).
    func forgetEveryone(announcingOn events: any EventBus) async {
        apply(forgetting: nil)
        await events.publish("*", to: Self.topic)
    }

    private func apply(forgetting uid: String?) {
        state.withLockedValue { state in
            state.generation &+= 1
            if let uid { state.accounts[uid] = nil } else { state.accounts.removeAll(keepingCapacity: true) }
        }
    }

    func follow(_ app: Application) {
        app.follow(Self.topic) { [self] _, message in apply(forgetting: message == "*" ? nil : message) }
    }
}

extension Application {
    private struct AppAccountsKey: StorageKey { typealias Value = AppAccounts }

    var appAccounts: AppAccounts {
        get { configured(AppAccountsKey.self) }
        set { storage[AppAccountsKey.self] = newValue }
    }
}
