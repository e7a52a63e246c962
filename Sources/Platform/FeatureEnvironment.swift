package import Foundation
import Vapor

/// A source of the time. A feature's environment holds one, and so does each long-lived part built
/// with one (a rate limiter, a memory, the work queue); tests hand in one they move.
package typealias Now = @Sendable () -> Date

/// The machine's clock: the one place the server reads it (issue 59). Everything else is handed a
/// `Now` by what built it — a feature's environment, the site's clock, a command — so a test that
/// moves time moves it for everything it built.
package enum WallClock {
    package static let now: Now = { Date() }
}

/// A feature's environment (issue 59): what its services and store use beside their database,
/// made once in its `configure` and kept under one key. `now` is the feature's one source of time,
/// which tests move instead of waiting or rewriting rows.
package protocol FeatureEnvironment: Sendable {
    var now: Now { get set }
}

extension Application {
    private struct SiteClockKey: StorageKey {
        typealias Value = Now
    }

    /// The site's clock, for what belongs to no one feature: the periodic jobs (prunes, backups,
    /// the refund retry), the foundations' memories and budgets, the operator's commands. Features
    /// start their environments' clocks from it.
    package var siteClock: Now {
        get { storage[SiteClockKey.self] ?? WallClock.now }
        set { storage[SiteClockKey.self] = newValue }
    }
}
