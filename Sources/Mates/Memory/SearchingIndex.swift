import Accounts
package import Fluent
import NIOConcurrencyHelpers
import Notifications
package import Platform
import SQLKit
import Vapor

/// Everyone searching for a mate, in memory, on a grid (strips of latitude, by longitude within
/// each): `/nearby` is a few binary searches and walks across its box, not a query, so 100,000
/// people searching in a city cost a few thousand array reads.
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
        let topicKeys: [String]
        /// The same as numbers of the index's topic table (`Snapshot.topicIDs`), set on insert.
        var topicIDs: [Int32] = []
        package let reputation: [Int]
        package let avatar: Int
        package let background: Int
        package let lat: Double
        package let lon: Double
        let queuedAt: Date
        /// The person's JSON in `/nearby` after the distance (`NearbyJSON.afterDistance`), written
        /// once here instead of on every answer that lists them.
        let jsonAfterDistance: [UInt8]

        package init(id: UUID, nickname: String, gender: String, birthYear: Int, ageMin: Int, ageMax: Int, searchable: Bool, topics: [String],
             reputation: [Int], avatar: Int, background: Int, lat: Double, lon: Double, queuedAt: Date) {
            (self.id, self.nickname, self.gender, self.birthYear, self.ageMin, self.ageMax) = (id, nickname, gender, birthYear, ageMin, ageMax)
            (self.searchable, self.topics, self.reputation, self.avatar, self.background) = (searchable, topics, reputation, avatar, background)
            (self.lat, self.lon, self.queuedAt) = (lat, lon, queuedAt)
            topicKeys = topics.map { $0.lowercased() }
            jsonAfterDistance = NearbyJSON.afterDistance(gender: gender, id: id, nickname: nickname, reputation: reputation, topics: topics)
        }

        package var coordinate: Coordinate { Coordinate(unchecked: lat, lon) }
        var ageRange: ClosedRange<Int> { ageMin...max(ageMin, ageMax) }
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

        package init(id: UUID, age: Int, range: ClosedRange<Int>, year: Int) {
            (self.id, self.age, self.range, self.year) = (id, age, range, year)
        }

        package func sees(_ filter: Filter) -> Bool {
            guard filter.searchable else { return false }
            return range.contains(year - Int(filter.birthYear)) && Int(filter.ageMin) <= age && age <= Int(filter.ageMax)
        }
    }

    /// What the nearby scan reads of a person, without a reference in it: reading a whole `Entry`
    /// per candidate retained and released its strings and arrays, 1,500 times a request.
    struct ScanRow: Sendable {
        let lat: Double
        let lon: Double
        /// The point on the unit sphere: a dot product tells a distance without trigonometry.
        let x: Double, y: Double, z: Double
        let filter: Filter
        let id: UUID
        let topicCount: Int8
        /// `Entry.topicIDs`, at most `MatesRules.maxTopics` (8) of them.
        let topics: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32)

        init(_ entry: Entry) {
            lat = entry.lat
            lon = entry.lon
            (x, y, z) = SearchingIndex.unitVector(lat: entry.lat, lon: entry.lon)
            filter = Filter(entry)
            id = entry.id
            let ids = Array(entry.topicIDs.prefix(8)) + Array(repeating: Int32(0), count: max(0, 8 - entry.topicIDs.count))
            topicCount = Int8(min(8, entry.topicIDs.count))
            topics = (ids[0], ids[1], ids[2], ids[3], ids[4], ids[5], ids[6], ids[7])
        }

        func forEachTopic(_ body: (Int32) -> Void) {
            withUnsafeBytes(of: topics) { raw in
                let ids = raw.bindMemory(to: Int32.self)
                for index in 0..<Int(topicCount) { body(ids[index]) }
            }
        }
    }

    /// Entries in strips of latitude, by longitude within a strip (`gridKey`), with what the nearby
    /// scan reads in plain arrays beside them. A radius is a few strips, each a binary search and a
    /// walk across the box: the people in the box and few more, where a band of latitude held
    /// everyone from one side of the city to the other.
    private struct Snapshot: Sendable {
        var entries: [Entry] = []
        var keys: [Double] = []
        var rows: [ScanRow] = []
        var positions: [UUID: Double] = [:]
        /// Every topic key seen, numbered, with the first spelling: counting numbers is cheaper
        /// than hashing strings on every nearby request. Grows until the next full reload.
        var topicIDs: [String: Int32] = [:]
        var topicNames: [(key: String, spelling: String)] = []

        init(_ loaded: [Entry] = []) {
            var entries = loaded
            for index in entries.indices { entries[index].topicIDs = Self.number(entries[index], in: &topicIDs, &topicNames) }
            self.entries = entries
            keys = entries.map { SearchingIndex.gridKey(lat: $0.lat, lon: $0.lon) }
            rows = entries.map(ScanRow.init)
            positions = Dictionary(zip(entries.map(\.id), keys)) { first, _ in first }
        }

        func position(of id: UUID) -> Int? {
            guard let key = positions[id] else { return nil }
            var index = SearchingIndex.firstIndex(in: keys, notBelow: key)
            while index < entries.count, keys[index] == key {
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
            let key = SearchingIndex.gridKey(lat: entry.lat, lon: entry.lon)
            let position = SearchingIndex.firstIndex(in: keys, notBelow: key)
            entries.insert(entry, at: position)
            keys.insert(key, at: position)
            rows.insert(ScanRow(entry), at: position)
            positions[entry.id] = key
        }

        mutating func remove(at position: Int) {
            positions[entries[position].id] = nil
            entries.remove(at: position)
            keys.remove(at: position)
            rows.remove(at: position)
        }
    }

    /// A full reload is a safety net (changes are announced one by one); at 100,000 people it costs
    /// about a second of CPU, so it runs rarely.
    package static let reloadInterval: Duration = .seconds(600)

    package init() {}

    private let snapshot = NIOLockedValueBox(Snapshot())
    private let loaded = NIOLockedValueBox(false)
    private let loading = SingleFlight()

    package var isLoaded: Bool { loaded.withLockedValue { $0 } }

    /// Loads the index unless it is loaded; concurrent callers share one load.
    package func ensureLoaded(from store: MatesStore) async throws {
        guard !isLoaded else { return }
        try await loading.run { try await self.reload(from: store) }
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
        // Within the radius when the chord to the point is within the radius' chord: the squared
        // chord orders people as their distance does, so haversine runs only for those shown.
        let (px, py, pz) = Self.unitVector(lat: point.lat, lon: point.lon)
        let reach = 2 * sin(min(.pi, radius / Self.earthRadiusMeters) / 2)
        let reachSquared = reach * reach
        var found: [(position: Int, meters: Double)] = []  // `meters`: the squared chord, until the nearest are chosen
        current.keys.withUnsafeBufferPointer { keys in
            current.rows.withUnsafeBufferPointer { rows in
                for strip in Self.strip(box.minLat)...Self.strip(box.maxLat) {
                    let last = Self.gridKey(strip: strip, lon: box.maxLon)
                    var index = Self.firstIndex(in: keys, notBelow: Self.gridKey(strip: strip, lon: box.minLon))
                    while index < keys.count, keys[index] <= last {
                        defer { index += 1 }
                        let row = rows[index]
                        guard row.lat >= box.minLat, row.lat <= box.maxLat, viewer.sees(row.filter), row.id != viewer.id else { continue }
                        let (dx, dy, dz) = (row.x - px, row.y - py, row.z - pz)
                        let chordSquared = dx * dx + dy * dy + dz * dz
                        if chordSquared <= reachSquared { found.append((index, chordSquared)) }
                    }
                }
            }
        }
        var counts = [Int](repeating: 0, count: current.topicNames.count)
        current.rows.withUnsafeBufferPointer { rows in
            for (position, _) in found { rows[position].forEachTopic { counts[Int($0)] += 1 } }
        }
        let counted = counts.indices.lazy.filter { counts[$0] > 0 }
            .map { (key: current.topicNames[$0].key, spelling: current.topicNames[$0].spelling, count: counts[$0]) }
        let mostWanted = TopicRanking.top(Array(counted), limit: topicLimit)
        let people = Self.nearest(found, limit: limit).map { chosen in
            let entry = current.entries[chosen.position]
            return (entry, point.distanceMeters(to: entry.coordinate))
        }
        return (people, mostWanted)
    }

    /// `Coordinate.distanceMeters`' earth.
    static let earthRadiusMeters = 6_371_008.8

    static func unitVector(lat: Double, lon: Double) -> (Double, Double, Double) {
        let (phi, lambda) = (lat * .pi / 180, lon * .pi / 180)
        return (cos(phi) * cos(lambda), cos(phi) * sin(lambda), sin(phi))
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

    package static func firstIndex(in keys: UnsafeBufferPointer<Double>, notBelow value: Double) -> Int {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    package static func firstIndex(in keys: [Double], notBelow value: Double) -> Int {
        keys.withUnsafeBufferPointer { firstIndex(in: $0, notBelow: value) }
    }

    /// Strips of 0.005° of latitude (about 560 m): a radius of 1.5 km spans six or seven.
    static let stripDegrees = 0.005

    static func strip(_ lat: Double) -> Int { Int((lat / stripDegrees).rounded(.down)) }

    /// The order of the index: by strip, then by longitude within it (longitude + 180 is below 512).
    static func gridKey(strip: Int, lon: Double) -> Double { Double(strip) * 512 + (lon + 180) }

    static func gridKey(lat: Double, lon: Double) -> Double { gridKey(strip: strip(lat), lon: lon) }

    // MARK: Keeping it current

    package func reload(from store: MatesStore) async throws {
        replace(with: try await store.searchingEntries())
    }

    /// Everyone searching, as read from the database (or made by a test).
    package func replace(with entries: [Entry]) {
        let fresh = Snapshot(entries.sorted { Self.gridKey(lat: $0.lat, lon: $0.lon) < Self.gridKey(lat: $1.lat, lon: $1.lon) })
        snapshot.withLockedValue { $0 = fresh }
        loaded.withLockedValue { $0 = true }
    }

    /// Puts one person as re-read after a change (`entries` holds them while they search, else
    /// nothing: they leave the index).
    package func refresh(_ id: UUID, entries: [Entry]) {
        snapshot.withLockedValue { current in
            if let position = current.position(of: id) { current.remove(at: position) }
            if let fresh = entries.first(where: { $0.id == id }) { current.insert(fresh) }
        }
    }

    /// Loads the index once the database is ready, reloads it every ten minutes, and applies the
    /// store's announcements (`topic`: this instance's and the others').
    static func follow(_ app: Application, topic: String) {
        app.lifecycle.use(PeriodicJob("reloaded the searching index", every: reloadInterval) { app in
            try await app.searchingIndex.reload(from: MatesStore(database: app.db, application: app))
            return 0
        })
        app.follow(topic) { app, message in
            guard let id = UUID(uuidString: message), app.searchingIndex.isLoaded else { return }
            await IndexRefresh.run("searching index", logger: app.logger) {
                app.searchingIndex.refresh(id, entries: try await MatesStore(database: app.db, application: app).searchingEntries(only: id))
            }
        }
    }
}
