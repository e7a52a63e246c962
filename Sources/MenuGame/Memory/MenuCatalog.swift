import Fluent
import NIOConcurrencyHelpers
import Platform
import Vapor

/// `Resources/catalogs/menus.json`: the menus WhatWeEat ships with.
enum MenuCatalogFile {
    static func load(from directory: String) throws -> [Menu] {
        let path = directory + "catalogs/menus.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(message: "missing menu catalog \(path)")
        }
        let decoder = JSONDecoder()
        return try decoder.decode([Menu].self, from: data)
    }
}

/// Seeds the menus table from the catalog file. New menus are added; menus an admin never
/// touched follow the file; an admin's edits and retirements are kept.
struct MenuSeeder: Seeder {
    var name: String { "menus" }

    func seed(_ app: Application) async throws {
        app.menuCatalog.replace(with: try await app.menuStore.seed(try MenuCatalogFile.load(from: app.directory.resourcesDirectory)))
    }
}

/// The active menus in memory, with both recommenders built over them. Rebuilt after seeding
/// and after every change `MenuStore` announces, on every instance; readers never wait for the
/// database.
package final class MenuCatalog: Sendable {
    package struct Snapshot: Sendable {
        package let menus: [Menu]
        let imageURLs: [String: String]
        let v0: Recommender
        package let v1: Recommender

        func recommender(_ version: RecommenderVersion) -> Recommender { version == .v0 ? v0 : v1 }
    }

    private struct State {
        var snapshot: Snapshot
        /// The newest read held (`ReadOrder`): a read that started earlier than the one held saw an
        /// older table and is dropped, however late it finishes.
        var readHeld = 0
    }

    private let state = NIOLockedValueBox(State(snapshot: Snapshot(menus: [], imageURLs: [:], v0: .init(version: .v0, menus: []),
                                                                   v1: .init(version: .v1, menus: []))))
    private let reads = ReadOrder()

    package var snapshot: Snapshot { state.withLockedValue { $0.snapshot } }

    /// Moves whenever the catalog is read again after a change of `menus` (on every instance, as
    /// the store announces): what the console's menu pages are kept at.
    package var version: Int { state.withLockedValue { $0.readHeld } }

    /// Reads the menus on offer again. Two reloads can overlap (a write's own and a follower's of an
    /// earlier announcement): the one that started last is kept.
    package func reload(from store: MenuStore) async throws {
        let read = takeRead()
        replace(with: try await store.activeRows(), read: read)
    }

    /// The number of a read about to start.
    func takeRead() -> Int { reads.take() }

    /// Holds the menus of `rows` on offer (rows in catalog order, which is v0's tie-break), unless a
    /// read that started after `read` is held already. Without `read`, the rows are the newest.
    func replace(with allRows: [MenuStore.Row], read: Int? = nil) {
        let read = read ?? takeRead()
        let rows = allRows.filter { $0.retiredAt == nil }
        let menus = rows.map(\.menu)
        var images: [String: String] = [:]
        for row in rows { if let url = row.imageURL { images[row.slug] = url } }
        let snapshot = Snapshot(menus: menus, imageURLs: images, v0: Recommender(version: .v0, menus: menus), v1: Recommender(version: .v1, menus: menus))
        state.withLockedValue { state in
            guard read > state.readHeld else { return }
            state.readHeld = read
            state.snapshot = snapshot
        }
    }
}
