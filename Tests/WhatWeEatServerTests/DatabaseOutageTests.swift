import Foundation
import NIOHTTP1
import Notifications
import Platform
import WhatWeEatServer
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTest

/// What cannot be done now is 503 with `Retry-After` ("try again in a moment", nothing changed),
/// never 500, and all work resumes when the database is back (issue 56; the operator's
/// walk-through saw 500 `internal_error` while PostgreSQL restarted).
final class DatabaseOutageTests: XCTestCase {
    /// PostgreSQL goes away under load (through a forwarder the test takes down and brings back):
    /// every write in the outage is 503 with `Retry-After`, none 500, and writes succeed again after.
    func testWritesWhileThePostgreSQLServerIsAwayAre503AndResumeWhenItReturns() async throws {
        guard let suiteURL = TestDatabase.postgresURL else {
            throw XCTSkip("needs PostgreSQL; the CI's PostgreSQL pass runs it")
        }
        let target = try XCTUnwrap(URLComponents(string: suiteURL))
        let proxy = try OutageProxy(host: try XCTUnwrap(target.host), port: try XCTUnwrap(target.port))
        defer { proxy.stop() }
        // A fresh copy of the suite's database, then the server reaches it through the forwarder.
        try await DatabaseTemplate.shared.provision(TestDatabase.settings(dataDirectory: try TestDatabase.temporaryDirectory()), features: Features.all)
        var throughProxy = target
        throughProxy.port = proxy.port
        let proxiedURL = try XCTUnwrap(throughProxy.string)
        try await withListeningApp(adjust: { $0.database = .postgres(url: proxiedURL) }) { app, port in
            // The writers save preferences for as long as the outage lasts, far past an account's
            // hourly budget: a budget as wide as the test (still taken from the shared table, so
            // the outage reaches it too).
            app.pushLimits = PushLimits(subscriptions: app.pushLimits.subscriptions,
                                        preferences: RateLimiter(name: "push_preferences", limit: 1_000_000, window: 3600, shared: app.sharedBudgets))
            let member = try await app.member("버티는사람")
            let client = PortClient(port: port)
            let outcomes = OutcomeTally()
            let writers = Task {
                await withTaskGroup(of: Void.self) { group in
                    for writer in 0..<4 {
                        group.addTask {
                            // Each writer finishes the request it sent before it stops: none is left in
                            // flight when the app shuts down.
                            while !outcomes.stopped {
                                let reply = try? await client.send(.PUT, "/api/v1/push/preferences", json: ConcurrentWritesTests.preferences, token: member.token)
                                outcomes.note(reply, writer: writer)
                                try? await Task.sleep(nanoseconds: 20_000_000)
                            }
                        }
                    }
                }
            }
            try await waitUntil { outcomes.count(200) >= 8 }
            try proxy.send("down")
            try await waitUntil { outcomes.count(503) >= 8 }
            try proxy.send("up")
            let okBeforeReturn = outcomes.count(200)
            try await waitUntil(timeout: .seconds(30)) { outcomes.count(200) >= okBeforeReturn + 8 }
            outcomes.stop()
            _ = await writers.value
            XCTAssertEqual(outcomes.count(500), 0, "\(outcomes.summary)")
            XCTAssertTrue(outcomes.every503HadRetryAfter, "\(outcomes.summary)")
            XCTAssertEqual(outcomes.codesOf503, ["service_unavailable"])
            // The inbox of the live page (LISTEN) came back as well: an event published now is heard.
            let ready = try await client.send(.GET, "/readyz")
            XCTAssertEqual(ready.status, .ok)
        }
    }

