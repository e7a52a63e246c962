import Fluent
@testable import Payments
import Platform
import WhatWeEatTesting
import XCTVapor

/// `RefundStore` is the one owner of `payment_refunds`: every statement it has runs here (on
/// SQLite, and on PostgreSQL in CI's second pass). A payment is recorded once; a claim takes only
/// what is due and hides it for the lease; a settled refund stays settled.
final class RefundStoreTests: XCTestCase {
    private func request(_ payment: String, subject: String = "banchan_order:one") -> Refunds.Request {
        Refunds.Request(gateway: "portone", paymentID: payment, merchantUID: "m-\(payment)", subject: subject, reason: "test")
    }

    func testRecordingAndCounting() async throws {
        try await withTestApp { app in
            let store = RefundStore(database: app.db)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let first = UUID()
            let recorded = try await store.record(request("imp_1"), id: first, reason: "a cancelled order", now: now)
            XCTAssertTrue(recorded)
            let twice = try await store.record(request("imp_1"), id: UUID(), reason: "again", now: now)
            XCTAssertFalse(twice, "one payment is refunded once")
            _ = try await store.record(request("imp_2"), id: UUID(), reason: "another", now: now)
            _ = try await store.record(request("imp_3", subject: "banchan_order:two"), id: UUID(), reason: "elsewhere", now: now)

            let row = try await store.refund(paymentID: "imp_1")
            let found = try XCTUnwrap(row)
            XCTAssertEqual([found.gateway, found.paymentID, found.subject, found.reason], ["portone", "imp_1", "banchan_order:one", "a cancelled order"])
            XCTAssertEqual(found.id, first)
            XCTAssertEqual(found.merchantUID, "m-imp_1")
            XCTAssertEqual(found.attempts, 0)
            XCTAssertEqual(found.nextAttemptAt.timeIntervalSince1970, now.timeIntervalSince1970, accuracy: 0.001, "due at once")
            XCTAssertNil(found.doneAt)
            let none = try await store.refund(paymentID: "imp_404")
            XCTAssertNil(none)

            let count = try await store.count(subject: "banchan_order:one")
            XCTAssertEqual(count, 2)
            let open = try await store.openCount(subject: "banchan_order:one")
            XCTAssertEqual([open.total, open.open], [2, 2])
            let counts = try await store.counts()
            XCTAssertEqual([counts.pending, counts.failed], [3, 0])
        }
    }

    func testClaimsSettlementsAndFailures() async throws {
        try await withTestApp { app in
            let store = RefundStore(database: app.db)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let one = UUID(), two = UUID(), later = UUID()
            _ = try await store.record(request("imp_1"), id: one, reason: "r", now: now)
            _ = try await store.record(request("imp_2"), id: two, reason: "r", now: now)
            _ = try await store.record(request("imp_9"), id: later, reason: "r", now: now.addingTimeInterval(600))

            let onlyTwo = try await store.claimDue(only: two, limit: 5, now: now, leaseEnd: now.addingTimeInterval(60))
            XCTAssertEqual(onlyTwo.map(\.id), [two])
            let rest = try await store.claimDue(limit: 5, now: now, leaseEnd: now.addingTimeInterval(60))
            XCTAssertEqual(rest.map(\.id), [one], "the claimed one is hidden for its lease; the one due later is not due")
            let again = try await store.claimDue(limit: 5, now: now.addingTimeInterval(30), leaseEnd: now.addingTimeInterval(90))
            XCTAssertEqual(again.count, 0)

            try await store.recordFailure(one, attempts: 1, error: "provider down", nextAttemptAt: now.addingTimeInterval(30))
            let failed = try await store.refund(paymentID: "imp_1")
            XCTAssertEqual(failed?.attempts, 1)
            XCTAssertEqual(failed?.lastError, "provider down")
            let counts = try await store.counts()
            XCTAssertEqual([counts.pending, counts.failed], [3, 1])

            try await store.settle(two, outcome: "refunded", at: now)
            let settled = try await store.refund(paymentID: "imp_2")
            XCTAssertEqual(settled?.outcome, "refunded")
            XCTAssertEqual(settled?.attempts, 1)
            XCTAssertNotNil(settled?.doneAt)
            try await store.settle(two, outcome: "already_cancelled", at: now.addingTimeInterval(5))
            try await store.recordFailure(two, attempts: 7, error: "late", nextAttemptAt: now)
            let kept = try await store.refund(paymentID: "imp_2")
            XCTAssertEqual(kept?.outcome, "refunded", "a settled refund stays as it was")
            XCTAssertEqual(kept?.attempts, 1)
            XCTAssertNil(kept?.lastError)

            let dueAfterBackoff = try await store.claimDue(limit: 5, now: now.addingTimeInterval(700), leaseEnd: now.addingTimeInterval(760))
            XCTAssertEqual(Set(dueAfterBackoff.map(\.id)), [one, later], "settled refunds are never claimed")
            let open = try await store.openCount(subject: "banchan_order:one")
            XCTAssertEqual([open.total, open.open], [3, 2])
        }
    }
}
