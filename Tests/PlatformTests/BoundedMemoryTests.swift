import Foundation
@testable import Platform
import XCTest

/// The memory kit (issue 59): a locked dictionary that never outgrows its capacity, drops what
/// has expired before it starts over, refuses reads that raced a change, and says so in `/metrics`.
final class BoundedMemoryTests: XCTestCase {
    private func metric(_ name: String, _ memory: String) -> Double? {
        let prefix = "\(name){memory=\"\(memory)\"} "
        return AppMetrics.prometheusText().split(separator: "\n").first { $0.hasPrefix(prefix) }
            .flatMap { Double($0.dropFirst(prefix.count)) }
    }

    func testAFullMemoryStartsOverAndCountsIt() {
        AppMetrics.start()
        let name = "test_full_\(UUID().uuidString.prefix(8))"
        let memory = BoundedMemory<Int, String>(name: name, capacity: 3)
        XCTAssertEqual(metric("whatweeat_memory_starts_over_total", name), 0, "present at zero from the start")
        for key in 0..<3 { memory.keep("v\(key)", for: key) }
        XCTAssertEqual(memory.count, 3)
        memory.keep("again", for: 1)
        XCTAssertEqual(memory.count, 3, "a kept key changes in place")
        XCTAssertEqual(metric("whatweeat_memory_starts_over_total", name), 0)
        memory.keep("v3", for: 3)
        XCTAssertEqual(memory.count, 1, "a new key in a full memory: it starts over")
        XCTAssertEqual(memory[3], "v3")
        XCTAssertNil(memory[0])
        XCTAssertEqual(metric("whatweeat_memory_starts_over_total", name), 1)
        XCTAssertEqual(metric("whatweeat_memory_entries", name), 1)
        for key in 0..<10_000 { memory.keep("x", for: key) }
        XCTAssertLessThanOrEqual(memory.count, 3, "however many keys arrive")
    }

    func testWhatHasExpiredIsDroppedBeforeItStartsOver() {
        let memory = BoundedMemory<String, Int>(name: "test_stale", capacity: 3)
        memory.keep(1, for: "old")
        memory.keep(10, for: "fresh")
        memory.keep(2, for: "old too")
        memory.keep(11, for: "new", stale: { $0 < 10 })
        XCTAssertEqual(memory.count, 2)
        XCTAssertEqual(memory["fresh"], 10, "what has not expired stays")
        XCTAssertEqual(memory["new"], 11)
        XCTAssertNil(memory["old"])
    }

    func testAReadThatRacedAForgetIsNotKept() {
        let memory = BoundedMemory<String, Int>(name: "test_generation", capacity: 10)
        let before = memory.generation
        memory.forget("someone")  // a change lands while the read is on its way
        memory.keep(1, for: "someone", readAt: before)
        XCTAssertNil(memory["someone"], "stale read dropped")
        memory.keep(2, for: "someone", readAt: memory.generation)
        XCTAssertEqual(memory["someone"], 2)
        let many = memory.generation
        memory.forget(nil)
        memory.keep(["a": 1, "b": 2], readAt: many)
        XCTAssertEqual(memory.count, 0, "a batch read before forgetting everyone is dropped too")
    }

    func testUpdatesAndBatchReadsWorkUnderTheLock() {
        let memory = BoundedMemory<String, [Int]>(name: "test_update", capacity: 2)
        let first = memory.update("a") { entry -> Int in
            entry = (entry ?? []) + [1]
            return entry!.count
        }
        XCTAssertEqual(first, 1)
        memory.update("a") { $0?.append(2) }
        XCTAssertEqual(memory["a"], [1, 2])
        memory.update("a") { $0 = nil }
        XCTAssertNil(memory["a"], "nil removes it")
        memory.keep(["x": [1], "y": [2]], readAt: memory.generation)
        let read = memory.values(for: ["x", "y", "z", "x"]) { $0 != [2] }
        XCTAssertEqual(read.found, ["x": [1]])
        XCTAssertEqual(read.missing, ["y", "z"], "unusable and missing, each once")
        memory.keep(["z": [3]], readAt: read.generation)
        XCTAssertEqual(memory.count, 1, "a batch that would overfill starts over first")
    }

    /// A budget's slots are the only record of them: a full memory drops only what expired, so a
    /// crowd of new keys cannot hand a key still in its window a fresh budget.
    func testABudgetThatFillsUpForgetsNobodyStillInTheirWindow() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let limiter = RateLimiter(name: "test_full_budget", limit: 1, window: 60, clock: { start }, keysInMemory: 3)
        guard case .success = try await limiter.tryReserve("victim", now: start) else { return XCTFail("the first slot is free") }
        for key in 0..<10 { _ = try await limiter.tryReserve("other \(key)", now: start) }
        guard case .failure = try await limiter.tryReserve("victim", now: start.addingTimeInterval(30)) else {
            return XCTFail("ten other keys must not reset a key's budget inside its window")
        }
        // Once its window passed, an idle key may be dropped to make room, and its budget is free again.
        for key in 0..<3 { _ = try await limiter.tryReserve("later \(key)", now: start.addingTimeInterval(61)) }
        guard case .success = try await limiter.tryReserve("victim", now: start.addingTimeInterval(61)) else {
            return XCTFail("after its window the key has its budget again")
        }
        let memory = BoundedMemory<String, Int>(name: "test_no_start_over", capacity: 2, startsOverWhenFull: false)
        memory.keep(1, for: "a")
        memory.keep(2, for: "b")
        memory.keep(3, for: "c", stale: { $0 < 0 })
        XCTAssertEqual(memory.count, 3, "nothing expired: nothing is forgotten")
        memory.keep(4, for: "d", stale: { $0 < 3 })
        XCTAssertEqual(memory.count, 2, "what expired goes")
    }
}
