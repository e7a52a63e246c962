import Platform
import Fluent
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Access records are written as a group commit (`AccessRecordWriter`): a view returns only once
/// its own record is in the table, a crowd of views at once loses none, and a batch that cannot be
/// written fails every view waiting on it (data shown unrecorded is what the rule forbids).
final class AccessRecordWriterTests: XCTestCase {
    static func record(_ subject: String) -> AccessRecord {
        AccessRecord(actorID: UUID(), what: "banchan.orders.packing", personID: nil, subject: subject, network: "127.0.0.1", at: Date())
    }

    static func stored(_ app: Application, _ id: UUID) async throws -> Int {
        try await app.db.sql.count(SQLIdentifier(AccessRecords.table)) { $0.where("id", .equal, SQLBind(id)) }
    }

    func testACrowdOfViewsEachReturnsOnlyOnceItsRecordIsWritten() async throws {
        try await withTestApp { app in
            let writer = app.accessRecordWriter
            let found = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<120 {
                    group.addTask {
                        let record = Self.record("day \(index)")
                        try await writer.write(record, on: app.db)
                        return try await Self.stored(app, record.id)
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            XCTAssertEqual(found, Array(repeating: 1, count: 120), "each view found its own record written when it returned")
            let total = try await app.db.sql.count(SQLIdentifier(AccessRecords.table)) { $0 }
            XCTAssertEqual(total, 120)
        }
    }

    func testABatchThatCannotBeWrittenFailsEveryViewInIt() async throws {
        try await withTestApp { app in
            let writer = app.accessRecordWriter
            try await app.db.sql.raw("ALTER TABLE \(ident: AccessRecords.table) RENAME TO access_records_away").run()
            let failures = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        do {
                            try await writer.write(Self.record("day \(index)"), on: app.db)
                            return false
                        } catch {
                            return true
                        }
                    }
                }
                return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            XCTAssertEqual(failures, 20, "no view returns as if recorded")
            try await app.db.sql.raw("ALTER TABLE access_records_away RENAME TO \(ident: AccessRecords.table)").run()
            // The writer is not stuck: the next view writes its record.
            let after = Self.record("after")
            try await writer.write(after, on: app.db)
            let written = try await Self.stored(app, after.id)
            XCTAssertEqual(written, 1)
        }
    }
}
