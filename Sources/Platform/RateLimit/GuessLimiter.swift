import NIOConcurrencyHelpers
public import Vapor

/// Bounds failed guesses (a PIN look-up that finds nothing) per key, exactly, without limiting
/// the look-ups that succeed. A look-up in flight might still be a miss, so it holds one of the
/// budget's places while it runs: with `misses + inFlight` at the limit, further look-ups wait
/// for one to finish (a hit gives its place back at once, so many players behind one address
/// only wait a moment), and once the recorded misses alone fill the window they are refused.
/// 300 parallel guesses from one address therefore get exactly `limit` answers of "not found".
public final class GuessLimiter: Sendable {
    public let limit: Int
    public let window: TimeInterval

    private struct Entry: Sendable {
        var misses: [Date] = []
        var inFlight = 0
    }
    /// Each key's misses and look-ups in flight; past 10,000 keys the idle ones are dropped.
    private let entries: BoundedMemory<String, Entry>
    private let clock: Now

    /// `name` labels its counts in `/metrics`.
    package init(name: String, limit: Int, window: TimeInterval, clock: @escaping Now = WallClock.now) {
        self.limit = limit
        self.window = window
        self.clock = clock
        // Past 10,000 keys only idle ones go: a key's misses in the window are never forgotten.
        entries = BoundedMemory(name: "guess_limit:" + name, capacity: 10_000, startsOverWhenFull: false)
    }

    /// Runs `lookUp` within the budget of `key`; a nil result is a miss and is recorded.
    /// Throws 429 (with `Retry-After`) when the misses of the window are used up.
    package func guess<Found>(_ key: String, code: String, _ lookUp: () async throws -> Found?) async throws -> Found? {
        while true {
            switch admit(key) {
            case .admitted:
                var missed = true
                defer { finish(key, missed: missed) }
                let found = try await lookUp()
                missed = found == nil
                return found
            case .refused(let wait):
                throw AppError(.tooManyRequests, code, headers: ["Retry-After": String(wait)])
            case .full:
                // Wait for a look-up in flight to finish: a found PIN frees its place at once.
                // A short sleep and a fresh look, rather than parked continuations, so no wake-up
                // can be lost between the check and the wait.
                try await Task.sleep(for: .milliseconds(2))
            }
        }
    }

    private enum Admission { case admitted, full, refused(Int) }

    private func admit(_ key: String) -> Admission {
        let now = clock()
        return entries.update(key, stale: idle(at: now)) { slot in
            var entry = slot ?? Entry()
            entry.misses.removeAll { now.timeIntervalSince($0) >= window }
            defer { slot = entry }
            if entry.misses.count >= limit, let oldest = entry.misses.first {
                return .refused(max(1, Int(oldest.addingTimeInterval(window).timeIntervalSince(now).rounded(.up))))
            }
            guard entry.misses.count + entry.inFlight < limit else { return .full }
            entry.inFlight += 1
            return .admitted
        }
    }

    private func finish(_ key: String, missed: Bool) {
        let now = clock()
        entries.update(key, stale: idle(at: now)) { slot in
            guard var entry = slot else { return }
            entry.inFlight -= 1
            if missed { entry.misses.append(now) }
            slot = entry.inFlight == 0 && entry.misses.isEmpty ? nil : entry
        }
    }

    /// A key with nothing in flight and no miss in the window: what a full memory drops first.
    private func idle(at now: Date) -> @Sendable (Entry) -> Bool {
        { [window] entry in entry.inFlight == 0 && !entry.misses.contains { now.timeIntervalSince($0) < window } }
    }
}
