package import Fluent
import Foundation
import Platform
package import SQLKit

/// Files in the database (`stored_files`), where every instance reads them: the default with
/// PostgreSQL, so a photo uploaded through one instance is served by all of them, and `pg_dump`
/// carries the files with the rows that name them. The only code that reads or writes the table.
package struct DatabaseFileStorage: FileStorage {
    package static let schema = "stored_files"
    private enum Column: String, TableColumn {
        case key = "file_key", byteCount = "byte_count", content
    }

    private let database: @Sendable () -> any SQLDatabase

    /// `database` gives the database to use at each call (`{ app.db.sql }`; the backup command's
    /// own connection to a copy).
    package init(database: @escaping @Sendable () -> any SQLDatabase) {
        self.database = database
    }

    package var place: String { "database (\(Self.schema))" }

    package func save(_ data: Data, as type: ImageType) async throws -> String {
        let key = Self.key(for: data, as: type)
        // The same bytes stored twice are one row: the second insert changes nothing.
        try await database().raw("""
            INSERT INTO \(ident: Self.schema) (\(ident: Column.key), \(ident: Column.byteCount), \(ident: Column.content))
            VALUES (\(bind: key), \(bind: data.count), \(bind: data)) ON CONFLICT (\(ident: Column.key)) DO NOTHING
            """).run()
        return key
    }

    package func delete(key: String) async throws {
        try await database().raw("DELETE FROM \(ident: Self.schema) WHERE \(ident: Column.key) = \(bind: key)").run()
    }

    package func content(of key: String) async throws -> StoredFileContent? {
        guard Self.isValidKey(key) else { return nil }
        let row = try await database().raw("""
            SELECT \(ident: Column.content) FROM \(ident: Self.schema) WHERE \(ident: Column.key) = \(bind: key)
            """).first()
        return try row.map { .bytes(try $0.decode(column: Column.content, as: Data.self)) }
    }

    package func size(of key: String) async throws -> Int? {
        guard Self.isValidKey(key) else { return nil }
        return try await database().raw("""
            SELECT \(ident: Column.byteCount) FROM \(ident: Self.schema) WHERE \(ident: Column.key) = \(bind: key)
            """).first()?.decode(column: Column.byteCount, as: Int.self)
    }

    /// Every stored file's key, in order (for the backup's check and the tests).
    package func keys() async throws -> [String] {
        try await database().raw("SELECT \(ident: Column.key) FROM \(ident: Self.schema) ORDER BY \(ident: Column.key)").all()
            .map { try $0.decode(column: Column.key, as: String.self) }
    }

    /// The table, created whatever the storage in use (switching to it later needs no migration).
    package struct Create: NamedMigration {
        package var name: String { "WhatWeEatServer.CreateStoredFiles" }

        package func prepare(on database: any Database) async throws {
            try await database.schema(DatabaseFileStorage.schema)
                .field(Column.key.fieldKey, .string, .identifier(auto: false))
                .field(Column.byteCount.fieldKey, .int64, .required)
                .field(Column.content.fieldKey, .data, .required)
                .create()
        }

        package func revert(on database: any Database) async throws {
            try await database.schema(DatabaseFileStorage.schema).delete()
        }

        package init() {}
    }
}
