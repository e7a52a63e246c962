public import Vapor

/// Loads a catalog from `Resources/` into the database. Each seeder must be idempotent: running
/// it on every start leaves one copy of each row and keeps admins' later edits.
public protocol Seeder: Sendable {
    var name: String { get }
    func seed(_ app: Application) async throws
}
