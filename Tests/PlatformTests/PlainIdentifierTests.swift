import Fluent
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Names written by `PlainIdentifier` (and every `TableColumn`) read as SQLKit's quoting would
/// write them, and a name holding a quote is still escaped.
final class PlainIdentifierTests: XCTestCase {
    private enum Column: String, TableColumn { case id, createdAt = "created_at" }

    func testNamesAreQuotedAsSQLKitWouldAndAQuoteIsStillEscaped() async throws {
        try await withTestApp { app in
            let sql = try XCTUnwrap(app.db as? any SQLDatabase)
            for name in ["created_at", "o", "banchan_orders", #"we"ird"#, ""] {
                XCTAssertEqual(sql.serialize(PlainIdentifier(name)).sql, sql.serialize(SQLIdentifier(name)).sql, name)
            }
            XCTAssertEqual(sql.serialize(PlainIdentifier(#"we"ird"#)).sql, #""we""ird""#)
            XCTAssertEqual(sql.serialize(SQLColumn(Column.createdAt, table: "o")).sql, #""o"."created_at""#)
            let query: SQLQueryString = "SELECT \(ident: Column.id) FROM t"
            XCTAssertEqual(sql.serialize(query).sql, #"SELECT "id" FROM t"#)
            // The column's rows still read, written this way.
            try await sql.raw(#"CREATE TABLE "plain_test" ("id" INTEGER, "created_at" TEXT)"#).run()
            try await sql.raw(#"INSERT INTO "plain_test" VALUES (7, 'now')"#).run()
            let read = try await sql.raw("SELECT \(ident: Column.id), \(SQLColumn(Column.createdAt, table: "plain_test")) FROM plain_test").first()
            XCTAssertEqual(try read?.decode(column: Column.id, as: Int.self), 7)
            try await sql.raw(#"DROP TABLE "plain_test""#).run()
        }
    }
}
