import Fluent
package import SQLKit

extension Database {
    /// The database as SQLKit sees it, for the queries Fluent does not express (conditional
    /// updates with `RETURNING`, bulk reads into plain structs). Both drivers this app uses,
    /// SQLite and PostgreSQL, are SQL databases, so the cast cannot fail.
    package var sql: any SQLDatabase { self as! any SQLDatabase }
}

extension SQLDatabase {
    /// How many rows of `table` `narrow` picks, in one statement: the one way the stores count.
    package func count(_ table: some SQLExpression, _ narrow: (SQLSelectBuilder) -> SQLSelectBuilder = { $0 }) async throws -> Int {
        try await narrow(select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "counted").from(table))
            .first(decodingColumn: "counted", as: Int.self) ?? 0
    }
}
