import NIOConcurrencyHelpers
package import Vapor

/// How often each place's public content changed (its details, marks, which reviews it lists),
/// for what is kept per place rather than per answer: a value made at a place's version is
/// current while that version and the version of everything stand. The service moves a place's
/// version in the same write that changes it (`placeChanged`, `contentChanged(places:)`); other
/// instances' writes move it when their announcement arrives.
///
/// The LookForRealBurger app's whole map keeps each shop encoded this way (issue 30), so the first
/// reader after a review re-makes one shop, not ten thousand.
package final class PlaceVersions: Sendable {
    package struct Version: Equatable, Sendable {
        package let everything: Int
        package let place: Int
    }

    private struct State {
        var everything = 0
        var byPlace: [UUID: Int] = [:]
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    package func version(of place: UUID) -> Version {
        state.withLockedValue { Version(everything: $0.everything, place: $0.byPlace[place] ?? 0) }
    }

    /// The versions of many places read at one moment.
    package func versions(of places: [UUID]) -> [Version] {
        state.withLockedValue { state in places.map { Version(everything: state.everything, place: state.byPlace[$0] ?? 0) } }
    }

    package func changed(_ places: some Sequence<UUID>) {
        state.withLockedValue { state in
            for place in places { state.byPlace[place, default: 0] &+= 1 }
        }
    }

    /// A write whose places are not known (an account withdrawn, an announcement without them).
    func changedEverything() {
        state.withLockedValue { $0.everything &+= 1 }
    }

    /// `PlaceIndex.contentTopic`'s message: "changed" when any place may have changed, else
    /// `places:` and the ids of the places whose content changed (none for a write that changes
    /// only review lists: a like, a comment, a follow).
    package static func message(places: [UUID]?) -> String {
        guard let places else { return "changed" }
        return "places:" + places.map(\.uuidString).joined(separator: ",")
    }

    /// Applies an announcement from `message(places:)`; anything else counts as everything.
    package func apply(message: String) {
        guard message.hasPrefix("places:") else { return changedEverything() }
        var ids: [UUID] = []
        for part in message.dropFirst("places:".count).split(separator: ",") {
            guard let id = UUID(uuidString: String(part)) else { return changedEverything() }
            ids.append(id)
        }
        changed(ids)
    }
}
