import AsyncHTTPClient
import Banchan
import MenuGame
import MenuGameApp
import NIOConcurrencyHelpers
import Platform
import SesacStudyApp
import SocketIO
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// Runs the real `whatweeat` executable that `swift build` produced, as an operator would.
final class ProcessTests: XCTestCase {
    func testBadConfigurationStopsWithOneClearLine() throws {
        for (name, value) in [("PORT", "eighty"), ("LOG_LEVEL", "loud"), ("DATABASE_URL", "mysql://root@x/db"), ("JWT_SECRET", "short")] {
            let directory = try TestDatabase.temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let server = try ServerProcess(dataDirectory: directory, extraEnvironment: [name: value])
            server.process.waitUntilExit()
            XCTAssertEqual(server.process.terminationStatus, 1, "\(name)=\(value)")
            let lines = server.standardError().split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(name)=\(value): \(lines)")
            XCTAssertTrue(lines.first?.hasPrefix("whatweeat: invalid \(name)=") ?? false, "\(lines)")
        }
    }

    /// The 2026-11-26 probe, item 14: the data folder, the database (password hashes, chats,
    /// phone numbers) and backups were readable by every local user. The process sets its umask
    /// first: what it creates is its owner's alone, whoever started it with whatever umask.
    func testTheDataFolderAndEverythingInItAreTheOwnersAlone() async throws {
        let parent = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let directory = parent + "/data"
        func mode(_ path: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        let server = try ServerProcess(dataDirectory: directory)
        try await server.waitUntilHealthy()
        XCTAssertEqual(mode(directory), 0o700, "the data folder")
        // On PostgreSQL the data folder holds no database and no uploads (the test suite's second pass).
        let database = TestDatabase.postgresURL == nil ? ["whatweeat.sqlite", "whatweeat.sqlite-wal", "whatweeat.sqlite-shm", "uploads"] : []
        for name in database + ["jwt-secret"] {
            let path = directory + "/" + name
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), name)
            XCTAssertEqual(mode(path) & 0o077, 0, "\(name) is \(String(mode(path), radix: 8))")
        }
        server.stop(signal: SIGINT)
        guard TestDatabase.postgresURL == nil else { return }   // backups are of the SQLite file
        let backup = parent + "/backup.sqlite"
        let made = try ServerProcess.run(["backup", backup], dataDirectory: directory)
        XCTAssertEqual(made.status, 0, made.output)
        XCTAssertEqual(mode(backup) & 0o077, 0, "the backup is \(String(mode(backup), radix: 8))")
    }

    func testAccountsAndTokensSurviveARestart() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let email = "restart-\(UUID().uuidString.prefix(8))@example.com"

        let first = try ServerProcess(dataDirectory: directory)
        try await first.waitUntilHealthy()
        let signUp = try await first.post("/api/v1/auth/signup", json: ["email": email, "password": "password1", "nickname": "r\(UUID().uuidString.prefix(8))"])
        XCTAssertEqual(signUp.status, .created)
        let accessToken = try XCTUnwrap(signUp.json["accessToken"] as? String)
        first.stop(signal: SIGINT)

        let second = try ServerProcess(dataDirectory: directory)
        defer { second.stop(signal: SIGINT) }
        try await second.waitUntilHealthy()
        let login = try await second.post("/api/v1/auth/login", json: ["email": email, "password": "password1"])
        XCTAssertEqual(login.status, .ok, "the account is still there")
        let me = try await second.get("/api/v1/me", token: accessToken)
        XCTAssertEqual(me.status, .ok, "the generated secret was kept, so earlier tokens still verify")
    }

    /// Sign-ups run from eight clients while the server is killed with SIGKILL; after a restart
    /// every sign-up that was answered 201 must be there.
    /// This test signs up as fast as eight clients can from one address: lift the per-address budget.
    static let unthrottledSignUps = ["AUTH_ATTEMPTS_PER_MINUTE": "1000000"]

    func testKillDashNineLosesNoAcknowledgedWrite() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ServerProcess(dataDirectory: directory, extraEnvironment: Self.unthrottledSignUps)
        try await server.waitUntilHealthy()

        let acknowledged = NIOLockedValueBox<[String]>([])
        let run = UUID().uuidString.prefix(8)
        let writers = Task {
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        var index = 0
                        while !Task.isCancelled {
                            index += 1
                            let email = "k\(run)-\(writer)-\(index)@example.com"
                            guard let response = try? await server.post(
                                "/api/v1/auth/signup", json: ["email": email, "password": "password1", "nickname": "k\(run)\(writer)x\(index)"])
                            else { return }  // the server is gone
                            if response.status == .created { acknowledged.withLockedValue { $0.append(email) } }
                        }
                    }
                }
            }
        }
        // Let writes flow, then kill without warning while they are in flight.
        while acknowledged.withLockedValue({ $0.count }) < 40 { try await Task.sleep(for: .milliseconds(20)) }
        server.stop(signal: SIGKILL)
        await writers.value
        writers.cancel()
        let emails = acknowledged.withLockedValue { $0 }

        let restarted = try ServerProcess(dataDirectory: directory, extraEnvironment: Self.unthrottledSignUps)
        defer { restarted.stop(signal: SIGINT) }
        try await restarted.waitUntilHealthy()
        var lost: [String] = []
        for email in emails {
            let response = try await restarted.get("/api/v1/auth/email-available?email=\(email)")
            if response.json["available"] as? Bool != false { lost.append(email) }
        }
        XCTAssertGreaterThanOrEqual(emails.count, 40)
        XCTAssertEqual(lost, [], "\(lost.count) of \(emails.count) acknowledged sign-ups were lost")
    }

    /// A fresh process lists its counters at zero before anything happened (a missing series reads
    /// as "no data" and an alert on `increase()` misses the first event), and on PostgreSQL the
    /// pool's open and busy connections as the database sees them (issue 58, item 8).
    func testMetricsArePresentFromTheStart() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ServerProcess(dataDirectory: directory, extraEnvironment: ["INSTANCE_NAME": "metrics-\(UUID().uuidString.prefix(6))"])
        defer { server.stop(signal: SIGINT) }
        try await server.waitUntilHealthy()
        let text = try await server.get("/metrics").text
        for series in ["whatweeat_banchan_orders_placed_total 0", "whatweeat_password_resets_total 0", "whatweeat_push_sent_total 0",
                       "whatweeat_refund_failures_total 0", "whatweeat_burger_reviews_written_total 0", "whatweeat_mates_matches_total 0",
                       #"whatweeat_code_budget_exhausted_total{channel="sms"} 0"#, #"whatweeat_database_write_retries_total{reason="busy"} 0"#,
                       #"whatweeat_pruned_rows_total{what="sessions"} 0"#] {
            XCTAssertTrue(text.contains("\n" + series + "\n"), "\(series) in a fresh process's /metrics")
        }
        XCTAssertTrue(text.contains(#"whatweeat_work_done_total{kind=""#), "each kind of queued work has its series")
        XCTAssertTrue(text.contains("\nwhatweeat_db_connection_wait_seconds "), "the pool's wait, before the first probe")
        let onPostgres = TestDatabase.postgresURL != nil
        XCTAssertEqual(text.contains("\nwhatweeat_db_pool_connections_in_use "), onPostgres, "the pool's use where it is measured (PostgreSQL)")
        guard onPostgres else { return }
        // The probe runs every five seconds: the pool has connections open by then.
        var open = 0.0
        for _ in 0..<30 where open == 0 {
            try await Task.sleep(for: .milliseconds(500))
            let lines = try await server.get("/metrics").text.split(separator: "\n")
            open = lines.first { $0.hasPrefix("whatweeat_db_pool_connections_open ") }.flatMap { Double($0.split(separator: " ")[1]) } ?? 0
        }
        XCTAssertGreaterThan(open, 0, "the pool's connections, counted by their application_name")
    }
}
