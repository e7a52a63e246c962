import Fluent
import NIOConcurrencyHelpers
@testable import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// The durable queue: work survives in the database until a handler finishes it, runs once however
/// many instances claim, and failing work is tried again, backing off, until it is given up. Each
/// test runs a queue of its own (its own kinds, a clock it moves) beside the app's.
final class WorkQueueTests: XCTestCase {
    struct Payload: Codable, Equatable { let name: String; let number: Int }

    /// What a handler saw, in order.
    final class Seen: Sendable {
        private let items = NIOLockedValueBox<[Payload]>([])
        func add(_ payload: Payload) { items.withLockedValue { $0.append(payload) } }
        var all: [Payload] { items.withLockedValue { $0 } }
    }

    func testWorkRunsWhenDueWithItsPayloadAndThenGoes() async throws {
        try await withTestApp { app in
            let clock = TestClock()
            let queue = WorkQueue(clock: { clock.now })
            let seen = Seen()
            queue.register("test.record") { _, item in
                seen.add(try item.decode(Payload.self))
                return .done
            }
            try await queue.enqueue("test.record", Payload(name: "지금", number: 1), on: app.db)
            try await queue.enqueue("test.record", Payload(name: "나중", number: 2), after: 30, on: app.db)
            let ranNow = await queue.runDue(app)
            XCTAssertEqual(ranNow, 1)
            XCTAssertEqual(seen.all, [Payload(name: "지금", number: 1)])
            let waiting = try await app.rowCount(WorkQueueStore.table)
            XCTAssertEqual(waiting, 1, "the one done is gone; the later one waits")

            clock.advance(by: 29)
            let early = await queue.runDue(app)
            XCTAssertEqual(early, 0, "not before it is due")
            clock.advance(by: 1)
            let ranLater = await queue.runDue(app)
            XCTAssertEqual(ranLater, 1)
            XCTAssertEqual(seen.all.map(\.number), [1, 2])
            let left = try await app.rowCount(WorkQueueStore.table)
            XCTAssertEqual(left, 0)
        }
    }

    func testFailingWorkIsTriedAgainBackingOffAndGivenUpAtLast() async throws {
        try await withTestApp { app in
            let clock = TestClock()
            let queue = WorkQueue(maxAttempts: 4, clock: { clock.now })
            let attempts = NIOLockedValueBox(0)
            // Fails twice, then works: the third try finishes it.
            queue.register("test.flaky") { _, _ in
                let attempt = attempts.withLockedValue { $0 += 1; return $0 }
                if attempt < 3 { throw Abort(.serviceUnavailable) }
                return .done
            }
            try await queue.enqueue("test.flaky", Payload(name: "x", number: 0), on: app.db)
            let first = await queue.runDue(app)
            XCTAssertEqual(first, 1)
            let again = await queue.runDue(app)
            XCTAssertEqual(again, 0, "a failure waits out its backoff")
            clock.advance(by: WorkQueue.backoff(afterAttempts: 1))
            await queue.runDue(app)
            XCTAssertEqual(attempts.withLockedValue { $0 }, 2)
            let afterSecond = await queue.runDue(app)
            XCTAssertEqual(afterSecond, 0)
            XCTAssertEqual(WorkQueue.backoff(afterAttempts: 2), 2 * WorkQueue.backoff(afterAttempts: 1), "the wait doubles")
            clock.advance(by: WorkQueue.backoff(afterAttempts: 2))
            await queue.runDue(app)
            XCTAssertEqual(attempts.withLockedValue { $0 }, 3)
            let finished = try await app.rowCount(WorkQueueStore.table)
            XCTAssertEqual(finished, 0, "the third try finished it")

            // Work that never succeeds is dropped after `maxAttempts` tries.
            queue.register("test.broken") { _, _ in throw Abort(.badGateway) }
            try await queue.enqueue("test.broken", Payload(name: "y", number: 0), on: app.db)
            for attempt in 1...4 {
                await queue.runDue(app)
                let stored = try await app.rowCount(WorkQueueStore.table)
                XCTAssertEqual(stored, attempt < 4 ? 1 : 0, "after attempt \(attempt)")
                clock.advance(by: 3600)
            }
        }
    }

    func testAskingToWaitPutsOffWithoutCountingAFailure() async throws {
        try await withTestApp { app in
            let clock = TestClock()
            let queue = WorkQueue(clock: { clock.now })
            let runs = NIOLockedValueBox(0)
            queue.register("test.later") { _, item in
                XCTAssertEqual(item.attempts, 0)
                return runs.withLockedValue { $0 += 1; return $0 } == 1 ? .retry(after: 60) : .done
            }
            try await queue.enqueue("test.later", Payload(name: "z", number: 0), on: app.db)
            await queue.runDue(app)
            clock.advance(by: 59)
            let early = await queue.runDue(app)
            XCTAssertEqual(early, 0)
            clock.advance(by: 1)
            let due = await queue.runDue(app)
            XCTAssertEqual(due, 1)
            XCTAssertEqual(runs.withLockedValue { $0 }, 2)
        }
    }


