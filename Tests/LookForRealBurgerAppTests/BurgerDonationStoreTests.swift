import Accounts
import BurgerMapTesting
import Fluent
@testable import LookForRealBurgerApp
import Platform
import WhatWeEatTesting
import XCTVapor

/// Every statement of `BurgerDonationStore` (SQLite here, PostgreSQL in CI's second pass): a
/// payment recorded once, read back as its model says, and the donors listed first donation
/// first, each once.
final class BurgerDonationStoreTests: XCTestCase {
    func testDonationsAreRecordedOncePerPaymentAndListedByFirstDonation() async throws {
        try await withTestApp { app in
            let store = BurgerDonationStore(database: app.db)
            let mina = try await app.member("미나"), joon = try await app.member("준호")
            let first = try await store.record(userID: joon.id, paymentID: "imp_1", merchantUID: "m_1", amount: 100, gateway: "test", now: Date())
            _ = try await store.record(userID: mina.id, paymentID: "imp_2", merchantUID: "m_2", amount: 100, gateway: "test", now: Date())
            _ = try await store.record(userID: joon.id, paymentID: "imp_3", merchantUID: "m_3", amount: 100, gateway: "test", now: Date())
            do {
                _ = try await store.record(userID: mina.id, paymentID: "imp_1", merchantUID: "m_9", amount: 100, gateway: "test", now: Date())
                XCTFail("one payment counts once")
            } catch let error as any DatabaseError where error.isConstraintFailure {}

            let read = try await store.donation(paymentID: "imp_1")
            let model = try await BurgerDonation.query(on: app.db).filter(\.$paymentID == "imp_1").first()
            let donation = try XCTUnwrap(model)
            XCTAssertEqual(read?.userID, donation.$user.id)
            XCTAssertEqual([read?.paymentID, read?.merchantUID], [donation.paymentID, donation.merchantUID])
            XCTAssertEqual(read?.amount, donation.amount)
            XCTAssertEqual(read?.createdAt, donation.createdAt)
            XCTAssertEqual(first.createdAt, donation.createdAt)
            let none = try await store.donation(paymentID: "imp_404")
            XCTAssertNil(none)

            let donors = try await store.donors()
            XCTAssertEqual(donors, [joon.id, mina.id], "first donation first, each once")
        }
    }
}