    /// SQLite: another process holds the write lock past the busy timeout. A write waits its turn,
    /// then answers 503 with `Retry-After` (not 500, not a lost change), and succeeds once the lock
    /// is let go.
    func testAWriteThatWaitsPastTheBusyTimeoutIs503AndTheNextOneIsKept() async throws {
        try XCTSkipIf(TestDatabase.postgresURL != nil, "SQLite's write lock; the SQLite pass runs it")
        try await withListeningApp { app, port in
            let member = try await app.member("기다리는사람")
            guard case .sqlite(let path) = app.settings.database else { return XCTFail("not SQLite") }
            let holder = try LockHolder(database: path, seconds: Double(DatabaseFailure.sqliteBusyTimeoutMilliseconds) / 1000 + 3)
            defer { holder.stop() }
            let client = PortClient(port: port)
            var json = ConcurrentWritesTests.preferences
            json["requests"] = true
            let waited = try await client.send(.PUT, "/api/v1/push/preferences", json: json, token: member.token)
            XCTAssertEqual(waited.status, .serviceUnavailable, waited.text)
            XCTAssertEqual(waited.errorCode, "service_unavailable")
            XCTAssertNotNil(waited.headers.first(name: "Retry-After"))
            try holder.waitForRelease()
            let kept = try await client.send(.PUT, "/api/v1/push/preferences", json: json, token: member.token)
            XCTAssertEqual(kept.status, .ok, kept.text)
            let read = try await app.send(.GET, "/api/v1/push/preferences", token: member.token)
            XCTAssertEqual(try read.object()["requests"] as? Bool, true)
        }
    }
}

/// What writers got while the database came and went.
private final class OutcomeTally: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [UInt: Int] = [:]
    private var retryAfterMissing = 0
    private var codes: Set<String> = []
    private var stopRequested = false

    var stopped: Bool { lock.withLock { stopRequested } }
    func stop() { lock.withLock { stopRequested = true } }

    func note(_ reply: PortClient.Reply?, writer: Int) {
        guard let reply else { return }
        lock.withLock {
            statuses[reply.status.code, default: 0] += 1
            if reply.status == .serviceUnavailable {
                if reply.headers.first(name: "Retry-After") == nil { retryAfterMissing += 1 }
                codes.insert(reply.errorCode ?? "(none)")
            }
        }
    }

    func count(_ status: UInt) -> Int { lock.withLock { statuses[status] ?? 0 } }
    var every503HadRetryAfter: Bool { lock.withLock { retryAfterMissing == 0 } }
    var codesOf503: Set<String> { lock.withLock { codes } }
    var summary: String { lock.withLock { "\(statuses), 503 without Retry-After: \(retryAfterMissing)" } }
}

/// `Tests/support/outage_proxy.py`: a forwarder to the test's PostgreSQL that can be taken down.
private final class OutageProxy: @unchecked Sendable {
    let port: Int
    private let process = Process()
    private let input = Pipe(), output = Pipe()

    init(host: String, port: Int) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("support/outage_proxy.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, host, String(port)]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let ready = try Self.line(from: output)
        guard ready.hasPrefix("ready "), let listening = Int(ready.dropFirst(6)) else { throw ProxyFailure("outage proxy: \(ready)") }
        self.port = listening
    }

    /// "down" or "up", and waits until the forwarder says it is done.
    func send(_ command: String) throws {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        let answer = try Self.line(from: output)
        guard answer == command else { throw ProxyFailure("outage proxy answered \(answer)") }
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    private static func line(from pipe: Pipe) throws -> String {
        var bytes: [UInt8] = []
        while true {
            let byte = pipe.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first else { throw ProxyFailure("outage proxy ended") }
            if first == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(first)
        }
    }
}

/// Another process (Python's sqlite3) that holds the database's write lock for a while.
private final class LockHolder: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()

    init(database: String, seconds: Double) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute('BEGIN IMMEDIATE')
            print('locked', flush=True)
            time.sleep(float(sys.argv[2]))
            c.execute('COMMIT')
            print('released', flush=True)
            """, database, String(seconds)]
        process.standardOutput = output
        try process.run()
        guard try readLine() == "locked" else { throw ProxyFailure("the lock holder did not lock") }
    }

    func waitForRelease() throws {
        guard try readLine() == "released" else { throw ProxyFailure("the lock holder did not release") }
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    private func readLine() throws -> String {
        var bytes: [UInt8] = []
        while true {
            guard let byte = output.fileHandleForReading.readData(ofLength: 1).first else { throw ProxyFailure("lock holder ended") }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}

private struct ProxyFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
