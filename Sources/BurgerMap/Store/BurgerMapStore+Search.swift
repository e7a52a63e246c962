import Fluent
import Platform
import SQLKit

/// Finding places by any part of their name or address (`치즈` finds `더블치즈버거`), by index on
/// both databases: SQLite keeps an FTS5 table with the trigram tokenizer beside the places
/// (filled by triggers), PostgreSQL a `pg_trgm` GIN index on the lower-cased columns. Words of
/// three characters or more use the index; shorter ones fall back to a scan, which is still
/// correct.
enum PlaceSearch {
    static let table = "burger_places_search"

    /// A condition on `burger_places.id` that holds for places whose name or address contains `text`.
    static func predicate(_ text: String, on database: any SQLDatabase) -> any SQLExpression {
        // No name or address holds a NUL (they refuse control characters), and a bound NUL ends
        // the text for the database (FTS5 answered "unterminated string", a 500; a LIKE pattern cut
        // short there matched every place; PostgreSQL refuses it): such a search finds nothing.
        if text.unicodeScalars.contains("\0") { return SQLLiteral.boolean(false) }
        let lowered = text.lowercased()
        let like = "%" + lowered.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        if database.dialect.name == "sqlite" {
            if lowered.count >= 3 {
                // An FTS5 phrase: the text in double quotes, its own quotes doubled.
                let phrase = "\"" + lowered.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                return SQLQueryString("\(ident: BurgerPlace.schema).\(ident: "id") IN (SELECT place_id FROM \(ident: table) WHERE \(ident: table) MATCH \(bind: phrase))")
            }
            return SQLQueryString("\(ident: BurgerPlace.schema).\(ident: "id") IN (SELECT place_id FROM \(ident: table) WHERE name LIKE \(bind: like) ESCAPE '\\' OR address LIKE \(bind: like) ESCAPE '\\')")
        }
        return SQLQueryString("(LOWER(\(ident: BurgerPlace.schema).name) LIKE \(bind: like) ESCAPE '\\' OR LOWER(\(ident: BurgerPlace.schema).address) LIKE \(bind: like) ESCAPE '\\')")
    }
}

/// The search index for places (see `PlaceSearch`).
struct CreatePlaceSearch: NamedMigration {
    func prepare(on database: any Database) async throws {
        let sql = database.sql
        let table = PlaceSearch.table
        if sql.dialect.name == "sqlite" {
            // The place's id is stored beside its text: SQLite may renumber rowids on VACUUM.
            try await sql.raw("CREATE VIRTUAL TABLE \(unsafeRaw: table) USING fts5(name, address, place_id UNINDEXED, tokenize = 'trigram')").run()
            try await sql.raw("""
                CREATE TRIGGER \(unsafeRaw: table)_insert AFTER INSERT ON burger_places BEGIN
                  INSERT INTO \(unsafeRaw: table)(name, address, place_id) VALUES (new.name, new.address, new.id);
                END
                """).run()
            try await sql.raw("""
                CREATE TRIGGER \(unsafeRaw: table)_update AFTER UPDATE OF name, address ON burger_places BEGIN
                  DELETE FROM \(unsafeRaw: table) WHERE place_id = old.id;
                  INSERT INTO \(unsafeRaw: table)(name, address, place_id) VALUES (new.name, new.address, new.id);
                END
                """).run()
            try await sql.raw("""
                CREATE TRIGGER \(unsafeRaw: table)_delete AFTER DELETE ON burger_places BEGIN
                  DELETE FROM \(unsafeRaw: table) WHERE place_id = old.id;
                END
                """).run()
            try await sql.raw("INSERT INTO \(unsafeRaw: table)(name, address, place_id) SELECT name, address, id FROM burger_places").run()
        } else {
            try await sql.raw("CREATE EXTENSION IF NOT EXISTS pg_trgm").run()
            try await sql.raw("CREATE INDEX burger_places_name_trgm ON burger_places USING gin (LOWER(name) gin_trgm_ops)").run()
            try await sql.raw("CREATE INDEX burger_places_address_trgm ON burger_places USING gin (LOWER(address) gin_trgm_ops)").run()
        }
    }

    func revert(on database: any Database) async throws {
        let sql = database.sql
        if sql.dialect.name == "sqlite" {
            for suffix in ["insert", "update", "delete"] { try await sql.raw("DROP TRIGGER IF EXISTS \(unsafeRaw: PlaceSearch.table)_\(unsafeRaw: suffix)").run() }
            try await sql.raw("DROP TABLE IF EXISTS \(unsafeRaw: PlaceSearch.table)").run()
        } else {
            try await sql.raw("DROP INDEX IF EXISTS burger_places_name_trgm").run()
            try await sql.raw("DROP INDEX IF EXISTS burger_places_address_trgm").run()
        }
    }
}
