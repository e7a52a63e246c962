package import Foundation
package import Vapor

/// Something of each person's that pages read on every request and that changes rarely (the
/// inbox's unread count, the menu game's saved dislikes), kept in memory so a page does not read
/// it from the database each time.
///
/// The owner of the value calls `forget` on every change: it drops the value here at once and
/// announces it on the event bus (`topic`), so every other instance drops it too (each follows
/// the topic with `apply(forgetting:)`). `lifetime` bounds how long a value lives without being
/// read again, should an announcement be lost. A read that started before a `forget` is never
/// kept (take `generation` before reading, hand it to `remember`).
package final class PersonMemory<Value: Sendable>: Sendable {
    private struct Entry: Sendable {
        let value: Value
        let storedAt: Date
    }

    package let topic: String
    package let lifetime: TimeInterval
    private let entries: BoundedMemory<UUID, Entry>
    /// What a value's age is measured by.
    private let clock: Now

    package var capacity: Int { entries.capacity }

    package init(topic: String, lifetime: TimeInterval, capacity: Int = 100_000, clock: @escaping Now = WallClock.now) {
        self.topic = topic
        self.lifetime = lifetime
        self.clock = clock
        entries = BoundedMemory(name: "person:" + topic, capacity: capacity)
    }

    /// The remembered value, or nil: read it.
    package func value(for person: UUID) -> Value? { value(for: person, now: clock()) }

    package func value(for person: UUID, now: Date) -> Value? {
        guard let entry = entries[person], now.timeIntervalSince(entry.storedAt) < lifetime else { return nil }
        return entry.value
    }

    /// Taken before reading; hand it back to `remember`.
    package var generation: UInt64 { entries.generation }

    package func remember(_ value: Value, for person: UUID, readAt generation: UInt64) {
        remember(value, for: person, readAt: generation, now: clock())
    }

    package func remember(_ value: Value, for person: UUID, readAt generation: UInt64, now: Date) {
        // A full memory drops the values past their lifetime first, and starts over if none are.
        entries.keep(Entry(value: value, storedAt: now), for: person, readAt: generation, stale: { [lifetime] in now.timeIntervalSince($0.storedAt) >= lifetime })
    }

    /// The remembered value, or the one `read` gives (remembered unless a change came meanwhile).
    package func value(for person: UUID, read: () async throws -> Value) async rethrows -> Value {
        if let remembered = value(for: person) { return remembered }
        let generation = generation
        let value = try await read()
        remember(value, for: person, readAt: generation)
        return value
    }

    /// The values of several people: those remembered, and the rest from one `read` of the missing
    /// (each remembered unless a change came meanwhile; one `read` leaves out is not).
    package func values(for people: [UUID], read: ([UUID]) async throws -> [UUID: Value]) async rethrows -> [UUID: Value] {
        let now = clock()
        let kept = entries.values(for: people) { [lifetime] in now.timeIntervalSince($0.storedAt) < lifetime }
        var found = kept.found.mapValues(\.value)
        let missing = Array(Set(kept.missing))
        guard !missing.isEmpty else { return found }
        let read = try await read(missing)
        found.merge(read) { _, new in new }
        entries.keep(read.mapValues { Entry(value: $0, storedAt: now) }, readAt: kept.generation,
                     stale: { [lifetime] in now.timeIntervalSince($0.storedAt) >= lifetime })
        return found
    }

    /// Drops the person's value here and tells the other instances.
    package func forget(_ person: UUID, announcingOn events: any EventBus) async {
        apply(forgetting: person)
        await events.publish(person.uuidString, to: topic)
    }

    /// Drops the person's value in this process only (what the event follower calls).
    package func apply(forgetting person: UUID) {
        entries.forget(person)
    }

    /// Drops every value here and on the other instances: for a rare change that touches people
    /// one cannot list afterwards (an account's deletion, whose rows went by cascade).
    package func forgetEveryone(announcingOn events: any EventBus) async {
        applyForgettingEveryone()
        await events.publish(Self.everyone, to: topic)
    }

    package func applyForgettingEveryone() {
        entries.forget(nil)
    }

    /// The announcement that means everyone (not a person's id).
    private static var everyone: String { "*" }

    /// Follows the other instances' announcements.
    package func follow(_ app: Application) {
        app.follow(topic) { [self] _, message in
            if message == Self.everyone { applyForgettingEveryone() }
            else if let person = UUID(uuidString: message) { apply(forgetting: person) }
        }
    }

    package var count: Int { entries.count }
}
