import Foundation
import Platform
import Vapor

/// What the accounts' service reads beside its database and its request, made once by
/// `AccountsFeature.configure` and kept under one key (issue 59): the clock, the event bus and the
/// log. (The service still gathers its other parts from the application; they move here next.)
///
/// `now` is the accounts' one source of time: a session's start and end, a refresh, a reset or
/// email-change link's expiry, a sighting of a device, a suspension; a test moves it
/// (`app.withClock(\.accountsEnvironment, ahead:)`) instead of passing times in.
package struct AccountsEnvironment: FeatureEnvironment {
    package var now: @Sendable () -> Date
    package let events: any EventBus
    package let logger: Logger

    init(now: @escaping @Sendable () -> Date = { Date() }, events: any EventBus, logger: Logger) {
        self.now = now
        self.events = events
        self.logger = logger
    }
}

extension Application {
    private struct AccountsEnvironmentKey: StorageKey { typealias Value = AccountsEnvironment }

    package var accountsEnvironment: AccountsEnvironment {
        get { configured(AccountsEnvironmentKey.self) }
        set { storage[AccountsEnvironmentKey.self] = newValue }
    }
}
