package import Fluent
package import Foundation
import Metrics
import NIOConcurrencyHelpers
package import Vapor

/// What a handler says of an item it ran.
package enum WorkOutcome: Sendable, Equatable {
    /// Done: the item goes.
    case done
    /// Not yet (the receiver asked to wait, say): run again after this many seconds.
    case retry(after: TimeInterval)
    /// Failed: counted like a thrown error (given up after `maxAttempts`), run again after the
    /// longer of `after` (a receiver's `Retry-After`) and the backoff.
    case failed(reason: String, after: TimeInterval?)
}

/// Work that must outlive the request that asked for it and the process that took it: a chat
/// line's notice a few seconds later, a push message to deliver. Items are rows of the database
/// (`WorkQueueStore`), so a restart or a crash loses none; an instance claims a batch with a lease
/// (on PostgreSQL `FOR UPDATE SKIP LOCKED`), so one instance runs each item; a handler that throws
/// runs again later, backing off, and an item that failed `maxAttempts` times is dropped, logged
/// and counted. Each kind of work registers its handler at start-up (`register`).
package final class WorkQueue: LifecycleHandler, Sendable {
    package typealias Handler = @Sendable (Application, WorkItem) async throws -> WorkOutcome

    /// How often due work is looked for when nothing rings (work enqueued here for now rings).
    package let pollInterval: Duration
    /// How long a claim holds an item before another claim may take it.
    package let lease: TimeInterval
    package let maxAttempts: Int
    /// How many items run at once (and the most one claim takes).
    package let batchSize: Int
    private let clockBox: NIOLockedValueBox<@Sendable () -> Date>
    private let background = NIOLockedValueBox(true)

    private let handlers = NIOLockedValueBox<[String: Handler]>([:])
    private let runner = NIOLockedValueBox<Task<Void, Never>?>(nil)
    private let doorbell = Doorbell()

    package init(pollInterval: Duration = .seconds(1), lease: TimeInterval = 120, maxAttempts: Int = 12, batchSize: Int = 50,
                 clock: @escaping Now = WallClock.now) {
        self.pollInterval = pollInterval
        self.lease = lease
        self.maxAttempts = maxAttempts
        self.batchSize = batchSize
        self.clockBox = NIOLockedValueBox(clock)
    }

    /// The time the queue reads.
    package var clock: @Sendable () -> Date { clockBox.withLockedValue { $0 } }

    /// Reads time from `clock` from now on (a test moves it to make work due).
    package func useClock(_ clock: @escaping @Sendable () -> Date) { clockBox.withLockedValue { $0 = clock } }

    /// Whether the runner claims work by itself (a test that calls `runDue` turns it off, so it
    /// alone decides when work runs).
    package var runsInBackground: Bool {
        get { background.withLockedValue { $0 } }
        set { background.withLockedValue { $0 = newValue } }
    }

    /// Who runs `kind`'s items (one handler a kind; registered before the app boots).
    package func register(_ kind: String, handler: @escaping Handler) {
        handlers.withLockedValue { $0[kind] = handler }
        AppMetrics.countersStartAtZero(["whatweeat_work_done_total", "whatweeat_work_failures_total", "whatweeat_work_dropped_total"],
                                       label: "kind", values: [kind])
    }

    /// Adds work to run `delay` seconds from now, in `database` (a transaction's, so the work
    /// exists exactly when what asked for it does). With `oncePer` a key, nothing is added while an
    /// item of that key waits unclaimed (a conversation's one pending check, however many lines).
    package func enqueue(_ kind: String, _ payload: some Encodable, after delay: TimeInterval = 0, oncePer key: String? = nil,
                         on database: any Database) async throws {
        let now = clock()
        let encoded = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        try await WorkQueueStore(database: database).add(id: UUID(), kind: kind, payload: encoded, due: now.addingTimeInterval(delay), now: now,
                                                         onceKey: key.map { kind + "|" + $0 })
        if delay <= 0 { doorbell.ring() }
    }

    /// The soonest an item that asked to run again (`WorkOutcome.retry`) runs again.
    package static let shortestRetry: TimeInterval = 0.01

    /// Seconds before the next attempt after `attempts` failed ones: 5 s, doubling, at most an hour.
    package static func backoff(afterAttempts attempts: Int) -> TimeInterval {
        min(3600, 5 * pow(2, Double(max(0, min(attempts, 12) - 1))))
    }

    /// Claims due items and runs them, at most `batchSize` at once, until none is due; returns how
    /// many ran. A slot that frees is filled at once while the last claim was full (more may be due),
    /// and every `pollInterval` while items run the free slots are filled with work that became due
    /// meanwhile: no item waits for the slowest one running (a push service that answers after 30 s
    /// holds its own items, never a chat notice queued behind them).
    @discardableResult
    package func runDue(_ app: Application) async -> Int {
        let kinds = handlers.withLockedValue { Array($0.keys) }
        // A child finishing says which it was: an item (true) or the tick that looks for new work (false).
        return await withTaskGroup(of: Bool.self) { group in
            var running = 0, ran = 0
            var claimNow = true, moreDue = true, ticking = false
            while true {
                if Task.isCancelled { moreDue = false }
                if claimNow, !Task.isCancelled, running < batchSize {
                    let wanted = batchSize - running
                    let now = clock()
                    do {
                        let claimed = try await WorkQueueStore(database: app.db).claimDue(kinds: kinds, limit: wanted, now: now,
                                                                                           leaseEnd: now.addingTimeInterval(lease))
                        for item in claimed {
                            group.addTask {
                                await self.run(item, app)
                                return true
                            }
                        }
                        running += claimed.count
                        ran += claimed.count
                        moreDue = claimed.count == wanted
                    } catch {
                        app.logger.warning("work queue: cannot claim due work: \(error)")
                        moreDue = false
                    }
                }
                if running == 0, !moreDue { break }
                if running > 0, !ticking, !Task.isCancelled {
                    ticking = true
                    group.addTask {
                        try? await Task.sleep(for: self.pollInterval)
                        return false
                    }
                }
                guard let itemFinished = await group.next() else { break }
                if itemFinished {
                    running -= 1
                    claimNow = moreDue
                } else {
                    ticking = false
                    claimNow = true
                }
            }
            // The tick, if one waits.
            group.cancelAll()
            return ran
        }
    }

    private func run(_ item: WorkItem, _ app: Application) async {
        let store = WorkQueueStore(database: app.db)
        guard let handler = handlers.withLockedValue({ $0[item.kind] }) else { return }
        do {
            switch try await handler(app, item) {
            case .done:
                try await store.remove(item.id)
                Counter(label: "whatweeat_work_done_total", dimensions: [("kind", item.kind)]).increment()
            case .retry(let seconds):
                // Never sooner than `shortestRetry`: a due time a rounding hair after now is stored as
                // now, and the same pass would claim the item again and again.
                try await store.postpone(item.id, attempts: item.attempts, error: nil,
                                         until: clock().addingTimeInterval(max(seconds, Self.shortestRetry)))
            case .failed(let reason, let after):
                await fail(item, reason: reason, waiting: after, app)
            }
        } catch {
            await fail(item, reason: String(describing: error), waiting: nil, app)
        }
    }

    /// Counts a failed attempt: the item runs again after the backoff (or `waiting`, if longer), or
    /// is given up after `maxAttempts`.
    private func fail(_ item: WorkItem, reason: String, waiting: TimeInterval?, _ app: Application) async {
        let store = WorkQueueStore(database: app.db)
        let attempts = item.attempts + 1
        Counter(label: "whatweeat_work_failures_total", dimensions: [("kind", item.kind)]).increment()
        if attempts >= maxAttempts {
            app.logger.error("work queue: gave up", metadata: ["kind": "\(item.kind)", "attempts": "\(attempts)", "error": "\(reason)"])
            Counter(label: "whatweeat_work_dropped_total", dimensions: [("kind", item.kind)]).increment()
            do { try await store.remove(item.id) } catch { app.logger.warning("work queue: \(item.kind) not removed; its lease will lapse: \(error)") }
        } else {
            app.logger.notice("work queue: failed; retrying", metadata: ["kind": "\(item.kind)", "attempts": "\(attempts)", "error": "\(reason)"])
            let wait = max(waiting ?? 0, Self.backoff(afterAttempts: attempts))
            do {
                try await store.postpone(item.id, attempts: attempts, error: String(reason.prefix(500)), until: clock().addingTimeInterval(wait))
            } catch {
                // Its lease lapses and it runs again then, its failure uncounted.
                app.logger.warning("work queue: \(item.kind)'s failure not recorded: \(error)")
            }
        }
    }

    /// Sets the `/metrics` gauges from the table: items waiting, and the age of the oldest.
    package func publishBacklog(on database: any Database) async throws {
        let backlog = try await WorkQueueStore(database: database).backlog()
        Gauge(label: "whatweeat_work_waiting").record(backlog.count)
        Gauge(label: "whatweeat_work_oldest_seconds").record(backlog.oldest.map { max(0, clock().timeIntervalSince($0)) } ?? 0)
    }

    // MARK: Lifecycle

    package func didBootAsync(_ application: Application) async throws {
        let task = Task { [self] in
            var lastGauges = ContinuousClock.now
            while !Task.isCancelled {
                if runsInBackground { await runDue(application) }
                if ContinuousClock.now - lastGauges > .seconds(10) {
                    try? await publishBacklog(on: application.db)
                    lastGauges = ContinuousClock.now
                }
                await doorbell.wait(upTo: pollInterval)
            }
        }
        runner.withLockedValue { $0 = task }
    }

    package func shutdownAsync(_ application: Application) async {
        let task = runner.withLockedValue { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        task?.cancel()
        doorbell.ring()
        await task?.value
    }
}

/// Wakes the queue's runner early: work enqueued for now need not wait for the next poll.
private final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var sleeper: Task<Void, Never>?
    }
    private let state = NIOLockedValueBox(State())

    func ring() {
        let sleeper = state.withLockedValue { state -> Task<Void, Never>? in
            guard let sleeper = state.sleeper else {
                state.rung = true
                return nil
            }
            state.sleeper = nil
            return sleeper
        }
        sleeper?.cancel()
    }

    /// Returns after `duration`, or sooner once rung (at once if it rang since the last wait).
    func wait(upTo duration: Duration) async {
        let sleeper = Task<Void, Never> { try? await Task.sleep(for: duration) }
        let rang = state.withLockedValue { state -> Bool in
            if state.rung {
                state.rung = false
                return true
            }
            state.sleeper = sleeper
            return false
        }
        if rang { sleeper.cancel() }
        await sleeper.value
        state.withLockedValue { if $0.sleeper == sleeper { $0.sleeper = nil } }
    }
}

extension Application {
    private struct WorkQueueKey: StorageKey { typealias Value = WorkQueue }

    /// The durable queue every feature hands later work to.
    package var workQueue: WorkQueue {
        get { configured(WorkQueueKey.self) }
        set { storage[WorkQueueKey.self] = newValue }
    }
}
