package import Platform
package import Vapor

public enum Seeders {
    /// Every catalog of the site's features, in their order.
    package static func all(for features: [any Feature.Type]) -> [any Seeder] { features.flatMap { $0.seeders } }

    package static func run(on app: Application) async throws {
        for seeder in all(for: app.siteFeatures) {
            try await seeder.seed(app)
            app.logger.debug("seeded \(seeder.name)")
        }
    }
}
