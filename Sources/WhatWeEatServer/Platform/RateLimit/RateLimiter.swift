import NIOConcurrencyHelpers
import Vapor

/// Counts events per key (a client address, say) in a sliding window, in memory.
/// Each server process keeps its own counts; that bounds abuse per process, which is the point
/// for guessing-type attacks (PINs).
public final class RateLimiter: Sendable {
    public let limit: Int
    public let window: TimeInterval
    private let events = NIOLockedValueBox<[String: [Date]]>([:])

    public init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Seconds to wait when `key` has used up its window, else nil.
    public func retryAfter(_ key: String, now: Date = Date()) -> Int? {
        events.withLockedValue { all in
            let recent = (all[key] ?? []).filter { now.timeIntervalSince($0) < window }
            all[key] = recent.isEmpty ? nil : recent
            guard recent.count >= limit, let oldest = recent.first else { return nil }
            return max(1, Int((oldest.addingTimeInterval(window).timeIntervalSince(now)).rounded(.up)))
        }
    }

    public func record(_ key: String, now: Date = Date()) {
        events.withLockedValue { all in
            var recent = (all[key] ?? []).filter { now.timeIntervalSince($0) < window }
            recent.append(now)
            all[key] = recent
            // Forget idle keys now and then so the table cannot grow without bound.
            if all.count > 10_000 { all = all.filter { !$0.value.allSatisfy { now.timeIntervalSince($0) >= window } } }
        }
    }
}

extension RateLimiter {
    /// Throws 429 with `Retry-After` when `key` has used up its window.
    func check(_ key: String, code: String = "too_many_requests") throws {
        if let wait = retryAfter(key) {
            throw AppError(.tooManyRequests, code, headers: ["Retry-After": String(wait)])
        }
    }
}

extension Request {
    /// The peer's address (the load balancer's when behind one).
    var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }
}
