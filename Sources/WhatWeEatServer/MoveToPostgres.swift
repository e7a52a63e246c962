import Fluent
import FluentPostgresDriver
import Foundation
import Media
import Platform
import Site
import SQLKit
import Vapor

/// `whatweeat migrate-to-postgres --to postgres://…`: a SQLite site (the one `DATA_DIR` names)
/// copied whole into an empty PostgreSQL database, the documented way to grow to several
/// instances without starting over (issue 58, item 4).
///
/// The target is refused unless it holds no table at all. It is migrated by this binary (so its
/// tables are exactly the ones a PostgreSQL start makes), then every table the two share is
/// copied row by row in one transaction, in the order of their foreign keys, each value read as
/// the type its PostgreSQL column has (SQLite keeps times as numbers, booleans as integers, lists
/// as JSON); tables only SQLite has (its full-text index) are left, PostgreSQL indexes the copied
/// rows itself. Counters behind serial columns move past the copied rows. Photos kept on disk go
/// into the target's `stored_files`. Row counts are compared table by table; any difference
/// fails the command. The secret is not copied into the database: the command says how to carry it.
struct MoveToPostgresCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Option(name: "to", help: "The empty PostgreSQL database: postgres://user:password@host:5432/database")
        var target: String?
        init() {}
    }

    var help: String { "Copies this SQLite site into an empty PostgreSQL database (then run with DATABASE_URL set to it)." }

    func run(using context: CommandContext, signature: Signature) async throws {
        let source = context.application
        guard case .sqlite(let path) = source.settings.database else {
            throw CommandFailure(message: "the site to copy is the SQLite one DATA_DIR names: unset DATABASE_URL and give the target with --to")
        }
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure(message: "no WhatWeEat data in \(path)") }
        guard let url = signature.target, URLComponents(string: url).map({ ["postgres", "postgresql"].contains($0.scheme ?? "") }) == true else {
            throw CommandFailure(message: "--to needs a postgres://user:password@host:5432/database URL")
        }
        try await prepareDatabase(source)  // the source at this binary's version, as the target will be
        var settings = source.settings
        settings.database = .postgres(url: url)
        let target = try await Application.make(.production)
        do {
            try await configure(target, settings: settings)
            let report = try await Self.move(from: source.db.sql, to: target, console: context.console)
            let photos = try await target.carryOverDiskUploads(from: uploadsDirectory(source.settings))
            context.console.info("Copied \(report.rows) rows in \(report.tables) tables and \(photos) photos; every table's count matches.")
            context.console.info("Next: stop this server, set DATABASE_URL to the target and JWT_SECRET to the contents of "
                                 + "\((source.settings.dataDirectory as NSString).appendingPathComponent("jwt-secret")) (or the JWT_SECRET it had), then start.")
        } catch {
            try? await target.asyncShutdown()
            throw error
        }
        try await target.asyncShutdown()
    }

    /// Migrates the empty target and copies every shared table into it; the tables and rows copied.
    static func move(from source: any SQLDatabase, to target: Application, console: any Console) async throws -> (tables: Int, rows: Int) {
        let sql = target.db.sql
        let existing = try await sql.raw("SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = current_schema()")
            .first(decodingColumn: "n", as: Int.self) ?? 0
        guard existing == 0 else {
            throw CommandFailure(message: "the target database holds \(existing) table(s): give an empty one (CREATE DATABASE …)")
        }
        try await SafeMigrations.holdingTheLock(target) { try await target.autoMigrate() }

        let columns = try await targetColumns(sql)
        let sourceTables = try await source.raw("""
            SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
            """).all().map { (try $0.decode(column: "name", as: String.self), try $0.decode(column: "sql", as: String?.self) ?? "") }
        // Full-text tables and their shadow tables are SQLite's own index: PostgreSQL indexes the rows.
        let virtual = sourceTables.filter { $0.1.uppercased().hasPrefix("CREATE VIRTUAL TABLE") }.map(\.0)
        let shared = sourceTables.map(\.0).filter { name in
            columns[name] != nil && name != "_fluent_migrations" && !virtual.contains { name == $0 || name.hasPrefix($0 + "_") }
        }
        let rows = try await target.db.transaction { transaction in
            let sql = transaction.sql
            var rows = 0
            for table in try await dependencyOrder(shared, sql) {
                let copied = try await copy(table, columns: columns[table] ?? [], from: source, to: sql)
                rows += copied
                console.print("\(table): \(copied)")
            }
            try await advanceSequences(sql)
            return rows
        }
        for table in shared {
            let before = try await source.raw("SELECT COUNT(*) AS n FROM \(ident: table)").first(decodingColumn: "n", as: Int.self)
            let after = try await sql.raw("SELECT COUNT(*) AS n FROM \(ident: table)").first(decodingColumn: "n", as: Int.self)
            guard before == after else { throw CommandFailure(message: "\(table): \(before ?? 0) rows in SQLite, \(after ?? 0) copied") }
        }
        return (shared.count, rows)
    }

    /// A column of the target: its name, PostgreSQL's type and, for lists and enums, the type's own name.
    struct Column { let name: String; let type: String; let udt: String }

    private static func targetColumns(_ sql: any SQLDatabase) async throws -> [String: [Column]] {
        let rows = try await sql.raw("""
            SELECT table_name, column_name, data_type, udt_name FROM information_schema.columns
            WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
            """).all()
        var columns: [String: [Column]] = [:]
        for row in rows {
            columns[try row.decode(column: "table_name", as: String.self), default: []].append(Column(
                name: try row.decode(column: "column_name", as: String.self), type: try row.decode(column: "data_type", as: String.self),
                udt: try row.decode(column: "udt_name", as: String.self)))
        }
        return columns
    }

    /// Tables a foreign key points to come before the tables that point.
    private static func dependencyOrder(_ tables: [String], _ sql: any SQLDatabase) async throws -> [String] {
        let edges = try await sql.raw("""
            SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint WHERE contype = 'f'
            """).all().map { (try $0.decode(column: "child", as: String.self), try $0.decode(column: "parent", as: String.self)) }
        let unquote = { (name: String) in name.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        var parents: [String: Set<String>] = [:]
        for (child, parent) in edges where unquote(child) != unquote(parent) { parents[unquote(child), default: []].insert(unquote(parent)) }
        var ordered: [String] = [], placed = Set<String>()
        var remaining = tables
        while !remaining.isEmpty {
            let ready = remaining.filter { (parents[$0] ?? []).subtracting(placed).intersection(tables).isEmpty }
            // A cycle (none today) would stop here: copy the rest in name order and let the keys speak.
            let next = ready.isEmpty ? remaining : ready
            ordered += next
            placed.formUnion(next)
            remaining.removeAll { next.contains($0) }
        }
        return ordered
    }

    /// Copies one table in batches, each value read as its target column's type; the rows copied.
    private static func copy(_ table: String, columns: [Column], from source: any SQLDatabase, to target: any SQLDatabase) async throws -> Int {
        let present = Set(try await source.raw("SELECT name FROM pragma_table_info(\(bind: table))").all(decodingColumn: "name", as: String.self))
        let shared = columns.filter { present.contains($0.name) }
        guard !shared.isEmpty else { return 0 }
        // PostgreSQL takes at most 65,535 values a statement. Batches follow the rowid (an OFFSET
        // would read every skipped row again: quadratic on a table of a million reviews).
        let batch = max(1, 20_000 / shared.count)
        var after = Int.min, copied = 0
        while true {
            let rows = try await source.raw("""
                SELECT rowid AS copy_rowid, \(SQLList(shared.map { SQLIdentifier($0.name) })) FROM \(ident: table)
                WHERE rowid > \(bind: after) ORDER BY rowid LIMIT \(literal: batch)
                """).all()
            guard let last = rows.last else { return copied }
            after = try last.decode(column: "copy_rowid", as: Int.self)
            var values: [any SQLExpression] = []
            for row in rows {
                values.append(SQLGroupExpression(try shared.map { try value(of: $0, in: row) }))
            }
            try await target.raw("""
                INSERT INTO \(ident: table) (\(SQLList(shared.map { SQLIdentifier($0.name) }))) VALUES \(SQLList(values))
                """).run()
            copied += rows.count
        }
    }

    /// A SQLite value as its PostgreSQL column takes it (nil as a plain NULL, which any column takes).
    private static func value(of column: Column, in row: any SQLRow) throws -> any SQLExpression {
        func bound<T: Encodable & Decodable & Sendable>(_ type: T.Type) throws -> any SQLExpression {
            try row.decode(column: column.name, as: T?.self).map { SQLBind($0) } ?? SQLLiteral.null
        }
        switch column.type {
        case "uuid": return try bound(UUID.self)
        case "timestamp with time zone", "timestamp without time zone", "date": return try bound(Date.self)
        case "boolean": return try bound(Bool.self)
        case "smallint", "integer", "bigint": return try bound(Int.self)
        case "double precision", "real", "numeric": return try bound(Double.self)
        case "bytea": return try bound(Data.self)
        case "ARRAY":
            // Lists of text are the only lists the schema has; another kind would be copied wrong.
            guard ["_text", "_varchar"].contains(column.udt) else {
                throw CommandFailure(message: "\(column.name): a list of \(column.udt) is not one this command copies")
            }
            return try bound([String].self)
        case "json", "jsonb", "USER-DEFINED":
            guard let text = try row.decode(column: column.name, as: String?.self) else { return SQLLiteral.null }
            return SQLFunction("CAST", args: SQLAlias(SQLBind(text), as: SQLRaw(column.udt)))
        default: return try bound(String.self)
        }
    }

    /// Each serial column's counter moves past the largest copied value.
    private static func advanceSequences(_ sql: any SQLDatabase) async throws {
        let serials = try await sql.raw("""
            SELECT table_name, column_name, pg_get_serial_sequence(quote_ident(table_name), column_name) AS sequence
            FROM information_schema.columns WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%'
            """).all()
        for row in serials {
            guard let sequence = try row.decode(column: "sequence", as: String?.self) else { continue }
            let table = try row.decode(column: "table_name", as: String.self), column = try row.decode(column: "column_name", as: String.self)
            try await sql.raw("""
                SELECT setval(\(bind: sequence), GREATEST(COALESCE((SELECT MAX(\(ident: column)) FROM \(ident: table)), 0), 1),
                              (SELECT MAX(\(ident: column)) FROM \(ident: table)) IS NOT NULL)
                """).run()
        }
    }
}
