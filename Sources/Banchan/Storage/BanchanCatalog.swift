import Accounts
import Fluent
import Platform
import Vapor

/// `Resources/catalogs/banchan.json`: the dishes the shop ships with, each with its starting stock.
package enum BanchanCatalogFile {
    package struct Entry: Decodable {
        package let dish: Dish
        package let stock: Int

        package init(from decoder: any Decoder) throws {
            dish = try Dish(from: decoder)
            struct Stock: Decodable { let stock: Int }
            stock = try Stock(from: decoder).stock
        }
    }

    package static func load(from directory: String) throws -> [Entry] {
        let path = directory + "catalogs/banchan.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(message: "missing banchan catalog \(path)")
        }
        return try JSONDecoder().decode([Entry].self, from: data)
    }
}

/// Seeds the dishes. New dishes come with the file's stock; dishes no admin touched follow the
/// file's description but keep their stock (orders have moved it); admins' edits are kept.
struct BanchanSeeder: Seeder {
    package var name: String { "banchan" }

    package func seed(_ app: Application) async throws {
        let entries = try BanchanCatalogFile.load(from: app.directory.resourcesDirectory)
        let existing = try await DishRecord.query(on: app.db).all()
        let byHash = Dictionary(existing.map { ($0.hash, $0) }, uniquingKeysWith: { first, _ in first })
        // Each dish's place in its section is its place in the file.
        var counters: [DishSection: Int] = [:]
        let positioned = entries.map { entry -> (entry: BanchanCatalogFile.Entry, position: Int) in
            let position = counters[entry.dish.section, default: 0]
            counters[entry.dish.section] = position + 1
            return (entry, position)
        }
        try await app.db.transaction { transaction in
            for (entry, position) in positioned {
                if let record = byHash[entry.dish.hash] {
                    guard !record.editedByAdmin, record.dish != entry.dish || record.position != position else { continue }
                    record.apply(entry.dish)
                    record.position = position
                    try await record.save(on: transaction)
                } else {
                    try await DishRecord(entry.dish, position: position, stock: entry.stock).create(on: transaction)
                }
            }
        }
        try await app.banchanListings.reload(from: app.db)
    }
}
