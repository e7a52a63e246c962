import Accounts
import Banchan
import BurgerMap
import Fluent
import LookForRealBurgerApp
import Payments
import Platform
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// The LookForRealBurger app's "후원하기" paid through the payment gateway the shop's settings
/// configure (`SHOP_PAYMENT_GATEWAY`): the map's app layer meets the shop's gateway.
final class BurgerDonationsTests: XCTestCase {
    func testTheDonationCountsOnlyAPaidHundredWon() async throws {
        try await withLSLPApp { app in
            let donor = try await LSLPClient.member(app, nick: "후원자")
            let copycat = try await LSLPClient.member(app, nick: "따라쟁이")
            let postID = "66d6c7cedfc6560142283221"  // hard-coded in the app's MoreViewController
            let post = try await donor.call(.GET, "/v1/posts/\(postID)")
            XCTAssertEqual(post.status, .ok, "the app's donation post exists on a new install")
            XCTAssertEqual(try post.object()["price"] as? Int, 100)

            let paymentID = TestPaymentGateway.paymentID(merchantUID: "ios_key_1764070000", amount: 100)
            for _ in 1...2 {
                let paid = try await donor.call(.POST, "/v1/payments/validation", json: ["imp_uid": paymentID, "post_id": postID])
                XCTAssertEqual(paid.status, .ok, paid.text)
                let payment = try paid.object()
                XCTAssertEqual(payment["buyer_id"] as? String, donor.userID)
                XCTAssertEqual(payment["post_id"] as? String, postID)
                XCTAssertEqual(payment["merchant_uid"] as? String, "ios_key_1764070000")
                XCTAssertEqual(payment["price"] as? Int, 100)
                XCTAssertNotNil(payment["productName"] as? String)
                XCTAssertNotNil(payment["paidAt"] as? String)
            }
            let donations = try await BurgerDonation.query(on: app.db).count()
            XCTAssertEqual(donations, 1, "one payment counts once")
            let stolen = try await copycat.call(.POST, "/v1/payments/validation", json: ["imp_uid": paymentID, "post_id": postID])
            XCTAssertEqual(stolen.status, .conflict)
            let donationPost = try await donor.call(.GET, "/v1/posts/\(postID)").object()
            XCTAssertEqual(donationPost["buyers"] as? [String], [donor.userID].compactMap { $0 })

            for (impUID, status) in [(TestPaymentGateway.paymentID(merchantUID: "ios_key_2", amount: 1_000), 400),
                                     (TestPaymentGateway.paymentID(merchantUID: "ios_key_3", amount: 100, failed: true), 400),
                                     ("imp_unknown", 400), ("", 400)] {
                let refused = try await copycat.call(.POST, "/v1/payments/validation", json: ["imp_uid": impUID, "post_id": postID])
                XCTAssertEqual(refused.status.code, UInt(status), impUID)
                XCTAssertNotNil(refused.lslpMessage)
            }
            let shopID = try await donor.addShop("후원 아님", kakaoID: "8301").postID()
            let notForSale = try await donor.call(.POST, "/v1/payments/validation", json: ["imp_uid": paymentID, "post_id": shopID])
            XCTAssertEqual(notForSale.status, .badRequest)
            let unknown = try await donor.call(.POST, "/v1/payments/validation", json: ["imp_uid": paymentID, "post_id": String(repeating: "1", count: 24)])
            XCTAssertEqual(unknown.status.code, 410)
            let total = try await BurgerDonation.query(on: app.db).count()
            XCTAssertEqual(total, 1)
        }
        try await withLSLPApp(adjust: { $0.shop.gateway = .none }) { app in
            let donor = try await LSLPClient.member(app, nick: "결제없음")
            let off = try await donor.call(.POST, "/v1/payments/validation", json: ["imp_uid": "imp_1", "post_id": "66d6c7cedfc6560142283221"])
            XCTAssertEqual(off.status, .serviceUnavailable)
            XCTAssertNotNil(off.lslpMessage, "in the app's {\"message\"} shape")
        }
    }

    /// The real PortOne client, against a local server speaking PortOne's v1 API.
    func testTheDonationIsCheckedWithPortOne() async throws {
        let portOne = try await FakePortOne.start()
        do {
            try await withLSLPApp(adjust: { $0.shop.gateway = .portOne(url: portOne.url, apiKey: "key-1", apiSecret: "secret-1") }) { app in
                let donor = try await LSLPClient.member(app, nick: "포트원후원")
                portOne.record(impUID: "imp_100", merchantUID: "ios_key_1", amount: 100, status: "paid")
                portOne.record(impUID: "imp_5000", merchantUID: "ios_key_2", amount: 5_000, status: "paid")
                let paid = try await donor.call(.POST, "/v1/payments/validation", json: ["imp_uid": "imp_100", "post_id": "66d6c7cedfc6560142283221"])
                XCTAssertEqual(paid.status, .ok, paid.text)
                XCTAssertEqual(try paid.object()["merchant_uid"] as? String, "ios_key_1")
                let tampered = try await donor.call(.POST, "/v1/payments/validation", json: ["imp_uid": "imp_5000", "post_id": "66d6c7cedfc6560142283221"])
                XCTAssertEqual(tampered.status, .badRequest)
                XCTAssertEqual(portOne.cancelled, ["imp_5000"], "a payment of another amount is refunded")
                let unknown = try await donor.call(.POST, "/v1/payments/validation", json: ["imp_uid": "imp_404", "post_id": "66d6c7cedfc6560142283221"])
                XCTAssertEqual(unknown.status, .badRequest)
            }
        } catch {
            await portOne.stop()
            throw error
        }
        await portOne.stop()
    }
}
