import Fluent
import Foundation
import NIOConcurrencyHelpers
import Vapor

/// The dishes on sale, in memory, for the section lists — the shop's busiest pages, which would
/// otherwise turn a page of 25-column rows into models on every request. Rebuilt from the database
/// after seeding and after every admin change; each order and cancellation announces the new stock
/// of its dishes on the event bus, so every process's lists show what is sold out.
/// A dish's page, the cart and orders always read the database.
final class BanchanListings: Sendable {
    struct Listing: Sendable, Equatable {
        let id: UUID
        let position: Int
        let dish: Dish
        var stock: Int

        var isSoldOut: Bool { stock < dish.minQuantity }
    }

    /// Events on `topic`: `{"hash": "HU6Z5", "stock": 41}` or `{"reload": true}`.
    static let topic = "banchan:listings"

    struct Event: Codable {
        var hash: String?
        var stock: Int?
        var reload: Bool?
    }

    private struct State {
        var sections: [DishSection: [Listing]] = [:]
        /// hash → where the listing sits, to apply a stock change.
        var places: [String: (section: DishSection, offset: Int)] = [:]
    }

    private let state = NIOLockedValueBox(State())

    func reload(from database: any Database) async throws {
        let records = try await DishRecord.query(on: database).filter(\.$retiredAt == nil).sort(\.$position).sort(\.$id).all()
        var fresh = State()
        for record in records {
            let dish = record.dish
            let listing = Listing(id: try record.requireID(), position: record.position, dish: dish, stock: record.stock)
            fresh.places[dish.hash] = (dish.section, fresh.sections[dish.section, default: []].count)
            fresh.sections[dish.section, default: []].append(listing)
        }
        state.withLockedValue { $0 = fresh }
    }

    func apply(stock: Int, of hash: String) {
        state.withLockedValue { state in
            guard let place = state.places[hash] else { return }
            state.sections[place.section]?[place.offset].stock = stock
        }
    }

    func all(in section: DishSection) -> [Listing] {
        state.withLockedValue { $0.sections[section] ?? [] }
    }

    func count(in section: DishSection) -> Int {
        state.withLockedValue { $0.sections[section]?.count ?? 0 }
    }

    /// A page in catalog order, with the same cursors as `paginate(inOrder:)`.
    func page(in section: DishSection, _ page: PageRequest) throws -> (items: [Listing], nextCursor: String?) {
        if page.cursor != nil && page.orderedCursor == nil { throw AppError.badRequest("invalid_cursor") }
        let listings = all(in: section)
        var start = 0
        if let cursor = page.orderedCursor {
            // Listings are sorted by (position, id): the first one after the cursor.
            var low = 0, high = listings.count
            while low < high {
                let middle = (low + high) / 2
                let listing = listings[middle]
                if (listing.position, listing.id.uuidString) <= (cursor.position, cursor.id.uuidString) { low = middle + 1 } else { high = middle }
            }
            start = low
        }
        let items = Array(listings[start..<min(listings.count, start + page.limit)])
        guard start + page.limit < listings.count, let last = items.last else { return (items, nil) }
        return (items, OrderedPageCursor(position: last.position, id: last.id).encoded)
    }

    /// Keeps the listings current from the event bus until the application stops.
    static func follow(_ app: Application) {
        let listings = app.banchanListings
        let stream = app.events.subscribe(to: topic)
        let database = app.db
        let logger = app.logger
        let task = Task {
            for await message in stream {
                guard let event = try? JSONDecoder().decode(Event.self, from: Data(message.utf8)) else { continue }
                if event.reload == true {
                    do { try await listings.reload(from: database) } catch { logger.warning("reloading the shop's listings failed: \(error)") }
                } else if let hash = event.hash, let stock = event.stock {
                    listings.apply(stock: stock, of: hash)
                }
            }
        }
        app.lifecycle.use(StopFollowing(task: task))
    }

    private struct StopFollowing: LifecycleHandler {
        let task: Task<Void, Never>
        func shutdown(_ application: Application) { task.cancel() }
    }

    static func announce(stock: Int, of hash: String, on events: any EventBus) async {
        guard let data = try? JSONEncoder().encode(Event(hash: hash, stock: stock)) else { return }
        await events.publish(String(decoding: data, as: UTF8.self), to: topic)
    }

    /// After an admin change: this process's listings are rebuilt before the answer goes out
    /// (the admin sees the change at once); the other processes rebuild when they hear of it.
    static func catalogChanged(_ req: Request) async throws {
        try await req.application.banchanListings.reload(from: req.db)
        await req.application.events.publish(#"{"reload":true}"#, to: topic)
    }
}

extension Application {
    private struct BanchanListingsKey: StorageKey { typealias Value = BanchanListings }

    var banchanListings: BanchanListings {
        get { configured(BanchanListingsKey.self) }
        set { storage[BanchanListingsKey.self] = newValue }
    }
}
