import Accounts
import Fluent
import NIOConcurrencyHelpers
import Notifications
import Platform
import SQLKit
import Vapor

/// Everyone searching for a mate, in memory, sorted by latitude: `/nearby` is a binary search and
/// a scan of a band, not a query, so 100,000 people searching in a city cost an array walk.
///
/// Positions here are public ones (`SearchPositionBlur`): a searcher's square on the map, never
/// their point, so nothing answered from the index can be more precise than that.
///
/// The database stays the truth. The service refreshes a person here after each change of their
/// queue state or profile and tells the other instances over the event bus; a full reload every
/// ten minutes catches anything else (an operator's SQL).
package final class SearchingIndex: Sendable {
    package struct Entry: Sendable {
        package let id: UUID
        package let nickname: String
        package let gender: String
        package let birthYear: Int
        package let ageMin: Int
        package let ageMax: Int
        package let searchable: Bool
        package let topics: [String]
        /// `topics` lower-cased (unique per person: the profile rules fold case), for counting.
        package let topicKeys: [String]
        /// The same as numbers of the index's topic table (`Snapshot.topicIDs`), set on insert.
        package var topicIDs: [Int32] = []
        package let reputation: [Int]
        package let avatar: Int
        package let background: Int
        package let lat: Double
        package let lon: Double
        package let queuedAt: Date

        package init(id: UUID, nickname: String, gender: String, birthYear: Int, ageMin: Int, ageMax: Int, searchable: Bool, topics: [String],
             reputation: [Int], avatar: Int, background: Int, lat: Double, lon: Double, queuedAt: Date) {
            (self.id, self.nickname, self.gender, self.birthYear, self.ageMin, self.ageMax) = (id, nickname, gender, birthYear, ageMin, ageMax)
            (self.searchable, self.topics, self.reputation, self.avatar, self.background) = (searchable, topics, reputation, avatar, background)
            (self.lat, self.lon, self.queuedAt) = (lat, lon, queuedAt)
            topicKeys = topics.map { $0.lowercased() }
        }

        package var coordinate: Coordinate { Coordinate(unchecked: lat, lon) }
        package var ageRange: ClosedRange<Int> { ageMin...max(ageMin, ageMax) }
    }

    /// What the age filter reads of a person, packed.
    package struct Filter: Sendable {
        package let birthYear: Int32
        package let ageMin: Int16
        package let ageMax: Int16
        package let searchable: Bool

        package init(_ entry: Entry) {
            birthYear = Int32(clamping: entry.birthYear)
            ageMin = Int16(clamping: entry.ageMin)
            ageMax = Int16(clamping: max(entry.ageMin, entry.ageMax))
            searchable = entry.searchable
        }
    }

    /// Who looks: they see people who are searchable, whose age is in their range and whose
    /// range holds their age.
    package struct Viewer: Sendable {
        package let id: UUID
        package let age: Int
        package let range: ClosedRange<Int>
        /// The calendar year now, so ages are subtractions.
        package let year: Int

        package func sees(_ filter: Filter) -> Bool {
            guard filter.searchable else { return false }
            return range.contains(year - Int(filter.birthYear)) && Int(filter.ageMin) <= age && age <= Int(filter.ageMax)
        }
    }

    /// Entries sorted by latitude, with the columns the nearby scan reads in plain arrays beside
    /// them (reading a whole `Entry` per candidate retains its strings and arrays).
    private struct Snapshot: Sendable {
        var entries: [Entry] = []
        var lats: [Double] = []
        var lons: [Double] = []
        var filters: [Filter] = []
        var positions: [UUID: Double] = [:]
        /// Every topic key seen, numbered, with the first spelling: counting numbers is cheaper
        /// than hashing strings on every nearby request. Grows until the next full reload.
        var topicIDs: [String: Int32] = [:]
        var topicNames: [(key: String, spelling: String)] = []

        init(_ loaded: [Entry] = []) {
            var entries = loaded
            for index in entries.indices { entries[index].topicIDs = Self.number(entries[index], in: &topicIDs, &topicNames) }
            self.entries = entries
            lats = entries.map(\.lat)
            lons = entries.map(\.lon)
            filters = entries.map(Filter.init)
            positions = Dictionary(entries.map { ($0.id, $0.lat) }) { first, _ in first }
        }

        func position(of id: UUID) -> Int? {
            guard let lat = positions[id] else { return nil }
            var index = SearchingIndex.firstIndex(in: lats, notBelow: lat)
            while index < entries.count, lats[index] == lat {
                if entries[index].id == id { return index }
                index += 1
            }
            return nil
        }

        static func number(_ entry: Entry, in ids: inout [String: Int32], _ names: inout [(key: String, spelling: String)]) -> [Int32] {
            zip(entry.topicKeys, entry.topics).map { key, spelling in
                if let id = ids[key] { return id }
                let id = Int32(names.count)
                ids[key] = id
                names.append((key, spelling))
                return id
            }
        }

        mutating func insert(_ added: Entry) {
            var entry = added
            entry.topicIDs = Self.number(entry, in: &topicIDs, &topicNames)
            let position = SearchingIndex.firstIndex(in: lats, notBelow: entry.lat)
            entries.insert(entry, at: position)
            lats.insert(entry.lat, at: position)
            lons.insert(entry.lon, at: position)
            filters.insert(Filter(entry), at: position)
            positions[entry.id] = entry.lat
        }

        mutating func remove(at position: Int) {
            positions[entries[position].id] = nil
            entries.remove(at: position)
            lats.remove(at: position)
            lons.remove(at: position)
            filters.remove(at: position)
        }
    }

    package static let topic = "mates.searching"
    /// A full reload is a safety net (changes are announced one by one); at 100,000 people it costs
    /// about a second of CPU, so it runs rarely.
    package static let reloadInterval: Duration = .seconds(600)

    private let snapshot = NIOLockedValueBox(Snapshot())
    private let loaded = NIOLockedValueBox(false)
    private let loading = SingleFlight()

    package var isLoaded: Bool { loaded.withLockedValue { $0 } }

    /// Loads the index unless it is loaded; concurrent callers share one load.
    package func ensureLoaded(from database: any Database) async throws {
        guard !isLoaded else { return }
        try await loading.run { try await self.reload(from: database) }
    }

    package var count: Int { snapshot.withLockedValue { $0.entries.count } }

    package func entry(_ id: UUID) -> Entry? {
        snapshot.withLockedValue { current in current.position(of: id).map { current.entries[$0] } }
    }

    /// The `limit` nearest people within `radius` meters of `point` that the viewer sees, with
    /// their distances, and the topics most of all those in range want (each person counted once).
    package func nearby(_ point: Coordinate, radiusMeters radius: Double, viewer: Viewer, limit: Int, topics topicLimit: Int)
        -> (people: [(entry: Entry, meters: Double)], mostWanted: [String])
    {
        let box = point.box(radiusMeters: radius)
        let current = snapshot.withLockedValue { $0 }
        var found: [(position: Int, meters: Double)] = []
        current.lats.withUnsafeBufferPointer { lats in
            current.lons.withUnsafeBufferPointer { lons in
                current.filters.withUnsafeBufferPointer { filters in
                    var index = Self.firstIndex(in: current.lats, notBelow: box.minLat)
                    while index < lats.count, lats[index] <= box.maxLat {
                        defer { index += 1 }
                        let lon = lons[index]
                        guard lon >= box.minLon, lon <= box.maxLon, viewer.sees(filters[index]) else { continue }
                        let meters = point.distanceMeters(to: Coordinate(unchecked: lats[index], lon))
                        if meters <= radius { found.append((index, meters)) }
                    }
                }
            }
        }
        found.removeAll { current.entries[$0.position].id == viewer.id }
        var counts = [Int](repeating: 0, count: current.topicNames.count)
        for (position, _) in found {
            for id in current.entries[position].topicIDs { counts[Int(id)] += 1 }
        }
        let counted = counts.indices.lazy.filter { counts[$0] > 0 }
            .map { (key: current.topicNames[$0].key, spelling: current.topicNames[$0].spelling, count: counts[$0]) }
        let mostWanted = TopicRanking.top(Array(counted), limit: topicLimit)
        return (Self.nearest(found, limit: limit).map { (current.entries[$0.position], $0.meters) }, mostWanted)
    }

    /// The `limit` nearest of `found`, nearest first (ties by position): a bounded max-heap, since
    /// sorting the ~1,500 people in range to keep 50 was a tenth of a `/nearby`.
    package static func nearest(_ found: [(position: Int, meters: Double)], limit: Int) -> [(position: Int, meters: Double)] {
        func before(_ a: (position: Int, meters: Double), _ b: (position: Int, meters: Double)) -> Bool {
            a.meters < b.meters || (a.meters == b.meters && a.position < b.position)
        }
        guard found.count > limit else { return found.sorted(by: before) }
        guard limit > 0 else { return [] }
        // heap[0] is the farthest of the nearest `limit` seen so far.
        var heap = Array(found.prefix(limit))
        func siftDown(_ start: Int) {
            var parent = start
            while true {
                let left = 2 * parent + 1, right = left + 1
                var largest = parent
                if left < heap.count, before(heap[largest], heap[left]) { largest = left }
                if right < heap.count, before(heap[largest], heap[right]) { largest = right }
                if largest == parent { return }
                heap.swapAt(parent, largest)
                parent = largest
            }
        }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        for candidate in found.dropFirst(limit) where before(candidate, heap[0]) {
            heap[0] = candidate
            siftDown(0)
        }
        return heap.sorted(by: before)
    }

    package static func firstIndex(in lats: [Double], notBelow value: Double) -> Int {
        var low = 0, high = lats.count
        while low < high {
            let middle = (low + high) / 2
            if lats[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    // MARK: Keeping it current

    package func reload(from database: any Database) async throws {
        let fresh = Snapshot(try await Self.read(from: database, only: nil).sorted { $0.lat < $1.lat })
        snapshot.withLockedValue { $0 = fresh }
        loaded.withLockedValue { $0 = true }
    }

    /// Re-reads one person after a change (or removes them when they no longer search).
    package func refresh(_ id: UUID, from database: any Database) async throws {
        let fresh = try await Self.read(from: database, only: id).first
        snapshot.withLockedValue { current in
            if let position = current.position(of: id) { current.remove(at: position) }
            if let fresh { current.insert(fresh) }
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
            let id = try row.decode(column: "id", as: UUID.self)
            let queuedAt = try row.decode(column: "queued_at", as: Date?.self) ?? Date(timeIntervalSince1970: 0)
            let shown = SearchPositionBlur.publicPosition(of: Coordinate(unchecked: lat, lon), person: id, since: queuedAt)
            return Entry(
                id: id, nickname: try row.decode(column: "nickname", as: String.self),
                gender: try row.decode(column: "gender", as: String.self), birthYear: birthYear,
                ageMin: try row.decode(column: "age_min", as: Int.self), ageMax: try row.decode(column: "age_max", as: Int.self),
                searchable: try row.decode(column: "searchable", as: Bool.self),
                topics: MatesProfile.decodeList(try row.decode(column: "queue_topics", as: String?.self) ?? "[]"),
                reputation: try (0..<6).map { try row.decode(column: "rep_\($0)", as: Int.self) },
                avatar: try row.decode(column: "avatar", as: Int.self), background: try row.decode(column: "background", as: Int.self),
                lat: shown.lat, lon: shown.lon, queuedAt: queuedAt)
        }
    }

    /// Loads the index once the database is ready, reloads it every ten minutes, and applies other
    /// instances' changes as they announce them.
    package static func follow(_ app: Application) {
        app.lifecycle.use(PeriodicJob("reloaded the searching index", every: reloadInterval) { app in
            try await app.searchingIndex.reload(from: app.db)
            return 0
        })
        app.follow(SearchingIndex.topic) { app, message in
            guard let id = UUID(uuidString: message), app.searchingIndex.isLoaded else { return }
            try? await app.searchingIndex.refresh(id, from: app.db)
        }
    }
}

extension Application {
    private struct SearchingIndexKey: StorageKey { typealias Value = SearchingIndex }

    package var searchingIndex: SearchingIndex {
        if let existing = storage[SearchingIndexKey.self] { return existing }
        let index = SearchingIndex()
        storage[SearchingIndexKey.self] = index
        return index
    }
}
