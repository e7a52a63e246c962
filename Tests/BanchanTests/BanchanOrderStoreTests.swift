@testable import Banchan
import Fluent
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// The cart and order statements of `BanchanStore` (SQLite here, PostgreSQL in CI's second pass):
/// carts kept per owner and merged within limits, stock taken and given back only as far as it
/// goes, each change of stock announced to the listings, orders moved by conditional updates.
final class BanchanOrderStoreTests: XCTestCase {
    /// An order as the service decides it, for the store to write.
    static func newOrder(_ ownerKey: String, _ totals: OrderTotals, key: String? = nil) -> BanchanStore.NewOrder {
        BanchanStore.NewOrder(ownerKey: ownerKey, userID: nil, totals: totals, idempotencyKey: key, requestDigest: "d", delivery: nil)
    }

    private func stock(_ app: Application, _ hash: String) async throws -> Int {
        let row = try await app.banchanStore.dishRow(hash: hash)
        return try XCTUnwrap(row).stock
    }

    private func setStock(_ app: Application, _ hash: String, _ stock: Int) async throws {
        try await DishRecord.query(on: app.db).filter(\.$hash == hash).set(\.$stock, to: stock).update()
    }

    func testCartsPerOwnerAndMerging() async throws {
        try await withTestApp { app in
            let store = app.banchanStore
            let bulgogiRead = try await store.dishRow(hash: Fixtures.bulgogi)
            let bulgogi = try XCTUnwrap(bulgogiRead)
            let dakgalbiRead = try await store.dishRow(hash: Fixtures.dakgalbi)
            let dakgalbi = try XCTUnwrap(dakgalbiRead)
            try await store.setCartQuantity(2, of: bulgogi.id, for: "device:a", at: Date())
            try await store.setCartQuantity(1, of: dakgalbi.id, for: "device:a", at: Date())
            try await store.setCartQuantity(3, of: bulgogi.id, for: "device:a", at: Date())
            var lines = try await store.cartLines(of: "device:a")
            XCTAssertEqual(lines.map(\.hash), [Fixtures.bulgogi, Fixtures.dakgalbi], "in the order they were added; a new quantity replaces")
            XCTAssertEqual(lines.map(\.quantity), [3, 1])
            XCTAssertEqual(lines.first?.stock, bulgogi.stock)
            var quantity = try await store.cartQuantity(of: "device:a")
            XCTAssertEqual(quantity, 4)
            let others = try await store.cartLines(of: "device:b")
            XCTAssertTrue(others.isEmpty, "each owner has their own")

            try await store.retireDish(hash: Fixtures.dakgalbi, at: Date())
            lines = try await store.cartLines(of: "device:a")
            XCTAssertEqual(lines.map(\.hash), [Fixtures.bulgogi], "a dish no longer on sale is left out")
            quantity = try await store.cartQuantity(of: "device:a")
            XCTAssertEqual(quantity, 3)

            try await store.setCartQuantity(1, of: bulgogi.id, for: "account:x", at: Date())
            try await store.mergeCart(of: "device:a", into: "account:x", at: Date()) { wanted, dish in
                XCTAssertEqual(dish.hash, Fixtures.bulgogi)
                return min(wanted, 2)
            }
            let merged = try await store.cartLines(of: "account:x")
            XCTAssertEqual(merged.map(\.quantity), [2], "added (1 + 3), then fitted")
            let emptied = try await app.db.sql.select().column("id").from(CartItem.schema).where("owner_key", .equal, "device:a").all()
            XCTAssertTrue(emptied.isEmpty, "the device's cart is emptied, retired dishes too")

            try await store.removeFromCart(bulgogi.id, for: "account:x")
            quantity = try await store.cartQuantity(of: "account:x")
            XCTAssertEqual(quantity, 0)
        }
    }

