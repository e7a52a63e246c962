import NIOConcurrencyHelpers
import Vapor

/// Counts events per key (a client address, say) in a sliding window, in memory.
/// Each server process keeps its own counts; that bounds abuse per process, which is the point
/// for guessing-type attacks (PINs) and for budgets of expensive work (bcrypt).
///
/// A caller reserves its slot before the work it guards, in one step under the lock, and gives
/// it back when that work turns out not to count. Checking first and recording after the work
/// would let every parallel request pass the check before any of them recorded.
public final class RateLimiter: Sendable {
    public let limit: Int
    public let window: TimeInterval
    private let events = NIOLockedValueBox<[String: [Date]]>([:])

    public init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// A slot taken by `reserve`, to hand back to `release`.
    public struct Slot: Sendable {
        let key: String
        let takenAt: Date
    }

    /// Takes a slot for `key`, or answers the seconds to wait when the window is full.
    public func tryReserve(_ key: String, now: Date = Date()) -> Result<Slot, Wait> {
        events.withLockedValue { all in
            var recent = (all[key] ?? []).filter { now.timeIntervalSince($0) < window }
            if recent.count >= limit, let oldest = recent.first {
                all[key] = recent
                return .failure(Wait(seconds: max(1, Int((oldest.addingTimeInterval(window).timeIntervalSince(now)).rounded(.up)))))
            }
            recent.append(now)
            all[key] = recent
            // Forget idle keys now and then so the table cannot grow without bound.
            if all.count > 10_000 { all = all.filter { !$0.value.allSatisfy { now.timeIntervalSince($0) >= window } } }
            return .success(Slot(key: key, takenAt: now))
        }
    }

    public struct Wait: Error, Equatable {
        public let seconds: Int
    }

    /// Gives a slot back: what it guarded did not happen, or does not count (a PIN that was found,
    /// feedback refused by a rule).
    public func release(_ slot: Slot) {
        events.withLockedValue { all in
            guard var recent = all[slot.key], let index = recent.lastIndex(of: slot.takenAt) else { return }
            recent.remove(at: index)
            all[slot.key] = recent.isEmpty ? nil : recent
        }
    }
}

extension RateLimiter {
    /// Takes a slot for `key`, or throws 429 with `Retry-After` when the window is full.
    @discardableResult
    func reserve(_ key: String, code: String = "too_many_requests") throws -> Slot {
        switch tryReserve(key) {
        case .success(let slot): return slot
        case .failure(let wait): throw AppError(.tooManyRequests, code, headers: ["Retry-After": String(wait.seconds)])
        }
    }

    /// Runs `work` in a reserved slot; the slot is given back when `work` throws a client error
    /// (a refused request does not use up the budget), and kept otherwise.
    @discardableResult
    func withSlot<T>(_ key: String, code: String = "too_many_requests", _ work: () async throws -> T) async throws -> T {
        let slot = try reserve(key, code: code)
        do {
            return try await work()
        } catch let error as AppError where error.status.code < 500 {
            release(slot)
            throw error
        }
    }
}

extension Request {
    /// The client's address: the peer's, or, when the peer is one of `TRUSTED_PROXIES`, the
    /// rightmost address in `X-Forwarded-For` that is not one of them (anything left of it the
    /// client could have written itself).
    var clientAddress: String {
        let peer = remoteAddress?.ipAddress ?? "unknown"
        let trusted = application.settings.trustedProxies
        guard trusted.contains(peer) else { return peer }
        let hops = headers[canonicalForm: "X-Forwarded-For"].map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.last { !trusted.contains($0) } ?? peer
    }
}
