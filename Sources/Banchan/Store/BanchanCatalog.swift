import Accounts
import Fluent
import Platform
import Vapor

/// `Resources/catalogs/banchan.json`: the dishes the shop ships with, each with its starting stock.
package enum BanchanCatalogFile {
    package struct Entry: Decodable {
        package let dish: Dish
        package let stock: Int

        package init(dish: Dish, stock: Int) {
            self.dish = dish
            self.stock = stock
        }

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
/// file's description but keep their stock (orders have moved it); admins' edits are kept. Then
/// the operator's saved terms, if any, replace the environment's.
struct BanchanSeeder: Seeder {
    var name: String { "banchan" }

    func seed(_ app: Application) async throws {
        let entries = try BanchanCatalogFile.load(from: app.directory.resourcesDirectory)
        app.banchanListings.replace(with: try await app.banchanStore.seed(entries))
        try await app.shopTermsInForce.load(from: app.banchanStore)
    }
}
