import Fluent
@testable import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// The one after-commit mechanism (issue 59): what a transaction recorded is answered once it
/// committed, and nothing of a transaction that rolled back.
final class ChangeLogTests: XCTestCase {
    private struct Refused: Error {}

    func testWhatATransactionRecordedIsAnsweredOnceItCommitted() async throws {
        try await withTestApp { app in
            try await app.db.sql.raw("CREATE TABLE change_log_probe (n INTEGER)").run()
            let (result, changes) = try await app.db.writeTransaction(recording: [Int]()) { transaction, log in
                try await transaction.sql.raw("INSERT INTO change_log_probe (n) VALUES (1)").run()
                log.record { $0.append(1) }
                log.record { $0.append(2) }
                return "done"
            }
            XCTAssertEqual(result, "done")
            XCTAssertEqual(changes, [1, 2])

            var told: [Int]?
            do {
                told = try await app.db.writeTransaction(recording: [Int]()) { transaction, log in
                    try await transaction.sql.raw("INSERT INTO change_log_probe (n) VALUES (2)").run()
                    log.record { $0.append(3) }
                    throw Refused()
                }.changes
                XCTFail("the transaction throws")
            } catch is Refused {}
            XCTAssertNil(told, "a rolled-back transaction tells nothing")
            let kept = try await app.db.sql.raw("SELECT COUNT(*) AS n FROM change_log_probe").first(decodingColumn: "n", as: Int.self)
            XCTAssertEqual(kept, 1, "and keeps nothing")
        }
    }

    func testAStoreInsideAnotherTransactionJoinsItAndRecordsIntoItsOwnLog() async throws {
        try await withTestApp { app in
            let (_, outer) = try await app.db.writeTransaction(recording: [String]()) { transaction, log in
                log.record { $0.append("outer") }
                // A nested write joins the transaction (no second commit), with a log of its own.
                let inner = try await transaction.writeTransaction(recording: [String]()) { _, innerLog in
                    innerLog.record { $0.append("inner") }
                    return transaction.inTransaction
                }
                XCTAssertTrue(inner.result)
                XCTAssertEqual(inner.changes, ["inner"])
                return ()
            }
            XCTAssertEqual(outer, ["outer"])
        }
    }
}