    func testOrdersTakeAndGiveBackStockAndAnnounceIt() async throws {
        try await withTestApp { app in
            let store = app.banchanStore
            try await setStock(app, Fixtures.bulgogi, 5)
            try await setStock(app, Fixtures.dakgalbi, 1)
            let bulgogiRead = try await store.dishRow(hash: Fixtures.bulgogi)
            let bulgogi = try XCTUnwrap(bulgogiRead)
            try await store.setCartQuantity(1, of: bulgogi.id, for: "device:c", at: Date())
            let totals = OrderTotals(itemsTotal: 1, deliveryFee: 0, total: 1, points: 0)
            var heard = app.events.subscribe(to: BanchanListings.topic).makeAsyncIterator()

            let order = try await store.placing { placing in
                let lines = try await placing.takeStock([.init(hash: Fixtures.dakgalbi, quantity: 1), .init(hash: Fixtures.bulgogi, quantity: 2)])
                XCTAssertEqual(lines.map(\.dish.hash), [Fixtures.dakgalbi, Fixtures.bulgogi], "the dishes come back in the order asked")
                XCTAssertEqual(lines.map(\.quantity), [1, 2])
                return try await placing.write(Self.newOrder("device:c", totals, key: "key-1"), lines: lines, clearingCart: true, now: Date())
            }
            XCTAssertEqual(order.lines.map(\.hash), [Fixtures.dakgalbi, Fixtures.bulgogi], "lines in the order asked")
            XCTAssertEqual(order.status, .awaitingPayment)
            XCTAssertEqual(order.total, 1)
            let left = [try await stock(app, Fixtures.bulgogi), try await stock(app, Fixtures.dakgalbi)]
            XCTAssertEqual(left, [3, 0])
            XCTAssertEqual(app.banchanListings.listing(hash: Fixtures.dakgalbi)?.stock, 0, "this instance's listing follows at once")
            let first = await heard.next(), second = await heard.next()
            let announced = [first, second].compactMap { $0 }.joined(separator: "\n")
            for hash in [Fixtures.bulgogi, Fixtures.dakgalbi] {
                XCTAssertTrue(announced.contains(hash), "the others are told of \(hash)'s stock: \(announced)")
            }
            let cart = try await store.cartLines(of: "device:c")
            XCTAssertTrue(cart.isEmpty, "a checkout empties the cart in the same transaction")
            let byKey = try await store.order(withKey: "key-1", ownerKey: "device:c")
            XCTAssertEqual(byKey, order, "read back, the order says what placing it returned")
            XCTAssertEqual(order.requestDigest, "d")
            XCTAssertTrue(order.merchantUID.hasPrefix("wwe_"))
            XCTAssertEqual(order.lines.map(\.quantity), [1, 2])
            // The written-out read says what the model says.
            let modelRead = try await BanchanOrder.query(on: app.db).filter(\.$id == order.id).with(\.$items).first()
            let model = try XCTUnwrap(modelRead)
            XCTAssertEqual([order.status.rawValue, order.merchantUID, order.requestDigest], [model.status.rawValue, model.merchantUID, model.requestDigest])
            XCTAssertEqual([order.itemsTotal, order.deliveryFee, order.total, order.points], [model.itemsTotal, model.deliveryFee, model.total, model.points])
            XCTAssertEqual([order.paymentProvider, order.paymentID, order.cancelReason], [model.paymentProvider, model.paymentID, model.cancelReason])
            XCTAssertEqual(try XCTUnwrap(order.createdAt).timeIntervalSince1970, try XCTUnwrap(model.createdAt).timeIntervalSince1970, accuracy: 0.001)
            XCTAssertEqual(order.lines, model.lines.map {
                BanchanStore.OrderRow.Line(hash: $0.hash, title: $0.title, unitPrice: $0.unitPrice, quantity: $0.quantity, pointsPerUnit: $0.pointsPerUnit,
                                           originalPrice: $0.originalPrice, line: $0.line, refundedQuantity: $0.refundedQuantity)
            })
            let othersKey = try await store.order(withKey: "key-1", ownerKey: "device:d")
            XCTAssertNil(othersKey)

            // Short: nothing is taken, nothing written, and it says which dish.
            await assertRefused("out_of_stock") {
                _ = try await store.placing { placing in
                    let lines = try await placing.takeStock([.init(hash: Fixtures.bulgogi, quantity: 1), .init(hash: Fixtures.dakgalbi, quantity: 1)])
                    return try await placing.write(Self.newOrder("device:c", totals), lines: lines, clearingCart: false, now: Date())
                }
            }
            let unchanged = try await stock(app, Fixtures.bulgogi)
            XCTAssertEqual(unchanged, 3, "the bulgogi taken first went back with the rollback")
            await assertRefused("dish_not_found") {
                _ = try await store.placing { placing in try await placing.takeStock([.init(hash: "NOPE1", quantity: 1)]) }
            }
            await assertRefused("too_many") {
                _ = try await store.placing { placing in
                    _ = try await placing.takeStock([.init(hash: Fixtures.bulgogi, quantity: 1)])
                    throw AppError.invalid("too_many")  // a rule the service checks between taking and writing
                }
            }
            let afterRefusals = try await stock(app, Fixtures.bulgogi)
            XCTAssertEqual(afterRefusals, 3, "a rule broken inside the transaction gives the stock back")

            // Paying, moving on, cancelling: each once.
            let id = order.id
            let paid = try await store.markPaid(id, provider: "fake", paymentID: "imp_1", at: Date())
            let paidAgain = try await store.markPaid(id, provider: "fake", paymentID: "imp_2", at: Date())
            XCTAssertEqual([paid, paidAgain], [true, false])
            let cancelled = try await store.cancelOrder(id, reason: "changed my mind", refunding: nil, now: Date())
            XCTAssertTrue(cancelled.cancelled)
            XCTAssertNil(cancelled.refund)
            let restored = [try await stock(app, Fixtures.bulgogi), try await stock(app, Fixtures.dakgalbi)]
            XCTAssertEqual(restored, [5, 1], "its units go back")
            let cancelledAgain = try await store.cancelOrder(id, reason: "again", refunding: nil, now: Date())
            XCTAssertFalse(cancelledAgain.cancelled, "once")
            let twice = try await stock(app, Fixtures.bulgogi)
            XCTAssertEqual(twice, 5, "and its units go back once")
            let moved = try await store.moveStatus(of: id, from: .paid, to: .shipped, at: Date())
            XCTAssertFalse(moved, "a cancelled order does not ship")
            let read = try await store.order(id, ownerKey: nil)
            XCTAssertEqual(read?.status, .cancelled)
            XCTAssertEqual(read?.paymentID, "imp_1", "the first payment stands")
            XCTAssertEqual(read?.paymentProvider, "fake")
            XCTAssertNotNil(read?.paidAt)
            XCTAssertNotNil(read?.cancelledAt)
            XCTAssertEqual(read?.cancelReason, "changed my mind")
            XCTAssertEqual(read?.lines.count, 2)
            let anothers = try await store.order(id, ownerKey: "device:d")
            XCTAssertNil(anothers)
        }
    }

