import Foundation
import Platform
import Vapor

/// What every `MatesService` takes beside its database, made once by `MatesFeature.configure`.
/// The clock is the one source of "now" for mates' rules (code lifetimes and send limits, dodge
/// penalties, the search sweep, the apps' sightings): a test moves it to step over a penalty
/// instead of rewriting rows.
package struct MatesEnvironment: Sendable {
    package var clock: @Sendable () -> Date
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
