import AsyncHTTPClient
import Banchan
import BanchanApp
import NIOConcurrencyHelpers
import NIOWebSocket
import Platform
import SesacStudyApp
import SocketIO
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// SIGTERM, as systemd or a deploy sends it: live sockets are closed with 1012 so pages come
/// back, requests in flight finish, every answered write is stored, and the process exits 0.
final class ShutdownTests: XCTestCase {
    struct OrderItem: Encodable { let hash: String; let quantity: Int }
    struct OrderBody: Encodable { let items: [OrderItem] }

    /// Dishes with stock to spare, from the catalog the server loads.
    func dishesInStock() throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: "Resources/catalogs/banchan.json"))
        let dishes = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return dishes.filter { ($0["stock"] as? Int ?? 0) >= 40 }.compactMap { $0["hash"] as? String }
    }

    func testSigtermClosesSocketsWith1012KeepsEveryAnsweredOrderAndExitsZero() async throws {
        let directory = try TestDatabase.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let unthrottled = ["AUTH_ATTEMPTS_PER_MINUTE": "1000000"]
        let server = try ServerProcess(dataDirectory: directory, extraEnvironment: unthrottled)
        try await server.waitUntilHealthy()

        // Someone with the inbox open, live.
        let nickname = "sd\(UUID().uuidString.prefix(6).lowercased())"
        let signedUp = try await server.post("/api/v1/auth/signup", json: ["email": "\(nickname)@example.com", "password": "password1", "nickname": nickname])
        let token = try XCTUnwrap(signedUp.json["accessToken"] as? String, "\(signedUp.json)")
        let group = MultiThreadedEventLoopGroup.singleton
        let opened = group.any().makePromise(of: WebSocket.self)
        WebSocket.connect(to: "ws://127.0.0.1:\(server.port)/api/v1/notifications/live", headers: ["Authorization": "Bearer \(token)"],
                          on: group) { opened.succeed($0) }.cascadeFailure(to: opened)
        let socket = try await opened.futureResult.get()
        // The server counts the socket once its upgrade handler runs, a moment after the client has the 101.
        var metrics = try await server.send(.GET, "/metrics", json: String?.none, headers: [:])
        try? await waitUntil {
            metrics = try await server.send(.GET, "/metrics", json: String?.none, headers: [:])
            return metrics.text.contains(#"whatweeat_websockets_open{feature="notifications"} 1"#)
        }
        XCTAssertTrue(metrics.text.contains(#"whatweeat_websockets_open{feature="notifications"} 1"#), metrics.text)

        // Eight shoppers order as fast as they can; SIGTERM arrives in the middle.
        let dishes = try dishesInStock()
        XCTAssertGreaterThanOrEqual(dishes.count, 4)
        let answered = NIOLockedValueBox<[(order: String, device: String)]>([])
        let shoppers = Task {
            await withTaskGroup(of: Void.self) { tasks in
                for shopper in 0..<8 {
                    tasks.addTask {
                        let device = "shutdown-test-device-\(shopper)-\(UUID().uuidString.prefix(8))"
                        var index = 0
                        while !Task.isCancelled {
                            index += 1
                            let body = OrderBody(items: [OrderItem(hash: dishes[(shopper + index) % dishes.count], quantity: 1)])
                            guard let reply = try? await server.send(.POST, "/api/v1/banchan/orders", json: body,
                                                                     headers: ["X-Device-Token": device]) else { return }  // gone
                            if reply.status == .created, let id = reply.json["id"] as? String {
                                answered.withLockedValue { $0.append((id, device)) }
                            }
                        }
                    }
                }
            }
        }
        while answered.withLockedValue({ $0.count }) < 20 { try await Task.sleep(for: .milliseconds(20)) }
        kill(server.process.processIdentifier, SIGTERM)
        let exited = await server.waitForExit(timeout: .seconds(20))
        await shoppers.value

        XCTAssertTrue(exited, "the server should stop within its 10 s for requests in flight")
        XCTAssertEqual(server.process.terminationReason, .exit)
        XCTAssertEqual(server.process.terminationStatus, 0, server.standardError())
        try await socket.onClose.get()
        XCTAssertEqual(socket.closeCode, .unknown(1012), "pages are told to reconnect")

        let orders = answered.withLockedValue { $0 }
        let restarted = try ServerProcess(dataDirectory: directory, extraEnvironment: unthrottled)
        defer { restarted.stop(signal: SIGINT) }
        try await restarted.waitUntilHealthy()
        var lost: [String] = []
        for (order, device) in orders {
            let found = try await restarted.send(.GET, "/api/v1/banchan/orders/\(order)", json: String?.none, headers: ["X-Device-Token": device])
            if found.status != .ok { lost.append(order) }
        }
        XCTAssertEqual(lost, [], "\(lost.count) of \(orders.count) answered orders were lost")
    }
}
