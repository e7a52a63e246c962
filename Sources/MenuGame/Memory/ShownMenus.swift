import Fluent
import NIOConcurrencyHelpers
import Platform
import SQLKit
import Vapor

/// Each device's recently shown menus (random menus and solo winners), in memory in front of
/// `menu_device_history`, which is written a second later in one statement for everyone shown
/// meanwhile. The home page shows a random menu on every view; an insert per view, through
/// SQLite's one writer, held `/play` at 0.07× of `/healthz` (issue 30).
///
/// What a device saw is read from the table on its first view here and again after a minute, so
/// views served by other instances count too; this instance's shows not yet written are kept on
/// top. The history is for variety only: a show lost to a crash within its second, or one another
/// instance made in the last minute, makes a repeat possible, nothing worse.
final class ShownMenus: Sendable {
    private struct Entry: Sendable {
        /// Newest first, at most `FairShare.historyLength`.
        var slugs: [String]
        var readAt: Date
    }

    private struct Shown: Sendable {
        let deviceHash: String
        let slug: String
        let at: Date
    }

    private struct State: Sendable {
        var entries: [String: Entry] = [:]
        var pending: [Shown] = []
    }

    private let state = NIOLockedValueBox(State())
    /// How long a device's history is trusted before it is read again.
    let rereadAfter: TimeInterval
    /// Devices remembered at once (past it, the memory starts again; reads refill it), and shows
    /// kept unwritten while the database is away.
    let capacity: Int

    init(rereadAfter: TimeInterval = 60, capacity: Int = 100_000) {
        self.rereadAfter = rereadAfter
        self.capacity = capacity
    }

    /// The device's shown menus, newest first (at most `FairShare.historyLength`).
    func recent(_ deviceHash: String, on database: any Database, now: Date) async throws -> [String] {
        if let entry = state.withLockedValue({ $0.entries[deviceHash] }), now.timeIntervalSince(entry.readAt) < rereadAfter {
            return entry.slugs
        }
        let stored = try await MenuPlayerStore(database: database).recentShows(of: deviceHash, limit: FairShare.historyLength)
        return state.withLockedValue { state in
            // Shows of this instance not written yet come first.
            let unwritten = state.pending.filter { $0.deviceHash == deviceHash }.reversed().map(\.slug)
            let slugs = Array((unwritten + stored).prefix(FairShare.historyLength))
            if state.entries.count >= capacity, state.entries[deviceHash] == nil { state.entries.removeAll(keepingCapacity: true) }
            state.entries[deviceHash] = Entry(slugs: slugs, readAt: now)
            return slugs
        }
    }

    /// Records a show: at once here, in the table at the next `flush`.
    func remember(_ slug: String, for deviceHash: String, at now: Date) {
        state.withLockedValue { state in
            if var entry = state.entries[deviceHash] {
                entry.slugs = Array(([slug] + entry.slugs).prefix(FairShare.historyLength))
                state.entries[deviceHash] = entry
            }
            state.pending.append(Shown(deviceHash: deviceHash, slug: slug, at: now))
        }
    }

    /// Writes every show recorded since the last flush in one statement, then deletes each of
    /// those devices' rows past the newest `FairShare.historyLength`. Returns how many it wrote.
    @discardableResult
    func flush(on database: any Database) async throws -> Int {
        let batch = state.withLockedValue { state -> [Shown] in
            defer { state.pending.removeAll(keepingCapacity: true) }
            return state.pending
        }
        guard !batch.isEmpty else { return 0 }
        do {
            try await MenuPlayerStore(database: database).recordShows(batch.map { ($0.deviceHash, $0.slug, $0.at) }, keep: FairShare.historyLength)
        } catch {
            // Kept for the next flush rather than lost, up to `capacity` shows while the database
            // is away (the oldest go first: they matter least to variety).
            state.withLockedValue { state in
                state.pending.insert(contentsOf: batch, at: 0)
                if state.pending.count > capacity { state.pending.removeFirst(state.pending.count - capacity) }
            }
            throw error
        }
        return batch.count
    }
}

/// Writes the shows each second, and what is left when the server stops.
struct ShownMenusFlush: LifecycleHandler {
    func shutdownAsync(_ application: Application) async {
        do {
            try await application.shownMenus.flush(on: application.db)
        } catch {
            application.logger.warning("shown menus not written at shutdown: \(error)")
        }
    }
}
