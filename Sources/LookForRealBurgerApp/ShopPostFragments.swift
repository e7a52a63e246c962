import Accounts
import BurgerMap
import NIOConcurrencyHelpers
import NIOCore
import Platform
import Vapor

/// The app's shop posts, each kept encoded at its place's version (`PlaceVersions`). The app's map
/// asks for every shop at once (24 MB at 10,000 places, each shop with who marked it and its
/// reviews); made whole, that took 1.25 s for the first reader after any write. Kept per shop, a
/// review or a mark re-makes the one shop it touched and the answer is the shops' bytes laid end
/// to end (issue 30).
///
/// A shop is made again when its place's version moves (a review, a mark, a new cover; on any
/// instance), when someone it names changes their account (a creator's or reviewer's nickname,
/// `followAccountChanges`), and after a lifetime of 5 to 10 minutes, spread so shops made
/// together are not all made again together (what changed behind the service's back: an
/// operator's SQL).
final class ShopPostFragments: Sendable {
    private struct Fragment: Sendable {
        let bytes: [UInt8]
        let version: PlaceVersions.Version
        /// The creator and the reviewers it names, as the post writes them (`ObjectID`).
        let people: Set<String>
        let expires: NIODeadline
    }

    private struct State: Sendable {
        var fragments: [UUID: Fragment] = [:]
        var bytes = 0
        var made = 0
    }

    private let state = NIOLockedValueBox(State())
    private let versions: PlaceVersions
    let lifetime: TimeAmount
    /// What all kept shops may hold together; past it, shops are made for each answer instead.
    let maxBytes: Int

    init(versions: PlaceVersions, lifetime: TimeAmount = .minutes(5), maxBytes: Int = 128 << 20) {
        self.versions = versions
        self.lifetime = lifetime
        self.maxBytes = maxBytes
    }

    /// Writes `rows`' posts in order as the elements of a JSON list (`[...]`): kept ones as they
    /// are, the others made by `make` in one call and kept at the version read before it ran (a
    /// write meanwhile leaves them out of date, never hides itself).
    func writeList(of rows: [ListedPlace], into json: inout JSONBytes,
                           make: ([ListedPlace]) async throws -> [LSLPPost]) async throws {
        let now = NIODeadline.now()
        let current = versions.versions(of: rows.map(\.id))
        var pieces: [[UInt8]?] = state.withLockedValue { state in
            rows.indices.map { index in
                guard let kept = state.fragments[rows[index].id], kept.version == current[index], kept.expires > now else { return nil }
                return kept.bytes
            }
        }
        let missing = rows.indices.filter { pieces[$0] == nil }
        if !missing.isEmpty {
            let made = try await make(missing.map { rows[$0] })
            var fresh: [(UUID, Fragment)] = []
            for (index, post) in zip(missing, made) {
                var one = JSONBytes(capacity: 2_048)
                LSLPPostPage.write(post: post, into: &one)
                pieces[index] = one.bytes
                let people = Set([post.creator.user_id] + post.comments.map(\.creator.user_id))
                let spread = Int64.random(in: 0...lifetime.nanoseconds)
                fresh.append((rows[index].id, Fragment(bytes: one.bytes, version: current[index], people: people,
                                                       expires: now + lifetime + .nanoseconds(spread))))
            }
            state.withLockedValue { state in
                state.made += fresh.count
                for (id, fragment) in fresh {
                    let replaced = state.fragments[id]?.bytes.count ?? 0
                    guard state.bytes - replaced + fragment.bytes.count <= maxBytes else { continue }
                    state.fragments[id] = fragment
                    state.bytes += fragment.bytes.count - replaced
                }
            }
        }
        json.raw("[")
        for (index, piece) in pieces.enumerated() {
            if index > 0 { json.raw(",") }
            json.raw(bytes: piece ?? [])
        }
        json.raw("]")
    }

    /// Drops the shops that name `person` (their nickname or picture may have changed); true when
    /// there were any.
    func forget(person: UUID) -> Bool {
        let written = ObjectID.of(person)
        return state.withLockedValue { state in
            let naming = state.fragments.filter { $0.value.people.contains(written) }
            for (id, fragment) in naming {
                state.fragments[id] = nil
                state.bytes -= fragment.bytes.count
            }
            return !naming.isEmpty
        }
    }

    /// Shops kept now.
    var count: Int { state.withLockedValue { $0.fragments.count } }
    /// Shops made since start (kept or not): what a write cost the next reader.
    var made: Int { state.withLockedValue { $0.made } }
}

extension Application {
    private struct ShopPostFragmentsKey: StorageKey { typealias Value = ShopPostFragments }

    /// Made in `LookForRealBurgerAppLayer.configure`.
    var shopPostFragments: ShopPostFragments {
        get { configured(ShopPostFragmentsKey.self) }
        set { storage[ShopPostFragmentsKey.self] = newValue }
    }
}
