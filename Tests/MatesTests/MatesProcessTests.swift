import MatesTesting
import NIOConcurrencyHelpers
import Platform
import SesacStudyApp
import SocketIO
import WhatWeEatTesting
import XCTVapor

/// Chat lines are stored before they are acknowledged: a server killed with SIGKILL while two
/// people write loses none of the lines it answered 201 for.
final class MatesProcessTests: XCTestCase {
    struct Account { let id: String; let token: String }

    func signUpVerified(_ server: ServerProcess, _ name: String) async throws -> Account {
        // On PostgreSQL the suite's database outlives this process: names must be new each run.
        let run = UUID().uuidString.prefix(6).lowercased()
        let email = "mates-\(run)@example.com"
        let signedUp = try await server.post("/api/v1/auth/signup", json: ["email": email, "password": "password1", "nickname": "\(name)\(run)"])
        XCTAssertEqual(signedUp.status, .created)
        let token = try XCTUnwrap(signedUp.json["accessToken"] as? String)
        let me = try await server.get("/api/v1/me", token: token)
        let id = try XCTUnwrap(me.json["id"] as? String)
        let phone = "+8210" + String(format: "%08d", Int.random(in: 0..<100_000_000))
        let sent = try await server.send(.POST, "/api/v1/mates/verification", json: ["channel": "phone", "destination": phone], token: token)
        XCTAssertEqual(sent.status, .accepted)
        // The default code sender writes the code to the server's log.
        var code: String?
        try? await waitUntil {
            code = server.output().split(separator: "\n").last { $0.contains(phone) }?.split(separator: " ").last.map(String.init)
            return code != nil
        }
        let confirmed = try await server.send(.POST, "/api/v1/mates/verification/confirm", json: ["destination": phone, "code": try XCTUnwrap(code)],
                                              token: token)
        XCTAssertEqual(confirmed.status, .ok)
        let profile = try await server.send(.PUT, "/api/v1/mates/profile", json: ["birthYear": 1995], token: token)
        XCTAssertEqual(profile.status, .ok)
        return Account(id: id, token: token)
    }

    func testKillDashNineLosesNoAcknowledgedChatLine() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Every sign-up of this test comes from one address.
        let environment = ["LOG_LEVEL": "notice", "AUTH_ATTEMPTS_PER_MINUTE": "1000000"]
        let server = try ServerProcess(dataDirectory: directory, extraEnvironment: environment)
        try await server.waitUntilHealthy()
        let mina = try await signUpVerified(server, "미나")
        // A second code at once: codes are one a minute per inbox and account, not per network.
        let joon = try await signUpVerified(server, "준호")

        struct Queue: Encodable { let lat: Double; let lon: Double; let topics: [String] }
        _ = try await server.send(.POST, "/api/v1/mates/queue", json: Queue(lat: 37.5665, lon: 126.978, topics: []), token: mina.token)
        _ = try await server.send(.POST, "/api/v1/mates/queue", json: Queue(lat: 37.5666, lon: 126.978, topics: []), token: joon.token)
        let asked = try await server.send(.POST, "/api/v1/mates/requests", json: ["to": joon.id], token: mina.token)
        let request = try XCTUnwrap(asked.json["id"] as? String)
        let accepted = try await server.send(.POST, "/api/v1/mates/requests/\(request)/accept", json: [String: String](), token: joon.token)
        let match = try XCTUnwrap(accepted.json["matchId"] as? String)

        let acknowledged = NIOLockedValueBox<[String]>([])
        let writers = Task {
            await withTaskGroup(of: Void.self) { group in
                for (writer, account) in [mina, joon, mina, joon].enumerated() {
                    group.addTask {
                        var index = 0
                        while !Task.isCancelled {
                            index += 1
                            guard let reply = try? await server.send(.POST, "/api/v1/mates/chat/\(match)/messages",
                                                                     json: ["text": "줄 \(writer)-\(index)"], token: account.token)
                            else { return }
                            if reply.status == .created, let id = reply.json["id"] as? String { acknowledged.withLockedValue { $0.append(id) } }
                        }
                    }
                }
            }
        }
        while acknowledged.withLockedValue({ $0.count }) < 40 { try await Task.sleep(for: .milliseconds(20)) }
        server.stop(signal: SIGKILL)
        await writers.value
        let ids = Set(acknowledged.withLockedValue { $0 }.map { $0.lowercased() })

        let restarted = try ServerProcess(dataDirectory: directory, extraEnvironment: environment)
        defer { restarted.stop(signal: SIGINT) }
        try await restarted.waitUntilHealthy()
        var stored = Set<String>()
        var cursor: String?
        repeat {
            let page = try await restarted.get("/api/v1/mates/chat/\(match)/messages?limit=100" + (cursor.map { "&before=\($0)" } ?? ""), token: mina.token)
            XCTAssertEqual(page.status, .ok)
            for item in page.json["items"] as? [[String: Any]] ?? [] { if let id = item["id"] as? String { stored.insert(id.lowercased()) } }
            cursor = page.json["nextCursor"] as? String
        } while cursor != nil
        XCTAssertGreaterThanOrEqual(ids.count, 40)
        XCTAssertEqual(ids.subtracting(stored), [], "acknowledged lines lost after SIGKILL")
    }
}
