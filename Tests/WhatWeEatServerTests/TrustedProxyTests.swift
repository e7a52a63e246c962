import Banchan
import BurgerMap
import LookForRealBurgerApp
import Platform
import SesacStudyApp
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// Behind a reverse proxy every request comes from the proxy's address. With `TRUSTED_PROXIES`
/// naming it, per-address budgets count the client `X-Forwarded-For` names; from anyone else the
/// header is ignored, so a client cannot buy itself new budgets by writing it. Instances on one
/// PostgreSQL database share the budgets. `INSTANCE_NAME` comes back as `X-Served-By`.
final class TrustedProxyTests: XCTestCase {
    func lookUp(_ server: ServerProcess, forwardedFor: String?) async throws -> HTTPResponseStatus {
        let headers: HTTPHeaders = forwardedFor.map { ["X-Forwarded-For": $0] } ?? [:]
        return try await server.send(.GET, "/api/v1/auth/email-available?email=someone@example.com", json: String?.none, headers: headers).status
    }

    func testBudgetsCountTheForwardedClientOnlyFromATrustedProxy() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let behindProxy = try ServerProcess(dataDirectory: directory, extraEnvironment: [
            "AUTH_ATTEMPTS_PER_MINUTE": "2", "TRUSTED_PROXIES": "127.0.0.1", "INSTANCE_NAME": "web-1",
        ])
        defer { behindProxy.stop(signal: SIGINT) }
        try await behindProxy.waitUntilHealthy()

        // Two clients behind the proxy: each has its own two look-ups a minute.
        for client in ["203.0.113.7", "198.51.100.20"] {
            for _ in 0..<2 {
                let status = try await lookUp(behindProxy, forwardedFor: client)
                XCTAssertEqual(status, .ok, client)
            }
            let third = try await lookUp(behindProxy, forwardedFor: client)
            XCTAssertEqual(third, .tooManyRequests, client)
        }
        // A client that prepends a made-up address is still counted as itself (the rightmost one).
        let spoofed = try await lookUp(behindProxy, forwardedFor: "192.0.2.1, 203.0.113.7")
        XCTAssertEqual(spoofed, .tooManyRequests)

        let served = try await behindProxy.send(.GET, "/healthz", json: String?.none, headers: [:])
        XCTAssertEqual(served.status, .ok)

        // Without TRUSTED_PROXIES the header changes nothing: one address, one budget.
        let otherDirectory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: otherDirectory) }
        let direct = try ServerProcess(dataDirectory: otherDirectory, extraEnvironment: ["AUTH_ATTEMPTS_PER_MINUTE": "2"])
        defer { direct.stop(signal: SIGINT) }
        try await direct.waitUntilHealthy()
        for (index, client) in ["203.0.113.7", "198.51.100.20", "192.0.2.55"].enumerated() {
            let status = try await lookUp(direct, forwardedFor: client)
            XCTAssertEqual(status, index < 2 ? .ok : .tooManyRequests, "a written X-Forwarded-For is not trusted")
        }
        // A proxy the server was not told of is named in the log, once (issue 37, item 5).
        try await waitUntil { direct.output().contains("TRUSTED_PROXIES does not name it") }
        XCTAssertEqual(direct.output().components(separatedBy: "TRUSTED_PROXIES does not name it").count - 1, 1, "warned once")
        XCTAssertFalse(behindProxy.output().contains("TRUSTED_PROXIES does not name it"), "a trusted proxy is no reason to warn")
    }

    /// Instances on one PostgreSQL database count one budget: three look-ups a minute in all,
    /// whichever instance answers.
    func testInstancesOnPostgreSQLShareOneBudget() async throws {
        try XCTSkipIf(TestDatabase.postgresURL == nil, "needs PostgreSQL; the CI's PostgreSQL pass runs it")
        let directories = try (0..<2).map { _ in try TestDatabase.temporaryDirectory() }
        defer { for directory in directories { try? FileManager.default.removeItem(atPath: directory) } }
        let first = try ServerProcess(dataDirectory: directories[0], extraEnvironment: ["AUTH_ATTEMPTS_PER_MINUTE": "3"])
        defer { first.stop(signal: SIGINT) }
        try await first.waitUntilHealthy()
        let second = try ServerProcess(dataDirectory: directories[1], extraEnvironment: ["AUTH_ATTEMPTS_PER_MINUTE": "3"])
        defer { second.stop(signal: SIGINT) }
        try await second.waitUntilHealthy()

        var statuses: [HTTPResponseStatus] = []
        for index in 0..<6 {
            statuses.append(try await lookUp(index.isMultiple(of: 2) ? first : second, forwardedFor: nil))
        }
        XCTAssertEqual(statuses, [.ok, .ok, .ok, .tooManyRequests, .tooManyRequests, .tooManyRequests])
    }

    func testInstanceNameComesBackAsXServedBy() async throws {
        try await withTestApp(adjust: { $0.instanceName = "web-2" }) { app in
            let answer = try await app.send(.GET, "/healthz")
            XCTAssertEqual(answer.headers.first(name: "X-Served-By"), "web-2")
        }
        try await withTestApp { app in
            let answer = try await app.send(.GET, "/healthz")
            XCTAssertNil(answer.headers.first(name: "X-Served-By"))
        }
    }
}
