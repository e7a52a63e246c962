import Vapor

/// Loads a catalog from `Resources/` into the database. Each seeder must be idempotent: running
/// it on every start leaves one copy of each row and keeps admins' later edits.
public protocol Seeder: Sendable {
    var name: String { get }
    func seed(_ app: Application) async throws
}

public enum Seeders {
    /// Every feature's catalogs, in the order of `Features.all`.
    static var all: [any Seeder] { Features.all.flatMap { $0.seeders } }

    public static func run(on app: Application) async throws {
        for seeder in all {
            try await seeder.seed(app)
            app.logger.debug("seeded \(seeder.name)")
        }
    }
}
