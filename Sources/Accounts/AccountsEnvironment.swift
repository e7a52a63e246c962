package import Foundation
package import Platform
package import Vapor

/// What the accounts' service reads beside its database and its request, made once by
/// `AccountsFeature.configure` and kept under one key (issue 59): the clock, the event bus, the
/// log, the password hasher, the budgets, and the memories (remembered sessions, when each
/// session was last seen, the pages' API tokens). (The site's keys, files and registries still
/// come from the application.)
///
/// `now` is the accounts' one source of time: a session's start and end, a refresh, a reset or
/// email-change link's expiry, a sighting of a device, a suspension; a test moves it
/// (`app.withClock(\.accountsEnvironment, ahead:)`) instead of passing times in.
package struct AccountsEnvironment: FeatureEnvironment {
    package var now: @Sendable () -> Date
    package let events: any EventBus
    package let logger: Logger
    let passwords: BcryptHasher
    let limits: AccountLimits
    /// Remembered sessions; every change that ends a session or alters an account forgets it.
    let sessions: SessionCache
    let sightings: SessionSightings
    let tokenMemo: BrowserTokenMemo

    init(now: @escaping Now, events: any EventBus, logger: Logger, passwords: BcryptHasher, limits: AccountLimits) {
        self.now = now
        self.events = events
        self.logger = logger
        self.passwords = passwords
        self.limits = limits
        self.sessions = SessionCache()
        self.sightings = SessionSightings()
        self.tokenMemo = BrowserTokenMemo()
    }
}

extension Application {
    private struct AccountsEnvironmentKey: StorageKey { typealias Value = AccountsEnvironment }

    package var accountsEnvironment: AccountsEnvironment {
        get { configured(AccountsEnvironmentKey.self) }
        set { storage[AccountsEnvironmentKey.self] = newValue }
    }

    /// The accounts' budgets (`accountsEnvironment.limits`).
    var accountLimits: AccountLimits { accountsEnvironment.limits }
    /// Remembered sessions (`accountsEnvironment.sessions`).
    package var sessionCache: SessionCache { accountsEnvironment.sessions }
    /// When each session was last seen (`accountsEnvironment.sightings`).
    package var sessionSightings: SessionSightings { accountsEnvironment.sightings }
    /// The pages' API tokens, kept while fresh (`accountsEnvironment.tokenMemo`).
    var browserTokenMemo: BrowserTokenMemo { accountsEnvironment.tokenMemo }
}
