import Foundation
import NIOHTTP1
import Platform
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTest

/// Issue 58, item 7: the operator's command line lists, promotes, demotes, suspends and lifts
/// suspensions, and tests the mail sender; each change is in the audit log, and a rule broken is
/// one line and a non-zero exit.
final class OperatorCommandsTests: XCTestCase {
    func testPeopleAndMailFromTheCommandLineAreAudited() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func run(_ arguments: [String], _ environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
            try ServerProcess.run(arguments, dataDirectory: directory, extraEnvironment: environment)
        }
        let stamp = UUID().uuidString.prefix(6).lowercased()
        let boss = "boss-\(stamp)@example.com", mina = "mina-\(stamp)@example.com"
        XCTAssertEqual(try run(["migrate", "--yes"]).status, 0)
        XCTAssertEqual(try run(["user", "create", "--admin", "--email", boss, "--nickname", "보스\(stamp)", "--password", "password1"]).status, 0)
        XCTAssertEqual(try run(["user", "create", "--email", mina, "--nickname", "미나\(stamp)", "--password", "password1"]).status, 0)

        let listed = try run(["user", "list", "--search", "mina-\(stamp)"])
        XCTAssertEqual(listed.status, 0, listed.output)
        XCTAssertTrue(listed.output.contains("\(mina)\t미나\(stamp)\tuser"), listed.output)
        XCTAssertFalse(listed.output.contains(boss), "the search narrows")

        let promoted = try run(["user", "promote", "--email", mina])
        XCTAssertEqual(promoted.status, 0, promoted.output)
        XCTAssertTrue(try run(["user", "list", "--search", "mina-\(stamp)"]).output.contains("\tadmin"))
        XCTAssertEqual(try run(["user", "demote", "--email", mina]).status, 0)
        let lastAdmin = try run(["user", "demote", "--email", boss])
        if TestDatabase.postgresURL == nil {  // the PostgreSQL suite's database may hold other tests' administrators
            XCTAssertNotEqual(lastAdmin.status, 0, "never the last administrator")
        }

        let noReason = try run(["user", "suspend", "--email", mina, "--reason", " "])
        XCTAssertNotEqual(noReason.status, 0, noReason.output)
        let suspended = try run(["user", "suspend", "--email", mina, "--reason", "광고 도배"])
        XCTAssertEqual(suspended.status, 0, suspended.output)
        XCTAssertTrue(try run(["user", "list", "--search", "mina-\(stamp)"]).output.contains("\tsuspended"))
        let adminSuspended = try run(["user", "suspend", "--email", boss, "--reason", "x"])
        XCTAssertNotEqual(adminSuspended.status, 0, "an administrator is not suspended")
        XCTAssertEqual(try run(["user", "unsuspend", "--email", mina]).status, 0)
        let unknown = try run(["user", "promote", "--email", "nobody-\(stamp)@example.com"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.output.contains("no account has the address"), unknown.output)

        let mailed = try run(["mail", "test", "--to", mina])
        XCTAssertEqual(mailed.status, 0, mailed.output)
        XCTAssertTrue(mailed.output.contains("Sent by log"), mailed.output)
        let noMail = try run(["mail", "test", "--to", mina], ["MAIL_DELIVERY": "none"])
        XCTAssertNotEqual(noMail.status, 0)
        XCTAssertTrue(noMail.output.contains("sends no mail"), noMail.output)

        let server = try ServerProcess(dataDirectory: directory)
        defer { server.stop(signal: SIGTERM) }
        try await server.waitUntilHealthy()
        let suspendedLogin = try await server.post("/api/v1/auth/login", json: ["email": mina, "password": "password1"])
        XCTAssertEqual(suspendedLogin.status, .ok, "the suspension was lifted: \(suspendedLogin.text)")
        let operatorLogin = try await server.post("/api/v1/auth/login", json: ["email": boss, "password": "password1"])
        let audit = try await server.get("/api/v1/admin/audit?limit=50", token: try XCTUnwrap(operatorLogin.json["accessToken"] as? String))
        let entries = audit.json["items"] as? [[String: Any]] ?? []
        let actions = entries.compactMap { $0["action"] as? String }
        for action in ["accounts.role.change", "accounts.account.suspend", "accounts.account.unsuspend", "operations.mail.test"] {
            XCTAssertTrue(actions.contains(action), "\(action) in \(actions)")
        }
    }
}
