import Fluent
@testable import Payments
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// `RefundStore` is the one owner of `payment_refunds`: every statement it has runs here (on
/// SQLite, and on PostgreSQL in CI's second pass). A payment is recorded once; a claim takes only
/// what is due and hides it for the lease; a settled refund stays settled.
final class RefundStoreTests: XCTestCase {
    /// Payments' own tables, and nothing of the site: the store is tested on its table alone.
    static let migrations: [any Migration] = [CreatePaymentRefunds(), AddPaymentRefundClaims(), AddPaymentRefundParts()]

    private func request(_ payment: String, subject: String = "banchan_order:one") -> Refunds.Request {
        Refunds.Request(gateway: "portone", paymentID: payment, merchantUID: "m-\(payment)", subject: subject, reason: "test")
    }

    /// Issue 61: a payment owes one refund a part (the whole, or one line of an order); the
    /// migration that allows parts keeps every refund recorded before it (SQLite builds the table
    /// again), and going back keeps the whole-payment ones.
    func testAPaymentOwesOneRefundAPartAndTheMigrationKeepsEarlierRefunds() async throws {
        try await withTestDatabase(migrations: [CreatePaymentRefunds(), AddPaymentRefundClaims()]) { database in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let id = UUID()
            // Written as the server before the migration wrote it.
            try await database.sql.raw("""
                INSERT INTO payment_refunds (id, gateway, payment_id, merchant_uid, subject, reason, requested_at, attempts, next_attempt_at, last_error, claimed_until)
                VALUES (\(bind: id), 'portone', 'imp_before', 'm-1', 'banchan_order:one', 'cancelled', \(bind: now), 2, \(bind: now), 'PG사 취소 요청 실패', \(bind: now))
                """).run()
            try await AddPaymentRefundParts().prepare(on: database)

            let store = RefundStore(database: database)
            let found = try await store.refund(paymentID: "imp_before")
            let kept = try XCTUnwrap(found)
            XCTAssertEqual(kept.id, id)
            XCTAssertEqual([kept.attempts], [2])
            XCTAssertEqual(kept.lastError, "PG사 취소 요청 실패")
            XCTAssertEqual(kept.part, Refunds.wholePayment)
            XCTAssertNil(kept.amount, "a refund from before is of all the payment had left")
            let whole = try await store.record(request("imp_before"), id: UUID(), reason: "again", now: now)
            XCTAssertFalse(whole, "the whole payment is still owed once")

            // Two lines of the same payment, each once.
            let line = { (part: String) in
                Refunds.Request(gateway: "portone", paymentID: "imp_before", merchantUID: "m-1", subject: "banchan_order:one", reason: "line",
                                amount: 4_900, part: part)
            }
            let first = try await store.record(line("line:a"), id: UUID(), reason: "line", now: now)
            let second = try await store.record(line("line:b"), id: UUID(), reason: "line", now: now)
            let firstAgain = try await store.record(line("line:a"), id: UUID(), reason: "line", now: now)
            XCTAssertEqual([first, second, firstAgain], [true, true, false])
            let parts = try await store.refunds(subject: "banchan_order:one")
            XCTAssertEqual(Set(parts.map(\.part)), [Refunds.wholePayment, "line:a", "line:b"])
            XCTAssertEqual(parts.filter { $0.part != Refunds.wholePayment }.map(\.amount), [4_900, 4_900])
            let claimed = try await store.claimDue(limit: 10, now: now.addingTimeInterval(60), leaseEnd: now.addingTimeInterval(120))
            XCTAssertEqual(claimed.count, 3, "the indexes and the claim column came through the rebuild")

            // Back: the parts go, the whole-payment refund stays.
            try await AddPaymentRefundParts().revert(on: database)
            let count = try await database.sql.raw("SELECT COUNT(*) AS n FROM payment_refunds").first(decodingColumn: "n", as: Int.self)
            XCTAssertEqual(count, 1)
        }
    }

    func testRecordingAndCounting() async throws {
        try await withTestDatabase(migrations: Self.migrations) { database in
            let store = RefundStore(database: database)
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
        try await withTestDatabase(migrations: Self.migrations) { database in
            let store = RefundStore(database: database)
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

            try await store.recordFailure(one, attempts: 1, error: "provider down", nextAttemptAt: now.addingTimeInterval(30),
                                          leaseEnd: now.addingTimeInterval(60))
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
            try await store.recordFailure(two, attempts: 7, error: "late", nextAttemptAt: now, leaseEnd: now.addingTimeInterval(60))
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

    /// Issue 56: a claim is apart from the backoff. "Try again now" (`makeDue`) moves only what no
    /// attempt holds; a failure releases its own claim, not a later one taken after its lease lapsed.
    func testAClaimHeldIsLeftAloneByTryAgainNow() async throws {
        try await withTestDatabase(migrations: Self.migrations) { database in
            let store = RefundStore(database: database)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let held = UUID(), waiting = UUID()
            _ = try await store.record(request("imp_held"), id: held, reason: "r", now: now)
            _ = try await store.record(request("imp_waiting"), id: waiting, reason: "r", now: now)
            _ = try await store.claimDue(only: waiting, limit: 1, now: now, leaseEnd: now.addingTimeInterval(60))
            try await store.recordFailure(waiting, attempts: 1, error: "refused", nextAttemptAt: now.addingTimeInterval(600),
                                          leaseEnd: now.addingTimeInterval(60))
            let claimed = try await store.claimDue(only: held, limit: 1, now: now, leaseEnd: now.addingTimeInterval(60))
            XCTAssertEqual(claimed.map(\.id), [held])
            let heldNow = try await store.heldCount(subject: "banchan_order:one", now: now.addingTimeInterval(10))
            XCTAssertEqual(heldNow, 1)

            let moved = try await store.makeDue(subject: "banchan_order:one", now: now.addingTimeInterval(10))
            XCTAssertEqual(moved, [waiting], "the failed one (released) is due now; the held one is left to its attempt")
            let claimedAgain = try await store.claimDue(limit: 5, now: now.addingTimeInterval(10), leaseEnd: now.addingTimeInterval(70))
            XCTAssertEqual(claimedAgain.map(\.id), [waiting], "the held one cannot be claimed a second time")

            // The holder died: after its lease another attempt takes it; the first one's late
            // failure does not release the second one's claim.
            let lapsed = now.addingTimeInterval(61)
            let movedAfterLease = try await store.makeDue(subject: "banchan_order:one", now: lapsed)
            XCTAssertEqual(movedAfterLease, [held], "a lapsed claim holds nothing; imp_waiting's claim (until +70 s) still does")
            let taken = try await store.claimDue(only: held, limit: 1, now: lapsed, leaseEnd: lapsed.addingTimeInterval(60))
            XCTAssertEqual(taken.map(\.id), [held])
            try await store.recordFailure(held, attempts: 1, error: "late answer", nextAttemptAt: lapsed, leaseEnd: now.addingTimeInterval(60))
            let stillHeld = try await store.heldCount(subject: "banchan_order:one", now: lapsed.addingTimeInterval(1))
            XCTAssertEqual(stillHeld, 2, "the second claim on imp_held stands, as does the claim on imp_waiting")
            let row = try await store.refund(paymentID: "imp_held")
            XCTAssertNil(row?.lastError, "the stale attempt's answer is not recorded over the live one")
        }
    }
}
