import Accounts
import Foundation
import NIOConcurrencyHelpers
import Platform
import Vapor

/// What a waiting room shows, kept in memory per group for the clients that poll it.
///
/// Every member of a group polls the same state (the original app every 10 seconds, our pages
/// every 3 while the socket is down), so answering from memory spares the database most of that
/// traffic. Writes in this process (create, submit, cancel, close) update the entry at once, so a
/// single process is always exact. An entry older than `maxAge` is read again from the database:
/// that bounds how stale another process's view can be when several share PostgreSQL.
final class MenuGroupStateCache: Sendable {
    package struct Snapshot: Sendable, Equatable {
        package let id: UUID
        package let pin: String
        let hostTokenHash: String
        package var isClosed: Bool
        var lastActivityAt: Date
        package var submissionCount: Int
        /// The room, in the order people joined.
        package var members: [GroupMember]

        package func status(device: String?) -> GroupStatus {
            let deviceHash = device.map(SecureRandom.sha256Hex)
            let isHost = deviceHash.map { SecureRandom.constantTimeEquals($0, hostTokenHash) } ?? false
            let you = deviceHash.flatMap { hash in members.first { SecureRandom.constantTimeEquals($0.playerTokenHash, hash) }?.id }
            return GroupStatus(pin: pin, submissionCount: submissionCount, isHost: isHost, isClosed: isClosed,
                               expiresAt: lastActivityAt.addingTimeInterval(MenuGameService.groupLifetime), members: members, you: you)
        }

        package init(id: UUID, pin: String, hostTokenHash: String, isClosed: Bool, lastActivityAt: Date,
                     submissionCount: Int, members: [GroupMember] = []) {
            self.id = id
            self.pin = pin
            self.hostTokenHash = hostTokenHash
            self.isClosed = isClosed
            self.lastActivityAt = lastActivityAt
            self.submissionCount = submissionCount
            self.members = members
        }
    }

    private struct Entry: Sendable {
        var snapshot: Snapshot
        /// When the database was read for this state (a count started, a row was loaded).
        var observedAt: Date
    }

    let maxAge: TimeInterval
    var capacity: Int { entries.capacity }
    private let entries: BoundedMemory<String, Entry>

    init(maxAge: TimeInterval = 1, capacity: Int = 10_000) {
        self.maxAge = maxAge
        entries = BoundedMemory(name: "menu_group_states", capacity: capacity)
    }

    /// The state of this group if it was read or written less than `maxAge` ago.
    func fresh(pin: String, now: Date) -> Snapshot? {
        guard let entry = entries[pin], now.timeIntervalSince(entry.observedAt) < maxAge else { return nil }
        return entry.snapshot
    }

    /// Records a state read from the database at `observedAt`. An older observation never
    /// replaces a newer one (two submissions counting at once may finish in either order).
    func store(_ snapshot: Snapshot, observedAt: Date) {
        // Stale entries would be read again anyway: a full memory drops them first.
        entries.update(snapshot.pin, stale: { [maxAge] in observedAt.timeIntervalSince($0.observedAt) >= maxAge }) { entry in
            if let existing = entry, existing.snapshot.id == snapshot.id, existing.observedAt > observedAt { return }
            entry = Entry(snapshot: snapshot, observedAt: observedAt)
        }
    }

    func forget(pin: String) {
        entries.forget(pin)
    }

    var count: Int { entries.count }
}
