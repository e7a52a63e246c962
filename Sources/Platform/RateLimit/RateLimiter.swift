import NIOConcurrencyHelpers
public import Vapor

/// Counts events per key (a client address, say) in a sliding window.
///
/// On SQLite (one process) the counts live in this process's memory. With several instances on
/// one PostgreSQL database they live there (`SharedBudgets`, when `shared` is given), so a client
/// has one budget however many instances answer it.
///
/// A caller reserves its slot before the work it guards, in one step (under a lock, or a
/// database lock per key), and gives it back when that work turns out not to count. Checking
/// first and recording after the work would let every parallel request pass the check before
/// any of them recorded.
public final class RateLimiter: Sendable {
    /// Names the budget in the shared table (`passwordChecks`, `feedback`…).
    public let name: String
    public let limit: Int
    public let window: TimeInterval
    /// When each key took its slots, in this process (the budget's window of them); past
    /// `keysInMemory` keys the idle ones are dropped, never one still in its window.
    private let events: BoundedMemory<String, [Date]>
    private let shared: SharedBudgets?
    /// The time a slot is taken at (the site's clock, or a test's).
    package let clock: Now

    package init(name: String, limit: Int, window: TimeInterval, shared: SharedBudgets? = nil, clock: @escaping Now = WallClock.now,
                 keysInMemory: Int = 10_000) {
        self.name = name
        self.limit = limit
        self.window = window
        self.shared = shared
        self.clock = clock
        // Past `keysInMemory` only idle keys go (a key still in its window keeps its slots).
        events = BoundedMemory(name: "rate_limit:" + name, capacity: keysInMemory, startsOverWhenFull: false)
    }

    /// A slot taken by `reserve`, to hand back to `release`.
    public struct Slot: Sendable {
        package let key: String
        let takenAt: Date
        /// The slot's row when the budget is shared.
        let sharedID: UUID?
    }

    /// Takes a slot for `key`, or answers the seconds to wait when the window is full.
    public func tryReserve(_ key: String, now: Date) async throws -> Result<Slot, Wait> {
        guard let shared else { return reserveInMemory(key, now: now) }
        switch try await shared.take(budget: name, key: key, limit: limit, window: window, now: now) {
        case .success(let id): return .success(Slot(key: key, takenAt: now, sharedID: id))
        case .failure(let wait): return .failure(wait)
        }
    }

    private func reserveInMemory(_ key: String, now: Date) -> Result<Slot, Wait> {
        events.update(key, stale: { [window] in $0.allSatisfy { now.timeIntervalSince($0) >= window } }) { entry in
            var recent = (entry ?? []).filter { now.timeIntervalSince($0) < window }
            if recent.count >= limit, let oldest = recent.first {
                entry = recent
                return .failure(Wait(seconds: max(1, Int((oldest.addingTimeInterval(window).timeIntervalSince(now)).rounded(.up)))))
            }
            recent.append(now)
            entry = recent
            return .success(Slot(key: key, takenAt: now, sharedID: nil))
        }
    }

    public struct Wait: Error, Equatable {
        public let seconds: Int

        /// The 429 that says when to come back: `Retry-After`, and the wait in seconds, minutes
        /// and hours for the message of `code`.
        package func refusal(_ code: String) -> AppError {
            AppError(.tooManyRequests, code,
                     arguments: ["seconds": String(seconds), "minutes": String((seconds + 59) / 60), "hours": String((seconds + 3599) / 3600)],
                     headers: ["Retry-After": String(seconds)])
        }
    }

    /// Gives a slot back: what it guarded did not happen, or does not count (a PIN that was found,
    /// feedback refused by a rule).
    public func release(_ slot: Slot) async {
        if let id = slot.sharedID, let shared {
            await shared.giveBack(id)
            return
        }
        events.update(slot.key) { entry in
            guard var recent = entry, let index = recent.lastIndex(of: slot.takenAt) else { return }
            recent.remove(at: index)
            entry = recent.isEmpty ? nil : recent
        }
    }
}

/// A budget that takes a slot per key before the work it guards, and gives it back when that work
/// does not count: `RateLimiter` (per key), `NetworkBudget` (per client network and its /48).
package protocol SlotBudget: Sendable {
    associatedtype Key
    associatedtype Slot: Sendable

    /// What `reserve` reads the time from.
    var clock: Now { get }
    func tryReserve(_ key: Key, now: Date) async throws -> Result<Slot, RateLimiter.Wait>
    func release(_ slot: Slot) async
}

extension SlotBudget {
    /// Takes a slot at the time the budget's clock reads.
    package func tryReserve(_ key: Key) async throws -> Result<Slot, RateLimiter.Wait> {
        try await tryReserve(key, now: clock())
    }

    /// Takes a slot for `key`, or throws 429 with `Retry-After` (and the wait in seconds, minutes
    /// and hours for the message) when the window is full.
    @discardableResult
    package func reserve(_ key: Key, code: String = "too_many_requests") async throws -> Slot {
        switch try await tryReserve(key, now: clock()) {
        case .success(let slot): return slot
        case .failure(let wait): throw wait.refusal(code)
        }
    }

    /// Runs `work` in a reserved slot; the slot is given back when `work` throws a client error
    /// (a refused request does not use up the budget), and kept otherwise.
    @discardableResult
    package func withSlot<T>(_ key: Key, code: String = "too_many_requests", _ work: () async throws -> T) async throws -> T {
        let slot = try await reserve(key, code: code)
        do {
            return try await work()
        } catch let error as AppError where error.status.code < 500 {
            await release(slot)
            throw error
        }
    }
}

extension RateLimiter: SlotBudget {}

extension Request {
    /// The client's address: the peer's, or, when the peer is one of `TRUSTED_PROXIES`, the
    /// rightmost address in `X-Forwarded-For` that is not one of them (anything left of it the
    /// client could have written itself).
    package var clientAddress: String {
        let peer = remoteAddress?.ipAddress ?? "unknown"
        let trusted = application.settings.trustedProxies
        guard trusted.contains(peer) else {
            if headers.contains(name: "X-Forwarded-For") { UntrustedForwarding.warnOnce(logger, peer: peer) }
            return peer
        }
        let hops = headers[canonicalForm: "X-Forwarded-For"].map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.last { !trusted.contains($0) } ?? peer
    }
}