    func testReadsForThePagesAndTheSweeper() async throws {
        try await withTestApp { app in
            let store = app.banchanStore
            let totals = OrderTotals(itemsTotal: 7, deliveryFee: 3, total: 10, points: 1)
            var ids: [UUID] = []
            for _ in 0..<3 {
                let order = try await store.placing { placing in
                    let lines = try await placing.takeStock([.init(hash: Fixtures.bulgogi, quantity: 1), .init(hash: Fixtures.dakgalbi, quantity: 2)])
                    return try await placing.write(Self.newOrder("device:e", totals), lines: lines, clearingCart: false, now: Date())
                }
                ids.append(order.id)
            }
            let listed = try await store.listedOrders(ownerKey: "device:e", page: CursorPageRequest(limit: 2))
            XCTAssertEqual(listed.items.map(\.id), [ids[2], ids[1]], "newest first")
            XCTAssertEqual(listed.items.first?.lineCount, 2)
            XCTAssertNotNil(listed.nextCursor)
            let view = try await store.order(ids[0], ownerKey: "device:e")
            let first = try XCTUnwrap(view)
            XCTAssertEqual(first.total, 10)
            XCTAssertEqual(first.lines.map(\.quantity), [1, 2])
            let anothers = try await store.order(ids[0], ownerKey: "device:f")
            XCTAssertNil(anothers)
            let pageRead = try await store.orderPage(ids[0], ownerKey: "device:e")
            let page = try XCTUnwrap(pageRead)
            XCTAssertEqual([page.itemsTotal, page.deliveryFee, page.total, page.points], [first.itemsTotal, first.deliveryFee, first.total, first.points],
                           "the page's narrow read says what the whole row says")
            XCTAssertEqual([page.status.rawValue, page.merchantUID], [first.status.rawValue, first.merchantUID])
            XCTAssertNil(page.cancelReason)
            XCTAssertEqual(page.lines.map(\.title), first.lines.map(\.title))
            XCTAssertEqual(page.lines.map(\.unitPrice), first.lines.map(\.unitPrice))
            XCTAssertEqual(page.lines.map(\.quantity), [1, 2])
            let othersPage = try await store.orderPage(ids[0], ownerKey: "device:f")
            XCTAssertNil(othersPage)
            let fullPage = try await store.orders(ownerKey: "device:e", page: CursorPageRequest(limit: 10))
            XCTAssertEqual(fullPage.items.map(\.id), ids.reversed())
            XCTAssertEqual(fullPage.items.map(\.lines.count), [2, 2, 2], "each with its own lines")
            XCTAssertNil(fullPage.nextCursor)
            let firstTwo = try await store.orders(ownerKey: "device:e", page: CursorPageRequest(limit: 2))
            XCTAssertEqual(firstTwo.items.map(\.id), [ids[2], ids[1]])
            let cursor = try XCTUnwrap(firstTwo.nextCursor)
            let rest = try await store.orders(ownerKey: "device:e", page: CursorPageRequest(cursor: PageCursor(encoded: cursor), limit: 2))
            XCTAssertEqual(rest.items.map(\.id), [ids[0]], "the next page goes on where the first stopped")
            let nobodys = try await store.orders(ownerKey: "device:none", page: CursorPageRequest(limit: 2))
            XCTAssertTrue(nobodys.items.isEmpty)

            let stale = try await store.unpaidOrders(before: Date().addingTimeInterval(60), limit: 2)
            XCTAssertEqual(stale.count, 2, "at most the limit")
            let none = try await store.unpaidOrders(before: Date().addingTimeInterval(-3600), limit: 10)
            XCTAssertTrue(none.isEmpty)
        }
    }
}
