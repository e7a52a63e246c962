package import Fluent
import Platform
package import SQLKit
import Vapor

/// Reads of tables by their own statements, for checking what a store wrote without asking the
/// store (tables with no Fluent model are read and counted here).
extension Application {
    /// How many rows `table` holds, `narrow` picking some.
    package func rowCount(_ table: String, _ narrow: (SQLSelectBuilder) -> SQLSelectBuilder = { $0 }) async throws -> Int {
        try await db.sql.count(SQLIdentifier(table), narrow)
    }

    /// The row of `table` whose `id` is this, every column, decoded by the row's coding keys.
    package func storedRow<Row: Decodable>(_ type: Row.Type, in table: String, id: UUID) async throws -> Row? {
        try await db.sql.select().column(SQLLiteral.all).from(table).where(SQLIdentifier("id"), .equal, SQLBind(id))
            .first(decoding: type)
    }

    /// Empties `table`.
    package func deleteRows(of table: String) async throws {
        try await db.sql.delete(from: table).run()
    }
}
