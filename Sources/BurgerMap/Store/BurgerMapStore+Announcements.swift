import Foundation
import Platform
import Vapor

/// What follows the map's writes: the place index (this instance's at once, the others' through
/// the event bus), the places' versions, the kept answers. Inside a store's transaction the
/// announcements wait for its commit (recorded in its `ChangeLog`).
struct MapAnnouncements: Sendable {
    private let environment: BurgerMapEnvironment
    private let pending: ChangeLog<Changes>?

    init(_ environment: BurgerMapEnvironment) {
        self.environment = environment
        self.pending = nil
    }

    private init(environment: BurgerMapEnvironment, pending: ChangeLog<Changes>) {
        self.environment = environment
        self.pending = pending
    }

    func deferring(into pending: ChangeLog<Changes>) -> MapAnnouncements { MapAnnouncements(environment: environment, pending: pending) }

    /// Places whose own fields changed (count, rating, cover): their index entries are re-read.
    func placesChanged(_ ids: [UUID], store: BurgerMapStore) async {
        if let pending { return pending.record { $0.places.append(contentsOf: ids) } }
        let app = environment
        app.placeVersions.changed(ids)
        for id in Set(ids) {
            if app.placeIndex.isLoaded {
                // The write has committed: a failed re-read is logged (the periodic reload mends it).
                do { app.placeIndex.refresh(id, entries: try await store.indexEntries(only: id)) } catch {
                    app.logger.warning("the place index could not re-read a place after a write: \(error)")
                }
            }
            await app.events.publish(id.uuidString, to: PlaceIndex.topic)
        }
        app.cache.invalidate()
    }

    /// What review lists show changed: `places` are those whose own content changed with it (their
    /// marks, their reviews), none for a write that touches no place (a like, a comment), nil when
    /// it cannot say (`PlaceVersions`).
    func contentChanged(places: [UUID]?) async {
        if let pending {
            return pending.record { changes in
                var content = changes.content ?? ([], false)
                if let places { content.places.append(contentsOf: places) } else { content.everything = true }
                changes.content = content
            }
        }
        let app = environment
        if let places { app.placeVersions.changed(places) } else { app.placeVersions.changedEverything() }
        app.cache.invalidate()
        await app.events.publish(PlaceVersions.message(places: places), to: PlaceIndex.contentTopic)
    }

    /// What the console's moderation shows changed — a report made or decided on, a review hidden,
    /// shown or deleted, a suggestion kept or set aside: its version moves (`environment.moderation`).
    func moderationChanged() async {
        if let pending { return pending.record { $0.moderation = true } }
        await environment.moderation.changed(announcingOn: environment.events)
    }

    /// Everything may have changed (an account's rows went by cascade): the index is read again.
    func everythingChanged(store: BurgerMapStore) async throws {
        let app = environment
        if app.placeIndex.isLoaded { try await app.placeIndex.reload(from: store) }
        await contentChanged(places: nil)
        await moderationChanged()
    }

    func announce(_ changes: Changes, store: BurgerMapStore) async {
        if !changes.places.isEmpty { await placesChanged(changes.places, store: store) }
        if let content = changes.content { await contentChanged(places: content.everything ? nil : content.places) }
        if changes.moderation { await moderationChanged() }
    }

    /// What a transaction changed, announced after its commit (`ChangeLog`).
    struct Changes: Sendable {
        var places: [UUID] = []
        var content: (places: [UUID], everything: Bool)?
        var moderation = false
    }
}
