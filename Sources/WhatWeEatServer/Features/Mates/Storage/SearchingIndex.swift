import Fluent
import NIOConcurrencyHelpers
import SQLKit
import Vapor

/// Everyone searching for a mate, in memory, sorted by latitude: `/nearby` is a binary search and
/// a scan of a band, not a query, so 100,000 people searching in a city cost an array walk.
///
/// The database stays the truth. The service refreshes a person here after each change of their
/// queue state or profile and tells the other instances over the event bus; a full reload every
/// minute catches anything else (an expired search, an operator's SQL).
final class SearchingIndex: Sendable {
    struct Entry: Sendable {
        let id: UUID
        let nickname: String
        let gender: String
        let birthYear: Int
        let ageMin: Int
        let ageMax: Int
        let searchable: Bool
        let topics: [String]
        let reputation: [Int]
        let avatar: Int
        let background: Int
        let lat: Double
        let lon: Double
        let queuedAt: Date

        var coordinate: Coordinate { Coordinate(unchecked: lat, lon) }
        var ageRange: ClosedRange<Int> { ageMin...max(ageMin, ageMax) }
    }

    private struct Snapshot: Sendable {
        var entries: [Entry] = []
        var lats: [Double] = []
        var positions: [UUID: Double] = [:]
    }

    static let topic = "mates.searching"
    static let reloadInterval: Duration = .seconds(60)

    private let snapshot = NIOLockedValueBox(Snapshot())
    private let loaded = NIOLockedValueBox(false)

    var isLoaded: Bool { loaded.withLockedValue { $0 } }
    var count: Int { snapshot.withLockedValue { $0.entries.count } }

    func entry(_ id: UUID) -> Entry? {
        snapshot.withLockedValue { current in
            guard let lat = current.positions[id] else { return nil }
            var index = Self.firstIndex(in: current.lats, notBelow: lat)
            while index < current.entries.count, current.lats[index] == lat {
                if current.entries[index].id == id { return current.entries[index] }
                index += 1
            }
            return nil
        }
    }

    /// The people within `radius` meters of `point`, nearest first, with their distances.
    func around(_ point: Coordinate, radiusMeters radius: Double, where include: (Entry) -> Bool) -> [(entry: Entry, meters: Double)] {
        let box = point.box(radiusMeters: radius)
        let current = snapshot.withLockedValue { $0 }
        var found: [(entry: Entry, meters: Double)] = []
        var index = Self.firstIndex(in: current.lats, notBelow: box.minLat)
        while index < current.entries.count, current.lats[index] <= box.maxLat {
            let entry = current.entries[index]
            index += 1
            guard entry.lon >= box.minLon, entry.lon <= box.maxLon else { continue }
            let meters = point.distanceMeters(to: entry.coordinate)
            guard meters <= radius, include(entry) else { continue }
            found.append((entry, meters))
        }
        return found.sorted { $0.meters < $1.meters }
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

    func reload(from database: any Database) async throws {
        let entries = try await Self.read(from: database, only: nil).sorted { $0.lat < $1.lat }
        snapshot.withLockedValue {
            $0 = Snapshot(entries: entries, lats: entries.map(\.lat), positions: Dictionary(entries.map { ($0.id, $0.lat) }) { first, _ in first })
        }
        loaded.withLockedValue { $0 = true }
    }

    /// Re-reads one person after a change (or removes them when they no longer search).
    func refresh(_ id: UUID, from database: any Database) async throws {
        let fresh = try await Self.read(from: database, only: id).first
        snapshot.withLockedValue { current in
            if let lat = current.positions[id] {
                var index = Self.firstIndex(in: current.lats, notBelow: lat)
                while index < current.entries.count, current.lats[index] == lat {
                    if current.entries[index].id == id {
                        current.entries.remove(at: index)
                        current.lats.remove(at: index)
                        break
                    }
                    index += 1
                }
                current.positions[id] = nil
            }
            guard let fresh else { return }
            let position = Self.firstIndex(in: current.lats, notBelow: fresh.lat)
            current.entries.insert(fresh, at: position)
            current.lats.insert(fresh.lat, at: position)
            current.positions[id] = fresh.lat
        }
    }

    private static func read(from database: any Database, only id: UUID?) async throws -> [Entry] {
        let profiles = MatesProfile.schema, users = User.schema
        let query = database.sql.select()
            .column(SQLColumn("id", table: profiles)).column(SQLColumn("nickname", table: users))
            .columns("gender", "birth_year", "age_min", "age_max", "searchable", "queue_topics", "rep_0", "rep_1", "rep_2", "rep_3",
                     "rep_4", "rep_5", "avatar", "background", "lat", "lon", "queued_at")
            .from(profiles)
            .join(users, on: SQLColumn("id", table: users), .equal, SQLColumn("id", table: profiles))
            .where(SQLColumn("state", table: profiles), .equal, SQLBind(MatesState.searching.rawValue))
            .where(SQLColumn("suspended_at", table: profiles), .is, SQLLiteral.null)
        if let id { query.where(SQLColumn("id", table: profiles), .equal, SQLBind(id)) }
        return try await query.all().compactMap { row in
            guard let birthYear = try row.decode(column: "birth_year", as: Int?.self),
                  let lat = try row.decode(column: "lat", as: Double?.self), let lon = try row.decode(column: "lon", as: Double?.self)
            else { return nil }
            return Entry(
                id: try row.decode(column: "id", as: UUID.self), nickname: try row.decode(column: "nickname", as: String.self),
                gender: try row.decode(column: "gender", as: String.self), birthYear: birthYear,
                ageMin: try row.decode(column: "age_min", as: Int.self), ageMax: try row.decode(column: "age_max", as: Int.self),
                searchable: try row.decode(column: "searchable", as: Bool.self),
                topics: MatesProfile.decodeList(try row.decode(column: "queue_topics", as: String?.self) ?? "[]"),
                reputation: try (0..<6).map { try row.decode(column: "rep_\($0)", as: Int.self) },
                avatar: try row.decode(column: "avatar", as: Int.self), background: try row.decode(column: "background", as: Int.self),
                lat: lat, lon: lon, queuedAt: try row.decode(column: "queued_at", as: Date?.self) ?? Date())
        }
    }

    /// Loads the index once the database is ready, reloads it every minute, and applies other
    /// instances' changes as they announce them.
    static func follow(_ app: Application) {
        app.lifecycle.use(PeriodicJob("reloaded the searching index", every: reloadInterval) { app in
            try await app.searchingIndex.reload(from: app.db)
            return 0
        })
        app.lifecycle.use(SearchingIndexFollower())
    }
}

private struct SearchingIndexFollower: LifecycleHandler {
    let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    func didBootAsync(_ app: Application) async throws {
        let changes = app.events.subscribe(to: SearchingIndex.topic)
        task.withLockedValue {
            $0 = Task {
                for await message in changes {
                    guard let id = UUID(uuidString: message), app.searchingIndex.isLoaded else { continue }
                    try? await app.searchingIndex.refresh(id, from: app.db)
                }
            }
        }
    }

    func shutdownAsync(_ app: Application) async {
        task.withLockedValue { $0 }?.cancel()
    }
}

extension Application {
    private struct SearchingIndexKey: StorageKey { typealias Value = SearchingIndex }

    var searchingIndex: SearchingIndex {
        if let existing = storage[SearchingIndexKey.self] { return existing }
        let index = SearchingIndex()
        storage[SearchingIndexKey.self] = index
        return index
    }
}
