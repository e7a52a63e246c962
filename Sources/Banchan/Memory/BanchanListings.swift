import Accounts
package import Fluent
import Foundation
import NIOConcurrencyHelpers
package import Platform
package import Vapor

/// The dishes on sale, in memory, for the section lists — the shop's busiest pages, which would
/// otherwise turn a page of 25-column rows into models on every request. Rebuilt from the database
/// after seeding and after every admin change; each order and cancellation announces the new stock
/// of its dishes on the event bus, so every process's lists show what is sold out.
/// A dish's page reads its dish here too (falling back to the database for a dish not listed
/// yet); the cart and orders always read the database, and an order checks stock in its own
/// transaction whatever a page showed.
package final class BanchanListings: Sendable {
    package struct Listing: Sendable, Equatable {
        package let id: UUID
        package let position: Int
        package let dish: Dish
        package var stock: Int {
            didSet { if (oldValue < dish.minQuantity) != isSoldOut { json = Self.render(dish, stock: stock, images: images) } }
        }
        package let images: BanchanImages.URLs
        /// The dish as the API lists it (`DishSummary`), encoded once: lists are the busiest
        /// responses, and encoding was a third of their cost. Re-rendered when sold-out flips.
        package private(set) var json: String

        package init(id: UUID, position: Int, dish: Dish, stock: Int, images: BanchanImages.URLs) {
            self.id = id
            self.position = position
            self.dish = dish
            self.stock = stock
            self.images = images
            self.json = Self.render(dish, stock: stock, images: images)
        }

        var isSoldOut: Bool { stock < dish.minQuantity }

        package static func render(_ dish: Dish, stock: Int, images: BanchanImages.URLs) -> String {
            let data = (try? AppJSON.encoder().encode(DishSummary(dish, stock: stock, images: images))) ?? Data("{}".utf8)
            return String(decoding: data, as: UTF8.self)
        }

        package static func == (left: Listing, right: Listing) -> Bool {
            left.id == right.id && left.position == right.position && left.dish == right.dish && left.stock == right.stock
        }
    }

    /// Events on `topic`: `{"changed": "HU6Z5"}` (an order, a cancellation or an admin changed the
    /// dish: read it again). `{"hash": "HU6Z5", "stock": 41}` is what an earlier version sent for a
    /// stock change; it is read the same way.
    package static let topic = "banchan:listings"

    struct Event: Codable {
        var hash: String?
        var stock: Int?
        var changed: String?
    }

    private struct State {
        var sections: [DishSection: [Listing]] = [:]
        /// hash → where the listing sits, to apply a stock change.
        var places: [String: (section: DishSection, offset: Int)] = [:]
        /// Moves on every change, so pages made from the listings know to make them again.
        var version = 0
        /// Reads of the database are numbered as they start (`ReadOrder`); per dish, the newest read held. Two
        /// reads of one dish can overlap (a hundred orders at once each read its stock after its
        /// commit) and finish in any order: a read that started earlier than the one held is older
        /// news, and is dropped.
        var readHeld: [String: Int] = [:]
    }

    private let state = NIOLockedValueBox(State())
    private let reads = ReadOrder()
    package let images: BanchanImages.URLs

    package init(images: BanchanImages.URLs) {
        self.images = images
    }

    package func reload(from store: BanchanStore) async throws {
        let read = takeRead()
        replace(with: try await store.dishRowsOnSale(), read: read)
    }

    /// The number of a read about to start.
    func takeRead() -> Int { reads.take() }

    /// Lists the dishes of `rows` that are on sale (rows in list order: position, then id). A dish
    /// whose held read is newer than `read` keeps its stock. Without `read`, the rows are the newest.
    package func replace(with rows: [BanchanStore.DishRow], read: Int? = nil) {
        let read = read ?? takeRead()
        state.withLockedValue { state in
            var fresh = State()
            for row in rows where row.retiredAt == nil {
                let dish = row.dish
                let newer = state.readHeld[dish.hash, default: 0] > read
                let stock = newer ? state.places[dish.hash].flatMap { state.sections[$0.section]?[$0.offset].stock } ?? row.stock : row.stock
                let listing = Listing(id: row.id, position: row.position, dish: dish, stock: stock, images: images)
                fresh.places[dish.hash] = (dish.section, fresh.sections[dish.section, default: []].count)
                fresh.sections[dish.section, default: []].append(listing)
                fresh.readHeld[dish.hash] = max(read, state.readHeld[dish.hash, default: 0])
            }
            fresh.version = state.version + 1
            state = fresh
        }
    }

    /// Reads a dish again and puts it in its place (or moves it there), or takes it out when it
    /// left the shop: after an admin's change, or an order's or cancellation's stock.
    package func refresh(_ hash: String, from store: BanchanStore) async throws {
        let read = takeRead()
        update(try await store.dishRow(hash: hash), hash: hash, read: read)
    }

    /// Puts a dish in its place (or moves it there), or takes it out when it left the shop, unless
    /// a read that started after `read` is held already. Without `read`, the row is the newest.
    package func update(_ row: BanchanStore.DishRow?, hash: String, read: Int? = nil) {
        let read = read ?? takeRead()
        let listing = row.flatMap { row -> Listing? in
            guard row.retiredAt == nil else { return nil }
            return Listing(id: row.id, position: row.position, dish: row.dish, stock: row.stock, images: images)
        }
        state.withLockedValue { state in
            guard read > state.readHeld[hash, default: 0] else { return }
            state.readHeld[hash] = read
            var touched = Set<DishSection>()
            if let place = state.places[hash] {
                state.sections[place.section]?.remove(at: place.offset)
                touched.insert(place.section)
            }
            if let listing {
                var list = state.sections[listing.dish.section] ?? []
                let index = list.firstIndex { !Self.precedesOrEqual($0.position, $0.id, listing.position, listing.id) } ?? list.count
                list.insert(listing, at: index)
                state.sections[listing.dish.section] = list
                touched.insert(listing.dish.section)
            }
            state.places[hash] = nil
            state.version += 1
            for section in touched {
                for (offset, item) in (state.sections[section] ?? []).enumerated() { state.places[item.dish.hash] = (section, offset) }
            }
        }
    }

    package var version: Int { state.withLockedValue { $0.version } }

    /// Every section's listings and the version they are at, read together.
    package func snapshot() -> (version: Int, sections: [DishSection: [Listing]]) {
        state.withLockedValue { ($0.version, $0.sections) }
    }

    /// The dish with this hash as the lists show it; nil when it is not on sale (or not loaded yet).
    package func listing(hash: String) -> Listing? {
        state.withLockedValue { state in state.places[hash].flatMap { state.sections[$0.section]?[$0.offset] } }
    }

    package func all(in section: DishSection) -> [Listing] {
        state.withLockedValue { $0.sections[section] ?? [] }
    }

    package func count(in section: DishSection) -> Int {
        state.withLockedValue { $0.sections[section]?.count ?? 0 }
    }

    /// A page in catalog order; a cursor from a newest-first list is refused (400).
    package func page(in section: DishSection, _ page: CursorPageRequest) throws -> (items: [Listing], nextCursor: String?) {
        if page.cursor != nil && page.orderedCursor == nil { throw AppError.badRequest("invalid_cursor") }
        let listings = all(in: section)
        var start = 0
        if let cursor = page.orderedCursor {
            // Listings are sorted by (position, id): the first one after the cursor.
            var low = 0, high = listings.count
            while low < high {
                let middle = (low + high) / 2
                let listing = listings[middle]
                if Self.precedesOrEqual(listing.position, listing.id, cursor.position, cursor.id) { low = middle + 1 } else { high = middle }
            }
            start = low
        }
        let items = Array(listings[start..<min(listings.count, start + page.limit)])
        guard start + page.limit < listings.count, let last = items.last else { return (items, nil) }
        return (items, OrderedPageCursor(position: last.position, id: last.id).encoded)
    }

    /// (position, id) order, ids compared byte by byte as the databases sort them, without
    /// making strings (a page look-up does this a dozen times).
    static func precedesOrEqual(_ position: Int, _ id: UUID, _ otherPosition: Int, _ otherID: UUID) -> Bool {
        if position != otherPosition { return position < otherPosition }
        let left = withUnsafeBytes(of: id.uuid) { Array($0) }, right = withUnsafeBytes(of: otherID.uuid) { Array($0) }
        return !right.lexicographicallyPrecedes(left)
    }

    /// Keeps the listings current from the event bus until the application stops.
    package static func follow(_ app: Application) {
        app.follow(topic) { app, message in
            guard let event = try? JSONDecoder().decode(Event.self, from: Data(message.utf8)) else { return }
            // A change or a stock: the dish is read again (the stock an event carries may be older
            // than one already applied; a read that started later is not).
            guard let hash = event.changed ?? event.hash else { return }
            do {
                try await app.banchanListings.refresh(hash, from: app.banchanStore)
            } catch {
                app.logger.warning("updating the shop's listing of \(hash) failed: \(error)")
            }
        }
    }

    /// Tells every process (this one too) to read the dish again.
    static func announceChange(of hash: String, on events: any EventBus) async {
        guard let data = try? JSONEncoder().encode(Event(changed: hash)) else { return }
        await events.publish(String(decoding: data, as: UTF8.self), to: topic)
    }
}

