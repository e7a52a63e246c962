import Foundation
import NIOHTTP1
import Platform
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTest

/// `whatweeat user reset-password` (issue 57): for someone locked out, an operator prints a
/// one-time link or sets a password; every session ends; both are audited; unknown addresses and
/// weak passwords are refused with one line.
final class ResetPasswordCommandTests: XCTestCase {
    func testTheCommandPrintsALinkOrSetsAPasswordAndBothAreAudited() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stamp = UUID().uuidString.prefix(6).lowercased()
        let email = "locked-\(stamp)@example.com", admin = "boss-\(stamp)@example.com"
        if TestDatabase.postgresURL == nil {  // the PostgreSQL suite's database is made already
            let elsewhere = directory + "/not-a-site"
            let nowhere = try ServerProcess.run(["user", "create", "--email", email, "--nickname", "잠긴\(stamp)", "--password", "password1"],
                                                dataDirectory: elsewhere)
            XCTAssertNotEqual(nowhere.status, 0, "no site here yet: the command makes none")
            XCTAssertTrue(nowhere.output.contains("no WhatWeEat data in"), nowhere.output)
            // Not the database, and not the folder or a secret in it either.
            XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere), "the wrong folder is left as it was")
            let backup = try ServerProcess.run(["backup", directory + "/b.sqlite"], dataDirectory: elsewhere)
            XCTAssertNotEqual(backup.status, 0)
            XCTAssertTrue(backup.output.contains("no WhatWeEat data in"), backup.output)
            XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere))
        }
        let migrated = try ServerProcess.run(["migrate", "--yes"], dataDirectory: directory)
        XCTAssertEqual(migrated.status, 0, migrated.output)
        let created = try ServerProcess.run(["user", "create", "--email", email, "--nickname", "잠긴\(stamp)", "--password", "password1"],
                                            dataDirectory: directory)
        XCTAssertEqual(created.status, 0, created.output)
        let boss = try ServerProcess.run(["user", "create", "--admin", "--email", admin, "--nickname", "보스\(stamp)", "--password", "password1"],
                                         dataDirectory: directory)
        XCTAssertEqual(boss.status, 0, boss.output)

        let unknown = try ServerProcess.run(["user", "reset-password", "--email", "nobody-\(stamp)@example.com"], dataDirectory: directory)
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.output.contains("no account has the address"), unknown.output)
        let weak = try ServerProcess.run(["user", "reset-password", "--email", email, "--password", "short"], dataDirectory: directory)
        XCTAssertNotEqual(weak.status, 0)
        XCTAssertTrue(weak.output.contains("8"), weak.output)

        let set = try ServerProcess.run(["user", "reset-password", "--email", email.uppercased(), "--password", "new-password-2"], dataDirectory: directory)
        XCTAssertEqual(set.status, 0, set.output)
        XCTAssertTrue(set.output.contains("every session of the account ended"), set.output)
        let printed = try ServerProcess.run(["user", "reset-password", "--email", email], dataDirectory: directory)
        XCTAssertEqual(printed.status, 0, printed.output)
        let link = try XCTUnwrap(printed.output.split(whereSeparator: \.isWhitespace).first { $0.contains("/reset-password?token=") }, printed.output)
        let token = try XCTUnwrap(URLComponents(string: String(link))?.queryItems?.first { $0.name == "token" }?.value)

        let server = try ServerProcess(dataDirectory: directory)
        defer { server.stop(signal: SIGTERM) }
        try await server.waitUntilHealthy()
        let old = try await server.post("/api/v1/auth/login", json: ["email": email, "password": "password1"])
        XCTAssertEqual(old.status, .unauthorized, "the password the command replaced")
        let new = try await server.post("/api/v1/auth/login", json: ["email": email, "password": "new-password-2"])
        XCTAssertEqual(new.status, .ok, new.text)
        let confirmed = try await server.post("/api/v1/auth/password-reset/confirm", json: ["token": token, "password": "third-password-3"])
        XCTAssertEqual(confirmed.status, .ok, "the printed link works: \(confirmed.text)")
        let afterLink = try await server.get("/api/v1/me", token: try XCTUnwrap(new.json["accessToken"] as? String))
        XCTAssertEqual(afterLink.status, .unauthorized, "following the link ended the other sessions")

        let operatorLogin = try await server.post("/api/v1/auth/login", json: ["email": admin, "password": "password1"])
        let audit = try await server.get("/api/v1/admin/audit?limit=20", token: try XCTUnwrap(operatorLogin.json["accessToken"] as? String))
        XCTAssertEqual(audit.status, .ok, audit.text)
        let actions = (audit.json["items"] as? [[String: Any]] ?? []).compactMap { $0["action"] as? String }
        XCTAssertTrue(actions.contains("accounts.password.set"), "\(actions)")
        XCTAssertTrue(actions.contains("accounts.password.reset_link"), "\(actions)")
    }
}