    /// A handler asking to run again a rounding hair from now (a chat notice whose line reads a
    /// microsecond younger than it is) runs once a pass, not again and again while the clock stands.
    func testAskingForNoWaitAtAllDoesNotSpin() async throws {
        try await withTestApp { app in
            let clock = TestClock()
            let queue = WorkQueue(clock: { clock.now })
            let runs = NIOLockedValueBox(0)
            // Gives in after five runs, so a queue that spins ends (and this test fails) rather than hangs.
            queue.register("test.impatient") { _, _ in
                runs.withLockedValue { $0 += 1; return $0 } < 5 ? .retry(after: 1e-9) : .done
            }
            try await queue.enqueue("test.impatient", Payload(name: "곧", number: 0), on: app.db)
            let ran = await queue.runDue(app)
            XCTAssertEqual(ran, 1, "claimed once in the pass")
            let again = await queue.runDue(app)
            XCTAssertEqual(again, 0, "not due while the clock stands")
            clock.advance(by: WorkQueue.shortestRetry)
            let later = await queue.runDue(app)
            XCTAssertEqual(later, 1)
            XCTAssertEqual(runs.withLockedValue { $0 }, 2)
        }
    }
    /// Two instances claiming at once (two queues on one database) run each item once.
    func testTwoClaimersRunEachItemOnce() async throws {
        try await withTestApp { app in
            let runs = NIOLockedValueBox<[Int: Int]>([:])
            let queues = [WorkQueue(batchSize: 7), WorkQueue(batchSize: 7)]
            for queue in queues {
                queue.register("test.once") { _, item in
                    let number = try item.decode(Payload.self).number
                    try await Task.sleep(for: .milliseconds(5))
                    runs.withLockedValue { $0[number, default: 0] += 1 }
                    return .done
                }
            }
            for number in 0..<40 { try await queues[0].enqueue("test.once", Payload(name: "n", number: number), on: app.db) }
            async let one = queues[0].runDue(app)
            async let two = queues[1].runDue(app)
            let ran = await one + two
            XCTAssertEqual(ran, 40)
            XCTAssertEqual(runs.withLockedValue { $0 }, Dictionary(uniqueKeysWithValues: (0..<40).map { ($0, 1) }))
        }
    }

    /// The app's own queue runs in the background: work enqueued for now runs without anyone asking.
    func testTheAppsQueueRunsWorkInTheBackground() async throws {
        try await withTestApp { app in
            let seen = Seen()
            app.workQueue.register("test.background") { _, item in
                seen.add(try item.decode(Payload.self))
                return .done
            }
            try await app.asyncBoot()
            try await app.workQueue.enqueue("test.background", Payload(name: "배경", number: 7), on: app.db)
            for _ in 0..<100 where seen.all.isEmpty { try await Task.sleep(for: .milliseconds(50)) }
            XCTAssertEqual(seen.all, [Payload(name: "배경", number: 7)])
        }
    }

    /// A slow item holds only its own slot (issue 56; probe 2026-12-05, finding 10: a batch waited
    /// for its slowest item before the next claim): work due meanwhile runs while it still runs,
    /// freed slots are filled, and never more than `batchSize` items run at once.
    func testASlowItemHoldsOnlyItsOwnSlot() async throws {
        try await withTestApp { app in
            let queue = WorkQueue(pollInterval: .milliseconds(20), batchSize: 3)
            let open = NIOLockedValueBox(false)
            let slow = NIOLockedValueBox((running: 0, most: 0, done: 0))
            let quick = Seen()
            queue.register("test.slow") { _, _ in
                slow.withLockedValue { $0.running += 1; $0.most = max($0.most, $0.running) }
                while !open.withLockedValue({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
                slow.withLockedValue { $0.running -= 1; $0.done += 1 }
                return .done
            }
            queue.register("test.quick") { _, item in
                quick.add(try item.decode(Payload.self))
                return .done
            }
            func waitFor(_ what: String, _ condition: () -> Bool) async throws {
                for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
                XCTAssertTrue(condition(), what)
            }
            for number in 0..<2 { try await queue.enqueue("test.slow", Payload(name: "느린", number: number), on: app.db) }
            let runner = Task { await queue.runDue(app) }
            try await waitFor("two slow items running") { slow.withLockedValue { $0.running } == 2 }

            try await queue.enqueue("test.quick", Payload(name: "빠른", number: 1), on: app.db)
            try await waitFor("the quick item ran") { quick.all.count == 1 }
            XCTAssertEqual(slow.withLockedValue { $0.done }, 0, "while the slow ones still ran")

            // Three more slow ones: one free slot of three takes one; the others wait for slots.
            for number in 2..<5 { try await queue.enqueue("test.slow", Payload(name: "느린", number: number), on: app.db) }
            try await waitFor("a third slow item running") { slow.withLockedValue { $0.running } == 3 }
            try await Task.sleep(for: .milliseconds(100))
            XCTAssertEqual(slow.withLockedValue { $0.running }, 3, "no more than three at once")
            open.withLockedValue { $0 = true }
            let ran = await runner.value
            XCTAssertEqual(ran, 6)
            XCTAssertEqual(slow.withLockedValue { $0.most }, 3)
            XCTAssertEqual(slow.withLockedValue { $0.done }, 5)
            let left = try await app.rowCount(WorkQueueStore.table)
            XCTAssertEqual(left, 0)
        }
    }
}
