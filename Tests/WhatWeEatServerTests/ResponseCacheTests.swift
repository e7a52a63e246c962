import Mates
import NIOConcurrencyHelpers
import Platform
import SocketIO
import WhatWeEatServer
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// `ResponseCache` keeps answers by key until a write, within a count and a byte budget: keys a
/// client chooses (a list's `limit`) cannot fill memory.
final class ResponseCacheTests: XCTestCase {
    /// Counts how often an answer is made, so a test can tell a kept answer from a new one.
    final class Maker: Sendable {
        private let made = NIOLockedValueBox(0)
        var count: Int { made.withLockedValue { $0 } }

        func text(_ length: Int) -> [String: String] {
            made.withLockedValue { $0 += 1 }
            return ["text": String(repeating: "x", count: length)]
        }
    }

    func testAnswersAreKeptUntilAWrite() async throws {
        let cache = ResponseCache()
        let maker = Maker()
        for _ in 1...3 { _ = try await cache.json("a") { maker.text(10) } }
        XCTAssertEqual(maker.count, 1)
        cache.invalidate()
        _ = try await cache.json("a") { maker.text(10) }
        XCTAssertEqual(maker.count, 2)
    }

    func testTheByteBudgetBoundsWhatIsKept() async throws {
        let cache = ResponseCache(maxBytes: 100)
        let maker = Maker()
        // Too large to keep: made for every reader, never stored.
        for _ in 1...2 {
            let response = try await cache.json("large") { maker.text(200) }
            XCTAssertGreaterThan(response.body.count, 200)
        }
        XCTAssertEqual(maker.count, 2)
        // Two answers of 60-odd bytes do not fit together: the second starts the cache over.
        _ = try await cache.json("a") { maker.text(50) }
        _ = try await cache.json("a") { maker.text(50) }
        XCTAssertEqual(maker.count, 3, "the first is kept")
        _ = try await cache.json("b") { maker.text(50) }
        _ = try await cache.json("b") { maker.text(50) }
        XCTAssertEqual(maker.count, 4, "the second is kept")
        _ = try await cache.json("a") { maker.text(50) }
        XCTAssertEqual(maker.count, 5, "the first went to make room")
    }

    func testReadersWhoMissTogetherWaitForOneAnswer() async throws {
        let cache = ResponseCache()
        let maker = Maker()
        let bodies = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    let response = try await cache.json("slow") {
                        try await Task.sleep(for: .milliseconds(200))
                        return maker.text(20)
                    }
                    return response.body.count
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(bodies.count, 10)
        XCTAssertEqual(Set(bodies).count, 1, "every reader got the same answer")
        XCTAssertEqual(maker.count, 1, "made once for ten readers")

        // A failed answer is nobody's: the next reader makes its own.
        struct Failure: Error {}
        do {
            _ = try await cache.json("failing") { () async throws -> [String: String] in throw Failure() }
            XCTFail("the error reaches the reader")
        } catch is Failure {}
        _ = try await cache.json("failing") { maker.text(5) }
        XCTAssertEqual(maker.count, 2)
    }
}
