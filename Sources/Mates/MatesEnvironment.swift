import Foundation
import Platform
import Vapor

/// What every `MatesService` takes beside its database, made once by `MatesFeature.configure`.
/// The clock is the one source of "now" for mates' rules (code lifetimes and send limits, dodge
/// penalties, the search sweep, the apps' sightings): a test moves it to step over a penalty
/// instead of rewriting rows.
package struct MatesEnvironment: FeatureEnvironment {
    package var clock: @Sendable () -> Date
    /// `clock`, by the name every feature's environment gives it.
    package var now: @Sendable () -> Date {
        get { clock }
        set { clock = newValue }
    }
    /// How long a chat line may stay unread before the inbox hears of it: an open chat marks a
    /// line read within a second of its arrival, so only lines nobody saw become notices.
    package var chatNoticeDelay: TimeInterval

    package init(clock: @escaping @Sendable () -> Date = { Date() }, chatNoticeDelay: TimeInterval = 5) {
        self.clock = clock
        self.chatNoticeDelay = chatNoticeDelay
    }
}

extension Application {
    private struct MatesEnvironmentKey: StorageKey { typealias Value = MatesEnvironment }

    package var matesEnvironment: MatesEnvironment {
        get { configured(MatesEnvironmentKey.self) }
        set { storage[MatesEnvironmentKey.self] = newValue }
    }
}

/// What one account may repeat in mates: every write a person can repeat has a rate (on PostgreSQL
/// counted in the shared table, so instances share them).
package struct MatesLimits: Sendable {
    /// Chat lines: the bursts a person types pass (a line every two seconds for a minute), a script
    /// does not; each line is a stored row and a queued notice.
    package let chatLinesPerMinute: RateLimiter
    /// ...and an hour of lively chat, not a day's flood in an hour.
    package let chatLinesPerHour: RateLimiter

    package init(shared: SharedBudgets?) {
        chatLinesPerMinute = RateLimiter(name: "mates_chat_lines", limit: 30, window: 60, shared: shared)
        chatLinesPerHour = RateLimiter(name: "mates_chat_lines_hour", limit: 600, window: 3600, shared: shared)
    }
}

extension Application {
    private struct MatesLimitsKey: StorageKey { typealias Value = MatesLimits }

    package var matesLimits: MatesLimits {
        get { configured(MatesLimitsKey.self) }
        set { storage[MatesLimitsKey.self] = newValue }
    }
}
