import Platform
import Vapor

public enum Seeders {
    /// Every feature's catalogs, in the order of `Features.all`.
    package static var all: [any Seeder] { Features.all.flatMap { $0.seeders } }

    public static func run(on app: Application) async throws {
        for seeder in all {
            try await seeder.seed(app)
            app.logger.debug("seeded \(seeder.name)")
        }
    }
}
