package import Fluent
package import Foundation
package import SQLKit

/// A table's columns, each named once, as an enum of their names:
/// `enum Column: String, TableColumn { case id, userID = "user_id" }`. A row read from the table
/// takes the same enum as its `CodingKeys` where it has every column, so the name a statement
/// writes and the name a row decodes are one declaration. A case is an identifier wherever SQLKit
/// takes an expression; the overloads below take it where SQLKit takes a column's name.
package protocol TableColumn: CodingKey, SQLExpression, CaseIterable, Sendable {}

extension TableColumn {
    package func serialize(to serializer: inout SQLSerializer) {
        PlainIdentifier.write(stringValue, to: &serializer)
    }

    /// The column as a Fluent model's key.
    package var fieldKey: FieldKey { .string(stringValue) }
}

extension SQLIdentifier {
    package init(_ column: some TableColumn) { self.init(column.stringValue) }
}

extension SQLColumn {
    package init(_ column: some TableColumn, table: String) { self.init(column, table: PlainIdentifier(table)) }
}

/// A table's or column's name as we write them (letters, digits, underscores): quoted without
/// SQLKit's escaping pass, which copies every name to double its quotes; a page's statements name
/// dozens of columns, and that pass was a twentieth of a signed-in page. A name that does hold the
/// dialect's quote goes through SQLKit's own quoting.
package struct PlainIdentifier: SQLExpression {
    package let name: String

    package init(_ name: String) { self.name = name }

    package func serialize(to serializer: inout SQLSerializer) {
        Self.write(name, to: &serializer)
    }

    static func write(_ name: String, to serializer: inout SQLSerializer) {
        guard let quote = (serializer.dialect.identifierQuote as? SQLRaw)?.sql, quote.utf8.count == 1,
              !name.utf8.contains(quote.utf8.first!) else {
            return SQLIdentifier(name).serialize(to: &serializer)
        }
        serializer.write(quote + name + quote)
    }
}

extension SQLRow {
    package func decode<D: Decodable>(column: some TableColumn, as type: D.Type) throws -> D {
        try decode(column: column.stringValue, as: type)
    }

    package func decodeNil(column: some TableColumn) throws -> Bool { try decodeNil(column: column.stringValue) }
}

extension SQLQueryFetcher {
    package func all<D: Decodable>(decodingColumn column: some TableColumn, as type: D.Type) async throws -> [D] {
        try await all(decodingColumn: column.stringValue, as: type)
    }

    package func first<D: Decodable>(decodingColumn column: some TableColumn, as type: D.Type) async throws -> D? {
        try await first(decodingColumn: column.stringValue, as: type)
    }
}

extension SQLPartialResultBuilder {
    package func orderBy(_ column: some TableColumn, _ direction: SQLDirection = .ascending) -> Self {
        orderBy(column, direction as any SQLExpression)
    }
}

extension SQLColumnUpdateBuilder {
    package func set(_ column: some TableColumn, to bind: any Encodable & Sendable) -> Self {
        set(column.stringValue, to: bind)
    }
}

extension SQLInsertBuilder {
    package func columns<Column: TableColumn>(_ columns: Column...) -> Self { self.columns(columns) }

    package func columns<Column: TableColumn>(_ columns: [Column]) -> Self { self.columns(columns.map { $0 as any SQLExpression }) }
}

extension SQLUnqualifiedColumnListBuilder {
    package func columns<Column: TableColumn>(_ columns: [Column]) -> Self { self.columns(columns.map { $0 as any SQLExpression }) }
}

extension SQLQueryString {
    package mutating func appendInterpolation(ident column: some TableColumn) {
        appendInterpolation(column)
    }
}

extension SQLDatabase {
    /// Writes `row` into `table`, a column per coding key (its `CodingKeys` are the table's
    /// `TableColumn`s), nil as NULL: how a store writes a row it has no Fluent model for.
    package func insert(_ row: some Encodable, into table: String) async throws {
        try await insert(into: table).model(row, nilEncodingStrategy: .asNil).run()
    }

    /// Writes `row` into `table` with `stamps` beside its own columns (the times a write records,
    /// which a row read back does not carry): a whole row in one statement.
    package func insert(_ row: some Encodable, into table: String, stamping stamps: [String: Date]) async throws {
        let builder = try insert(into: table).model(row, nilEncodingStrategy: .asNil)
        for (column, time) in stamps.sorted(by: { $0.key < $1.key }) {
            builder.insert.columns.append(SQLIdentifier(column))
            builder.insert.values[builder.insert.values.count - 1].append(SQLBind(time))
        }
        try await builder.run()
    }

    /// Writes every column of `row` over the row of `table` whose `id` column is `id`, with
    /// `stamps` beside them: how a store updates a whole row it read, changed and writes back.
    ///
    /// `keeping` names columns another writer moves meanwhile (a dish's stock, taken by orders):
    /// they are left as the table has them, so a row read before that write cannot undo it.
    package func update(_ row: some Encodable & Sendable, in table: String, id: UUID, keeping kept: [String] = [],
                        stamping stamps: [String: Date] = [:]) async throws {
        let builder = update(table)
        for (column, value) in try SQLQueryEncoder(nilEncodingStrategy: .asNil).encode(row) where !kept.contains(column) {
            builder.set(SQLIdentifier(column), to: value)
        }
        for (column, time) in stamps.sorted(by: { $0.key < $1.key }) { builder.set(SQLIdentifier(column), to: SQLBind(time)) }
        try await builder.where(SQLIdentifier("id"), .equal, SQLBind(id)).run()
    }
}

extension SchemaBuilder {
    /// Adds columns named by a table's column enum (required unless `optional`), so a new table's
    /// migration names no column a second time.
    package func fields<Column: TableColumn>(_ fields: [(Column, DatabaseSchema.DataType)], optional: Bool = false) -> Self {
        for (column, type) in fields {
            if optional { field(column.fieldKey, type) } else { field(column.fieldKey, type, .required) }
        }
        return self
    }
}
