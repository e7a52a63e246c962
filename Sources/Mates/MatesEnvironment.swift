package import Foundation
package import Platform
package import Vapor

/// What mates' service and store take beside their database, made once by `MatesFeature.configure`:
/// the clock, the bus, the log and the memories the store keeps right (the searching index, each
/// person's own record, who asked whom). The store never holds the application.
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
    package let events: any EventBus
    package let logger: Logger
    /// The people searching now, by place (`SearchingIndex`), refreshed by the store's announcements.
    let index: SearchingIndex
    /// Each person's own profile record (`MatesStore.record`), forgotten on every announcement.
    var records: PersonMemory<MatesOwnRecord?>
    /// Who asked each person (`MatesStore.askers`).
    var askers: PersonMemory<[UUID]>
    /// What each person bought (`MatesStore.purchasedItems`), forgotten by each purchase.
    let purchases: PersonMemory<[(kind: String, index: Int)]>
    /// What a match's chat, review and report pages read (`MatchPageViews`).
    let matchPageViews: MatchPageViews

    init(clock: @escaping Now, chatNoticeDelay: TimeInterval = 5, events: any EventBus, logger: Logger) {
        self.clock = clock
        self.chatNoticeDelay = chatNoticeDelay
        self.events = events
        self.logger = logger
        self.index = SearchingIndex()
        self.records = PersonMemory(topic: MatesStore.topic, lifetime: 300)
        self.askers = PersonMemory(topic: MatesStore.requestsTopic, lifetime: 300)
        self.purchases = PersonMemory(topic: "mates.purchases", lifetime: 3_600, capacity: 20_000)
        self.matchPageViews = MatchPageViews()
    }
}

extension Application {
    private struct MatesEnvironmentKey: StorageKey { typealias Value = MatesEnvironment }

    package var matesEnvironment: MatesEnvironment {
        get { configured(MatesEnvironmentKey.self) }
        set { storage[MatesEnvironmentKey.self] = newValue }
    }

    /// The people searching now (`matesEnvironment.index`).
    var searchingIndex: SearchingIndex { matesEnvironment.index }

    /// Each person's own profile record (`matesEnvironment.records`).
    var matesRecords: PersonMemory<MatesOwnRecord?> {
        get { matesEnvironment.records }
        set { matesEnvironment.records = newValue }
    }

    /// Who asked each person (`matesEnvironment.askers`).
    var matesAskers: PersonMemory<[UUID]> {
        get { matesEnvironment.askers }
        set { matesEnvironment.askers = newValue }
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
