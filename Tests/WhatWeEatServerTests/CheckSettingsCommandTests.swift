import Foundation
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTest

/// `whatweeat check-settings` (issue 58): an operator, or CI for deploy/compose.yaml, asks whether a
/// start would accept this environment, without starting, opening a database or making anything.
final class CheckSettingsCommandTests: XCTestCase {
    func testItSaysWhatAStartWouldDecideAndMakesNothing() throws {
        let parent = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let folder = parent + "/site"
        let production = ["APP_ENV": "production", "PUBLIC_URL": "https://eat.example.com", "MAIL_DELIVERY": "none",
                          "PAYMENT_GATEWAY": "none", "DATABASE_URL": "postgres://app:pw@db.internal:5432/whatweeat",
                          "JWT_SECRET": String(repeating: "s", count: 40), "INSTANCE_NAME": "web-7"]

        let accepted = try ServerProcess.run(["check-settings"], dataDirectory: folder, extraEnvironment: production)
        XCTAssertEqual(accepted.status, 0, accepted.output)
        XCTAssertTrue(accepted.output.contains("valid for production"), accepted.output)
        XCTAssertTrue(accepted.output.contains("PostgreSQL db.internal:5432/whatweeat"), accepted.output)
        XCTAssertTrue(accepted.output.contains("instance: web-7"), accepted.output)
        XCTAssertFalse(accepted.output.contains("pw@"), "no password in what it prints")
        XCTAssertFalse(accepted.output.contains("ssss"), "no secret in what it prints")

        var unsafe = production
        unsafe["JWT_SECRET"] = nil
        let refused = try ServerProcess.run(["check-settings"], dataDirectory: folder, extraEnvironment: unsafe)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.output.contains("JWT_SECRET"), refused.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder), "no data folder, secret or database was made")
    }
}
