import Fluent
import Platform
import SQLKit
import WhatWeEatTesting
import XCTest

/// The storage kit's one way to write a row (issue 59): a whole `Codable` row in, nil as NULL, the
/// write's times stamped beside it; an update by id writes every column but those another writer
/// moves meanwhile (`keeping`).
final class RowKitTests: XCTestCase {
    private enum Column: String, TableColumn {
        case id, name, stock, note
    }

    /// The times a write records beside a row (a row read back does not carry them).
    private static let createdAt = "created_at", updatedAt = "updated_at"

    private struct Row: Codable, Equatable {
        typealias CodingKeys = Column
        let id: UUID, name: String, stock: Int, note: String?
    }

    private struct CreateProbe: AsyncMigration {
        var name: String { "RowKitTests.CreateProbe" }

        func prepare(on database: any Database) async throws {
            try await database.schema("row_kit_probe").id()
                .fields([(Column.name, .string), (Column.stock, .int)])
                .fields([(Column.note, .string)], optional: true)
                .field(.string(RowKitTests.createdAt), .datetime).field(.string(RowKitTests.updatedAt), .datetime)
                .create()
        }

        func revert(on database: any Database) async throws { try await database.schema("row_kit_probe").delete() }
    }

    private func read(_ id: UUID, on sql: any SQLDatabase) async throws -> (row: Row, createdAt: Date?, updatedAt: Date?) {
        let found = try await sql.select().columns(Column.allCases).column(Self.createdAt).column(Self.updatedAt).from("row_kit_probe").where(SQLIdentifier(Column.id), .equal, SQLBind(id)).first()
        let stored = try XCTUnwrap(found)
        return (try stored.decode(model: Row.self), try stored.decode(column: Self.createdAt, as: Date?.self),
                try stored.decode(column: Self.updatedAt, as: Date?.self))
    }

    func testAWholeRowGoesInAndAnUpdateKeepsWhatAnotherWriterMoves() async throws {
        try await withTestDatabase(migrations: [CreateProbe()]) { database in
            let sql = database.sql
            let made = Date(timeIntervalSince1970: 1_800_000_000.25)
            let row = Row(id: UUID(), name: "멸치볶음", stock: 10, note: nil)
            try await sql.insert(row, into: "row_kit_probe", stamping: [Self.createdAt: made, Self.updatedAt: made])
            var stored = try await read(row.id, on: sql)
            XCTAssertEqual(stored.row, row, "every column, nil as NULL")
            XCTAssertEqual([stored.createdAt, stored.updatedAt], [made, made])

            // An order takes stock after the editor read the row.
            try await sql.update("row_kit_probe").set(SQLIdentifier(Column.stock), to: SQLBind(7))
                .where(SQLIdentifier(Column.id), .equal, SQLBind(row.id)).run()
            let edited = Row(id: row.id, name: "멸치견과볶음", stock: row.stock, note: "새 이름")
            let later = made.addingTimeInterval(60)
            try await sql.update(edited, in: "row_kit_probe", id: row.id, keeping: [Column.stock.stringValue],
                                 stamping: [Self.updatedAt: later])
            stored = try await read(row.id, on: sql)
            XCTAssertEqual(stored.row, Row(id: row.id, name: "멸치견과볶음", stock: 7, note: "새 이름"),
                           "the edit is written, the stock the order left is kept")
            XCTAssertEqual([stored.createdAt, stored.updatedAt], [made, later])

            // Without `keeping`, the whole row is the writer's (an editor setting the stock).
            try await sql.update(Row(id: row.id, name: "멸치견과볶음", stock: 20, note: nil), in: "row_kit_probe", id: row.id)
            stored = try await read(row.id, on: sql)
            XCTAssertEqual(stored.row.stock, 20)
            XCTAssertNil(stored.row.note, "nil clears a column")
        }
    }
}
