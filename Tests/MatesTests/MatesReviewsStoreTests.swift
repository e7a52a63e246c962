import Fluent
@testable import Mates
import MatesTesting
import Platform
import WhatWeEatTesting
import XCTVapor

/// The statements of `MatesStore+Codes.swift` and `MatesStore+Reviews.swift` (SQLite here,
/// PostgreSQL in CI's second pass): codes within their limits, tries counted once each, a code
/// taken once; reviews, reports, dodges and purchases written once and counted as the rules read them.
final class MatesReviewsStoreTests: XCTestCase {
    private func code(_ user: UUID, destination: String, at time: Date) -> MatesStore.CodeRow {
        MatesStore.CodeRow(id: UUID(), userID: user, channel: "phone", purpose: .verification, destinationHash: destination, masked: "010-****-0000",
                           clientAddress: "127.0.0.0/24", codeHash: "hash-\(time.timeIntervalSince1970)", attempts: 0,
                           expiresAt: time.addingTimeInterval(600), usedAt: nil, createdAt: time)
    }

    func testCodesKeepTheirLimitsAndAreTakenOnce() async throws {
        try await withTestApp { app in
            let store = MatesStore(database: app.db, application: app)
            let member = try await app.member("코드")
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let limits = [MatesStore.CodeSendLimit(counted: .destination("inbox-a"), window: 60, limit: 1, code: "code_resend_too_soon"),
                          MatesStore.CodeSendLimit(counted: .account(member.id), window: 86_400, limit: 2, code: "code_daily_limit")]
            let first = code(member.id, destination: "inbox-a", at: now)
            let written = try await store.insertCode(first, within: limits, now: now)
            XCTAssertTrue(written)
            let stored = try await app.storedRow(MatesStore.CodeRow.self, in: MatesStore.Table.codes, id: first.id)
            XCTAssertEqual(first, try XCTUnwrap(stored), "each value went to its column")

            let again = try await store.insertCode(code(member.id, destination: "inbox-a", at: now.addingTimeInterval(10)), within: limits,
                                                   now: now.addingTimeInterval(10))
            XCTAssertFalse(again, "one a minute to an inbox")
            let wait = try await store.longestWait(of: limits, now: now.addingTimeInterval(10))
            XCTAssertEqual(wait?.limit.code, "code_resend_too_soon")
            XCTAssertEqual(wait?.seconds, 50)

            let elsewhere = try await store.insertCode(code(member.id, destination: "inbox-b", at: now.addingTimeInterval(20)),
                                                       within: [MatesStore.CodeSendLimit(counted: .destination("inbox-b"), window: 60, limit: 1, code: "x"),
                                                                limits[1]], now: now.addingTimeInterval(20))
            XCTAssertTrue(elsewhere, "another inbox, the account's second today")
            let third = code(member.id, destination: "inbox-c", at: now.addingTimeInterval(30))
            let stopped = try await store.insertCode(third, within: [limits[1]], now: now.addingTimeInterval(30))
            XCTAssertFalse(stopped, "the account's daily limit counts by account, whatever the inbox")
            let daily = try await store.longestWait(of: [limits[1]], now: now.addingTimeInterval(30))
            XCTAssertEqual(daily?.seconds, 86_400 - 30)
            let none = try await store.longestWait(of: [MatesStore.CodeSendLimit(counted: .account(UUID()), window: 60, limit: 1, code: "x")], now: now)
            XCTAssertNil(none)

            let newest = try await store.newestCode(for: member.id, destinationHash: "inbox-a", purpose: .verification)
            XCTAssertEqual(newest?.id, first.id)
            let otherAccount = try await store.newestCode(for: UUID(), destinationHash: "inbox-a", purpose: .verification)
            XCTAssertNil(otherAccount)
            let otherPurpose = try await store.newestCode(for: member.id, destinationHash: "inbox-a", purpose: .passwordReset)
            XCTAssertNil(otherPurpose, "a verification code is no reset code")

            // Tries: counted one by one up to the maximum, then refused.
            var used: [Int?] = []
            for _ in 0..<3 { used.append(try await store.countWrongTry(first.id, maximum: 2)) }
            XCTAssertEqual(used, [1, 2, nil])
            let taken = try await store.takeCode(first.id, at: now.addingTimeInterval(5))
            XCTAssertTrue(taken)
            let takenAgain = try await store.takeCode(first.id, at: now.addingTimeInterval(6))
            XCTAssertFalse(takenAgain, "a code is taken once")
            let afterTaking = try await store.newestCode(for: member.id, destinationHash: "inbox-a", purpose: .verification)
            XCTAssertEqual(afterTaking?.usedAt, now.addingTimeInterval(5))

            try await store.deleteCode(first.id)
            let deleted = try await store.newestCode(for: member.id, destinationHash: "inbox-a", purpose: .verification)
            XCTAssertNil(deleted)
            let freed = try await store.insertCode(code(member.id, destination: "inbox-a", at: now.addingTimeInterval(40)),
                                                   within: [limits[0]], now: now.addingTimeInterval(40))
            XCTAssertTrue(freed, "a deleted code no longer counts")
        }
    }

