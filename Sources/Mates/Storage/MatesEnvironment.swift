import Foundation
import Platform
import Vapor

/// What every `MatesService` takes beside its database, made once by `MatesFeature.configure`.
/// The clock is the one source of "now" for mates' rules (code lifetimes and send limits, dodge
/// penalties, the search sweep, the apps' sightings): a test moves it to step over a penalty
/// instead of rewriting rows.
package struct MatesEnvironment: Sendable {
    package var clock: @Sendable () -> Date

    package init(clock: @escaping @Sendable () -> Date = { Date() }) {
        self.clock = clock
    }
}

extension Application {
    private struct MatesEnvironmentKey: StorageKey { typealias Value = MatesEnvironment }

    package var matesEnvironment: MatesEnvironment {
        get { configured(MatesEnvironmentKey.self) }
        set { storage[MatesEnvironmentKey.self] = newValue }
    }
}
