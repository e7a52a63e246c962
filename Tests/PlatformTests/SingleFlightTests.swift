import NIOConcurrencyHelpers
@testable import Platform
import SocketIO
import WhatWeEatTesting
import XCTest

final class SingleFlightTests: XCTestCase {
    /// Fifty callers at once share one run; a caller after it ends starts a new one; a failure
    /// reaches every waiting caller and does not stick.
    func testCallersWhileItRunsShareOneRun() async throws {
        let flight = SingleFlight()
        let runs = NIOLockedValueBox(0)
        let work: @Sendable () async throws -> Void = {
            runs.withLockedValue { $0 += 1 }
            try await Task.sleep(for: .milliseconds(200))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 { group.addTask { try await flight.run(work) } }
            try await group.waitForAll()
        }
        XCTAssertEqual(runs.withLockedValue { $0 }, 1)
        try await flight.run(work)
        XCTAssertEqual(runs.withLockedValue { $0 }, 2)

        struct Broken: Error {}
        let failures = NIOLockedValueBox(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do { try await flight.run { try await Task.sleep(for: .milliseconds(100)); throw Broken() } } catch { failures.withLockedValue { $0 += 1 } }
                }
            }
        }
        XCTAssertEqual(failures.withLockedValue { $0 }, 10)
        try await flight.run(work)
        XCTAssertEqual(runs.withLockedValue { $0 }, 3, "a failed run is not remembered")
    }
}
