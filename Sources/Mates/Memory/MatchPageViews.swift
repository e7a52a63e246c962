import Accounts
import Foundation
import Platform
import Vapor

/// What the chat, review and report pages of a match read on every view — the match, the
/// partner as others see them, whether the reader reviewed it — kept at one version that moves
/// whenever any of it may have changed: any profile announcement (`MatesStore.announce`: a
/// match ends only where both people's profiles change, and a review adds to the reviewee's),
/// a read marker moved, a review written, an account's name or picture changed — here and, by
/// the same announcements through the bus, on every other instance. Only those pages read from
/// it: the API and every write read the database.
final class MatchPageViews: Sendable {
    static let topic = "mates.match-views"

    private struct Kept<Value: Sendable>: Sendable {
        let value: Value
        let version: Int
    }

    private let version = ChangeVersion(topic: MatchPageViews.topic)
    private let matches: BoundedMemory<UUID, Kept<MatchRow>>
    private let people: BoundedMemory<UUID, Kept<MatePerson?>>
    private let reviewed: BoundedMemory<String, Kept<Bool>>

    init(capacity: Int = 10_000) {
        matches = BoundedMemory(name: "kept_mates_matches", capacity: capacity)
        people = BoundedMemory(name: "kept_mates_people", capacity: capacity)
        reviewed = BoundedMemory(name: "kept_mates_reviewed", capacity: capacity)
    }

    var current: Int { version.current }

    func moveOn() { version.moveOn() }

    /// Something the pages show changed (and committed): read again here and on every instance.
    func changed(on events: any EventBus) async {
        await version.changed(announcingOn: events)
    }

    func match(_ id: UUID, read: () async throws -> MatchRow?) async throws -> MatchRow? {
        try await kept(in: matches, id, read: read)
    }

    func person(_ id: UUID, read: () async throws -> MatePerson?) async throws -> MatePerson? {
        if let kept = people[id], kept.version == current { return kept.value }
        let version = current
        let person = try await read()
        if version == current { people.keep(Kept(value: person, version: version), for: id) }
        return person
    }

    func hasReviewed(_ match: UUID, by user: UUID, read: () async throws -> Bool) async throws -> Bool {
        try await kept(in: reviewed, match.uuidString + "|" + user.uuidString, read: read) ?? false
    }

    private func kept<Key: Hashable & Sendable, Value: Sendable>(in memory: BoundedMemory<Key, Kept<Value>>, _ key: Key,
                                                                 read: () async throws -> Value?) async throws -> Value? {
        if let kept = memory[key], kept.version == current { return kept.value }
        let version = current
        guard let value = try await read() else { return nil }
        // A change that came while reading moved the version: what was read is not kept.
        if version == current { memory.keep(Kept(value: value, version: version), for: key) }
        return value
    }

    /// Every instance follows the profile announcements, this memory's own and account changes.
    static func follow(_ app: Application) {
        app.matesEnvironment.matchPageViews.version.follow(app)
        app.follow(MatesStore.topic) { app, _ in app.matesEnvironment.matchPageViews.moveOn() }
        app.followAccountChanges { app, _ in app.matesEnvironment.matchPageViews.moveOn() }
    }
}
