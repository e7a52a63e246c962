import Accounts
package import Fluent
import Media
import NIOConcurrencyHelpers
import Notifications
package import Platform
import SQLKit
package import Vapor

/// Every place's position, rating and cover, in memory, sorted by latitude: map boxes and
/// "nearest" lists are answered from here without touching the database, so a city-wide box over
/// 100,000 places costs a scan of an array, not of a table.
///
/// The database stays the truth. The store (`BurgerMapStore`) refreshes a place here after each write that
/// changes it and tells the other instances over the event bus; a full reload every few minutes
/// catches anything written behind the service's back (an operator's SQL).
package final class PlaceIndex: Sendable {
    package struct Entry: Sendable {
        package let id: UUID
        package let name: String
        package let address: String
        package let lat: Double
        package let lon: Double
        package let phone: String?
        package let reviewCount: Int
        let ratingSum: Int
        let coverURL: String?
        /// Made by a young account and not yet reviewed by another (`BurgerPlace.unverified`).
        package let unverified: Bool

        package var score: Double { PlaceRanking.score(ratingSum: ratingSum, reviewCount: reviewCount) }

        package init(id: UUID, name: String, address: String, lat: Double, lon: Double, phone: String?, reviewCount: Int, ratingSum: Int,
             coverURL: String?, unverified: Bool = false) {
            self.id = id
            self.name = name
            self.address = address
            self.lat = lat
            self.lon = lon
            self.phone = phone
            self.reviewCount = reviewCount
            self.ratingSum = ratingSum
            self.coverURL = coverURL
            self.unverified = unverified
        }

        package init(_ place: PlaceRow, coverURL: String?) {
            self.init(id: place.id, name: place.name, address: place.address, lat: place.lat, lon: place.lon, phone: place.phone,
                      reviewCount: place.reviewCount, ratingSum: place.ratingSum, coverURL: coverURL, unverified: place.unverified)
        }
        package var coordinate: Coordinate { Coordinate(unchecked: lat, lon) }
    }

    /// Sorted by latitude; `lats` mirrors it for a cache-friendly binary search.
    private struct Snapshot: Sendable {
        var entries: [Entry] = []
        var lats: [Double] = []
    }

    /// A place changed (its id): refresh it, and drop cached answers.
    package static let topic = "burger-map.places"
    /// Reviews changed (counts, visibility, text): drop cached answers.
    static let contentTopic = "burger-map.changed"
    package static let reloadInterval: Duration = .seconds(300)

    private let snapshot = NIOLockedValueBox(Snapshot())
    private let loaded = NIOLockedValueBox(false)
    private let loading = SingleFlight()

    package init() {}

    package var isLoaded: Bool { loaded.withLockedValue { $0 } }

    /// Loads the index unless it is loaded; concurrent callers share one load.
    func ensureLoaded(from store: BurgerMapStore) async throws {
        guard !isLoaded else { return }
        try await loading.run { try await self.reload(from: store) }
    }

    package var count: Int { snapshot.withLockedValue { $0.entries.count } }

    // MARK: Reading

    /// The places inside the box.
    package func entries(in box: BoundingBox) -> [Entry] {
        let current = snapshot.withLockedValue { $0 }
        var found: [Entry] = []
        var index = Self.firstIndex(in: current.lats, notBelow: box.minLat)
        while index < current.entries.count, current.lats[index] <= box.maxLat {
            let entry = current.entries[index]
            if entry.lon >= box.minLon && entry.lon <= box.maxLon { found.append(entry) }
            index += 1
        }
        return found
    }

    /// How many places the box holds, stopping once past `limit`.
    package func count(in box: BoundingBox, upTo limit: Int) -> Int {
        let current = snapshot.withLockedValue { $0 }
        var count = 0
        var index = Self.firstIndex(in: current.lats, notBelow: box.minLat)
        while index < current.entries.count, current.lats[index] <= box.maxLat, count <= limit {
            let lon = current.entries[index].lon
            if lon >= box.minLon && lon <= box.maxLon { count += 1 }
            index += 1
        }
        return count
    }

    /// The clusters of the box's places on its grid, without building the list of them.
    package func clusters(in box: BoundingBox) -> [MapCluster] {
        let current = snapshot.withLockedValue { $0 }
        let grid = ClusterGrid(box: box)
        var sums = [(lat: Double, lon: Double, count: Int)](repeating: (0, 0, 0), count: grid.divisions * grid.divisions)
        var index = Self.firstIndex(in: current.lats, notBelow: box.minLat)
        while index < current.entries.count, current.lats[index] <= box.maxLat {
            let entry = current.entries[index]
            index += 1
            guard entry.lon >= box.minLon && entry.lon <= box.maxLon else { continue }
            let (column, row) = grid.cell(of: entry.coordinate)
            let key = row * grid.divisions + column
            sums[key] = (sums[key].lat + entry.lat, sums[key].lon + entry.lon, sums[key].count + 1)
        }
        return sums.filter { $0.count > 0 }.map { MapCluster(lat: $0.lat / Double($0.count), lon: $0.lon / Double($0.count), count: $0.count) }
    }

    private static func firstIndex(in lats: [Double], notBelow value: Double) -> Int {
        var low = 0, high = lats.count
        while low < high {
            let middle = (low + high) / 2
            if lats[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    // MARK: Keeping it current

    /// Reads every place (at start and every few minutes).
    package func reload(from store: BurgerMapStore) async throws {
        let entries = try await store.indexEntries(only: nil).sorted { $0.lat < $1.lat }
        snapshot.withLockedValue { $0 = Snapshot(entries: entries, lats: entries.map(\.lat)) }
        loaded.withLockedValue { $0 = true }
    }

    /// Puts a place's entry as the store just read it (`entries` holds it, or is empty when the
    /// place is gone) in place of the one kept.
    func refresh(_ id: UUID, entries: [Entry]) {
        let fresh = entries.first
        snapshot.withLockedValue { current in
            if let position = current.entries.firstIndex(where: { $0.id == id }) {
                current.entries.remove(at: position)
                current.lats.remove(at: position)
            }
            guard let fresh else { return }
            let position = Self.firstIndex(in: current.lats, notBelow: fresh.lat)
            current.entries.insert(fresh, at: position)
            current.lats.insert(fresh.lat, at: position)
        }
    }

    /// Loads the index at start, reloads it every few minutes, and applies other instances'
    /// changes as they announce them.
    package static func follow(_ app: Application) {
        app.lifecycle.use(PeriodicJob("reloaded the place index", every: reloadInterval) { app in
            try await app.placeIndex.reload(from: BurgerMapStore(database: app.db, environment: app.burgerMapEnvironment))
            return 0
        })
        // Places changed on any instance: their entry, and the answers that showed them.
        app.follow(PlaceIndex.topic) { app, message in
            guard let id = UUID(uuidString: message) else { return }
            app.placeVersions.changed([id])
            if app.placeIndex.isLoaded {
                await IndexRefresh.run("place index", logger: app.logger) {
                    app.placeIndex.refresh(id, entries: try await BurgerMapStore(database: app.db, environment: app.burgerMapEnvironment).indexEntries(only: id))
                }
            }
            app.burgerMapCache.invalidate()
        }
        app.follow(PlaceIndex.contentTopic) { app, message in
            app.placeVersions.apply(message: message)
            app.burgerMapCache.invalidate()
        }
    }
}
