import Banchan
import Payments
import BanchanApp
import Platform
import WhatWeEatTesting
import XCTVapor

/// What the shop's tests run: the shop and its app's routes on the site's foundations (accounts,
/// notifications), and no other feature, so these tests build and boot only what they test.
enum BanchanSite {
    static let features: [any Feature.Type] = [BanchanFeature.self, BanchanAppLayer.self]
}

/// Runs `body` against a fresh shop site on a fresh database.
func withTestApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application) async throws -> Void) async throws {
    try await withTestApp(features: BanchanSite.features, adjust: adjust, body)
}

/// Runs `body` against a fresh shop site listening on a free loopback port.
func withListeningApp(adjust: (inout Settings) -> Void = { _ in }, _ body: (Application, Int) async throws -> Void) async throws {
    try await withListeningApp(features: BanchanSite.features, adjust: adjust, body)
}

/// An order of one 불고기 placed and paid (the test gateway) by `buyer` through the API: its id, and
/// the paid order as the API answers it.
func placePaidOrder(_ app: Application, _ buyer: Member, file: StaticString = #filePath, line: UInt = #line) async throws -> (id: String, order: [String: Any]) {
    let placed = try await app.send(.POST, "/api/v1/banchan/orders", raw: #"{"items": [{"hash": "\#(Fixtures.bulgogi)", "quantity": 1}]}"#, token: buyer.token)
    XCTAssertEqual(placed.status, .created, placed.text, file: file, line: line)
    let order = try placed.object()
    let id = try XCTUnwrap(order["id"] as? String, file: file, line: line)
    let payment = TestPaymentGateway.paymentID(merchantUID: try XCTUnwrap(order["merchantUID"] as? String), amount: try XCTUnwrap(order["total"] as? Int))
    let paid = try await app.send(.POST, "/api/v1/banchan/orders/\(id)/payment", json: ["paymentID": payment], token: buyer.token)
    XCTAssertEqual(paid.status, .ok, paid.text, file: file, line: line)
    return (id, try paid.object())
}
