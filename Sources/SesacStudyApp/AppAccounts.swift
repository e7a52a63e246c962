import Foundation
import Platform
import Vapor

/// Each app uid's account, in memory: fixed from the uid's sign-up to its withdrawal, and asked on
/// every `/v1` poll and search (reading the row as a Fluent model by reflection was a tenth of the
/// apps' search). A withdrawal forgets the uid here and on every instance (`topic`); an account's
/// deletion forgets them all. A read that began before a forget is not kept.
final class AppAccounts: Sendable {
    static let topic = "sesac.app-accounts"
    static let capacity = 100_000

    private let accounts = BoundedMemory<String, UUID>(name: "sesac_app_accounts", capacity: capacity)

    func account(of uid: String) -> UUID? { accounts[uid] }

    /// Taken before reading; hand it back to `remember`.
    var generation: UInt64 { accounts.generation }

    func remember(_ account: UUID, of uid: String, readAt generation: UInt64) {
        accounts.keep(account, for: uid, readAt: generation)
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
        accounts.forget(uid)
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