    func testReviewsReportsDodgesAndPurchases() async throws {
        try await withTestApp { app in
            let store = MatesStore(database: app.db, application: app)
            let one = try await app.mate("평하나"), two = try await app.mate("평둘")
            let match = try await app.matchPair(one, two)
            let reputationBefore = try await store.model(two.id)?.reputation

            let review = try await store.transaction { store in
                try await store.addReview(match: match, by: one.id, of: two.id, picks: [true, false, true, false, false, false], comment: "친절해요")
            }
            let storedReview = try await app.storedRow(ReviewRow.self, in: MatesStore.Table.reviews, id: review.id)
            XCTAssertEqual(review, try XCTUnwrap(storedReview))
            XCTAssertEqual(review.reputation, [1, 0, 1, 0, 0, 0])
            let reputationAfter = try await store.model(two.id)?.reputation
            XCTAssertEqual(zip(reputationAfter ?? [], reputationBefore ?? []).map { $0 - $1 }, [1, 0, 1, 0, 0, 0], "the picks count")
            let hasReviewed = try await store.hasReviewed(match, by: one.id)
            XCTAssertTrue(hasReviewed)
            let otherSide = try await store.hasReviewed(match, by: two.id)
            XCTAssertFalse(otherSide)
            await assertRefused("already_reviewed") {
                _ = try await store.addReview(match: match, by: one.id, of: two.id, picks: Array(repeating: false, count: 6), comment: "")
            }
            let reviewees = try await store.reviewees(of: one.id)
            XCTAssertEqual(reviewees, [two.id])
            _ = try await store.addReview(match: match, by: two.id, of: one.id, picks: Array(repeating: false, count: 6), comment: "")
            let comments = try await store.receivedComments(of: [one.id, two.id, UUID()], limit: 20)
            XCTAssertEqual(comments, [two.id: ["친절해요"]], "empty comments are not comments")

            let report = try await store.addReport(by: one.id, of: two.id, categories: [.noShow, .rude], comment: "늦었어요")
            let storedReport = try await app.storedRow(ReportRow.self, in: MatesStore.Table.reports, id: report.id)
            XCTAssertEqual(report, try XCTUnwrap(storedReport))
            XCTAssertEqual(report.categoryNames, [ReportCategory.noShow.rawValue, ReportCategory.rude.rawValue])
            await assertRefused("already_reported") {
                _ = try await store.addReport(by: one.id, of: two.id, categories: [.rude], comment: "")
            }
            let counted = try await store.countReports(of: two.id, since: nil)
            XCTAssertEqual(counted, 1)
            let since = try await store.countReports(of: two.id, since: Date().addingTimeInterval(60))
            XCTAssertEqual(since, 0, "reports before a lift no longer count")
            let reportedPeople = try await store.reportedPeople(by: one.id)
            XCTAssertEqual(reportedPeople, [two.id])

            let now = Date(timeIntervalSince1970: 1_800_000_000)
            try await store.recordDodge(by: one.id, match: match, at: now.addingTimeInterval(-7200))
            try await store.recordDodge(by: one.id, match: match, at: now)
            let allDodges = try await store.countDodges(by: one.id, since: nil)
            let recentDodges = try await store.countDodges(by: one.id, since: now.addingTimeInterval(-3600))
            let othersDodges = try await store.countDodges(by: two.id, since: nil)
            XCTAssertEqual([allDodges, recentDodges, othersDodges], [2, 1, 0])

            let bought = try await store.recordPurchase(by: one.id, transactionID: "tx-1", productID: "avatar.3", kind: .avatar, index: 3, environment: "Sandbox")
            XCTAssertTrue(bought)
            let replayed = try await store.recordPurchase(by: two.id, transactionID: "tx-1", productID: "avatar.3", kind: .avatar, index: 3, environment: "Sandbox")
            XCTAssertFalse(replayed, "a transaction is honoured once, whoever sends it")
            _ = try await store.recordPurchase(by: one.id, transactionID: "tx-2", productID: "background.2", kind: .background, index: 2, environment: "Sandbox")
            let items = try await store.purchasedItems(of: one.id)
            XCTAssertEqual(Set(items.map { "\($0.kind):\($0.index)" }), ["avatar:3", "background:2"])
            let transactions = try await store.purchaseTransactionIDs(of: one.id)
            XCTAssertEqual(Set(transactions), ["tx-1", "tx-2"])
            let nothing = try await store.purchasedItems(of: two.id)
            XCTAssertTrue(nothing.isEmpty)
        }
    }
}
