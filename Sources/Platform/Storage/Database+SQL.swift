import Fluent
import SQLKit

extension Database {
    /// The database as SQLKit sees it, for the queries Fluent does not express (conditional
    /// updates with `RETURNING`, bulk reads into plain structs). Both drivers this app uses,
    /// SQLite and PostgreSQL, are SQL databases, so the cast cannot fail.
    package var sql: any SQLDatabase { self as! any SQLDatabase }
}
