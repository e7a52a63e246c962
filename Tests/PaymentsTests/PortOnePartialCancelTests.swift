import AsyncHTTPClient
import Payments
import WhatWeEatTesting
import XCTest

/// Issue 61's partial refunds start at the provider: PortOne's partial cancel (an amount, and the
/// checksum of what was refundable before it) leaves the rest paid, reports what was refunded
/// (`cancel_amount`), and refuses a checksum that is not its own count — so a retried partial
/// refund never refunds twice.
final class PortOnePartialCancelTests: XCTestCase {
    func testAPartOfAPaymentIsRefundedOnceAndTheRestStaysPaid() async throws {
        let portOne = try await FakePortOne.start()
        do {
            portOne.record(impUID: "imp_lines", merchantUID: "order-1", amount: 30_000, status: "paid")
            let gateway = PortOneGateway(baseURL: portOne.url, apiKey: "key-1", apiSecret: "secret-1", client: HTTPClient.shared)

            var payment = try await gateway.payment(id: "imp_lines")
            XCTAssertEqual(payment.refundable, 30_000)
            try await gateway.cancel(paymentID: "imp_lines", reason: "품절된 반찬 1개", amount: 8_900, checksum: payment.refundable)
            payment = try await gateway.payment(id: "imp_lines")
            XCTAssertEqual(payment.status, .paid, "the rest stays paid")
            XCTAssertEqual(payment.cancelledAmount, 8_900)
            XCTAssertEqual(payment.refundable, 21_100)

            // The same refund retried with the checksum it was first sent with: refused, nothing refunded twice.
            do {
                try await gateway.cancel(paymentID: "imp_lines", reason: "품절된 반찬 1개", amount: 8_900, checksum: 30_000)
                XCTFail("a stale checksum must be refused")
            } catch let error as PaymentGatewayError {
                XCTAssertEqual(error, .unavailable("checksum mismatch"))
            }
            XCTAssertEqual(portOne.partialCancels.map(\.amount), [8_900])

            // More than is left is refused; all that is left cancels the payment.
            await XCTAssertThrowsErrorAsync { try await gateway.cancel(paymentID: "imp_lines", reason: "초과", amount: 30_000, checksum: 21_100) }
            try await gateway.cancel(paymentID: "imp_lines", reason: "나머지", amount: 21_100, checksum: 21_100)
            payment = try await gateway.payment(id: "imp_lines")
            XCTAssertEqual(payment.status, .cancelled)
            XCTAssertEqual(payment.refundable, 0)

            // A gateway without partial refunds says so and refunds nothing.
            await XCTAssertThrowsErrorAsync {
                try await UnsupportedGateway().cancel(paymentID: "x", reason: "r", amount: 1, checksum: 1)
            }
        } catch {
            await portOne.stop()
            throw error
        }
        await portOne.stop()
    }
}

private struct UnsupportedGateway: PaymentGateway {
    var name: String { "other" }
    func payment(id: String) async throws -> ProviderPayment { throw PaymentGatewayError.unknownPayment }
    func cancel(paymentID: String, reason: String) async throws {}
}

private func XCTAssertThrowsErrorAsync(_ body: () async throws -> Void, file: StaticString = #filePath, line: UInt = #line) async {
    do {
        try await body()
        XCTFail("expected an error", file: file, line: line)
    } catch {}
}
