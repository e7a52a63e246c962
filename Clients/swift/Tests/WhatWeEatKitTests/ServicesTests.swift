import Foundation
import WhatWeEatKit
import XCTest

/// Each service's main reads through the generated client and the layer: the menu game alone,
/// the burger map near a point with a place's reviews paged as one sequence, and the shop's cart
/// for a device that has not signed in.
final class ServicesTests: XCTestCase {
    func testASoloGameRanksFiveMenusWithKeywords() async throws {
        let app = try ServerUnderTest.client(language: "en")
        let game = try await app.api.soloGame(body: .json(.init(value1: .init(gameAnswer: .init(greasy: false, soup: true)), value2: .init())))
            .ok.body.json
        XCTAssertEqual(game.menus.map(\.rank), [1, 2, 3, 4, 5])
        XCTAssertTrue(game.menus.allSatisfy { !$0.keywords.isEmpty && !$0.displayName.isEmpty })
    }

    func testNearestPlacesAndEveryReviewOfOneAsASequence() async throws {
        let app = try ServerUnderTest.client()
        let near = try await app.api.burgerPlaces(query: .init(near: "37.5665,126.9780", limit: 5)).ok.body.json
        XCTAssertEqual(near.items.count, 5)
        let distances = near.items.compactMap(\.distanceMeters)
        XCTAssertEqual(distances, distances.sorted(), "nearest first")

        let place = try XCTUnwrap(near.items.max { $0.reviewCount < $1.reviewCount })
        var pagesRead = 0
        var seen: [String] = []
        for try await review in app.pages({ cursor in
            let page = try await app.api.burgerPlaceReviews(path: .init(place: place.id), query: .init(cursor: cursor, limit: 1)).ok.body.json
            return (page.value2.items ?? [], page.value1.nextCursor)
        }) {
            seen.append(review.id)
        }
        pagesRead = seen.count
        XCTAssertEqual(seen.count, place.reviewCount, "one review a page, every page read")
        XCTAssertEqual(Set(seen).count, seen.count, "no review twice")
        XCTAssertGreaterThan(pagesRead, 0)
    }

    /// Places to eat a menu near a position (issue 60): on a server without a Kakao key, the
    /// burger map's own for a burger menu, nearest first, and the map apps' searches.
    func testPlacesNearAMenu() async throws {
        let app = try ServerUnderTest.client()
        let burger = try await app.api.menuNearby(path: .init(menu: "hamburger"), query: .init(lat: 37.4998, lon: 127.0289)).ok.body.json
        XCTAssertEqual(burger.kakao.rawValue, "off")
        XCTAssertFalse(burger.places.isEmpty)
        XCTAssertTrue(burger.places.allSatisfy { $0.source.rawValue == "burger_map" })
        XCTAssertEqual(burger.places.map(\.distanceMeters), burger.places.map(\.distanceMeters).sorted())
        XCTAssertTrue(burger.links.kakaoMap.hasPrefix("https://map.kakao.com/"))
        do {
            _ = try await app.api.menuNearby(path: .init(menu: "hamburger"), query: .init(lat: 95, lon: 127))
            XCTFail("a latitude past the pole")
        } catch {
            XCTAssertEqual(WhatWeEatError.from(error)?.code, "invalid_coordinate")
        }
    }

    func testAVisitorsCartByDevice() async throws {
        let app = try ServerUnderTest.client()
        let dishes = try await app.api.banchanSectionDishes(path: .init(section: .main), query: .init(limit: 10)).ok.body.json
        let dish = try XCTUnwrap(dishes.items.first { !$0.soldOut })
        let cart = try await app.api.setCartItem(path: .init(hash: dish.hash), body: .json(.init(quantity: 2))).ok.body.json
        XCTAssertEqual(cart.items.map(\.hash), [dish.hash])
        XCTAssertEqual(cart.items.first?.quantity, 2)

        let again = try await app.api.cart().ok.body.json
        XCTAssertEqual(again.items.map(\.hash), [dish.hash], "the device token names the same cart")
        let someoneElse = try ServerUnderTest.client()
        let theirs = try await someoneElse.api.cart().ok.body.json
        XCTAssertTrue(theirs.items.isEmpty, "another installation has its own cart")

        do {
            _ = try await app.api.setCartItem(path: .init(hash: dish.hash), body: .json(.init(quantity: 100_000)))
            XCTFail("beyond the dish's limits")
        } catch {
            let refused = WhatWeEatError.from(error)
            XCTAssertEqual(refused?.status, 422)
            XCTAssertEqual(refused?.code, "quantity_above_maximum")
        }
    }
}

/// The shop from the cart to a paid order, signed in, with the server's test payment gateway
/// (`PAYMENT_GATEWAY=test`, a development server's default: `test:{merchantUID}:{amount}`).
final class ShopOrderTests: XCTestCase {
    func testFromTheCartToAPaidOrder() async throws {
        let app = try ServerUnderTest.client(language: "en")
        let email = ServerUnderTest.email()
        try await app.signUp(email: email, password: "kit-password-1", nickname: "손님\(email.prefix(8).suffix(4))")
        let dishes = try await app.api.banchanSectionDishes(path: .init(section: .soup), query: .init(limit: 10)).ok.body.json
        let dish = try XCTUnwrap(dishes.items.first { !$0.soldOut })
        _ = try await app.api.setCartItem(path: .init(hash: dish.hash), body: .json(.init(quantity: 1))).ok

        let key = UUID().uuidString
        let placed = try await app.api.placeOrder(headers: .init(idempotencyKey: key)).created.body.json
        XCTAssertEqual(placed.status, .awaitingPayment)
        XCTAssertEqual(placed.items.map(\.hash), [dish.hash])
        XCTAssertEqual(placed.total, placed.itemsTotal + placed.deliveryFee)
        let emptied = try await app.api.cart().ok.body.json
        XCTAssertTrue(emptied.items.isEmpty, "ordering the cart empties it")
        let retried = try await app.api.placeOrder(headers: .init(idempotencyKey: key)).created.body.json
        XCTAssertEqual(retried.id, placed.id, "a retry with the same key is the same order")

        // Paying less than the total is refused and cancels the order; a new one is paid in full.
        do {
            _ = try await app.api.confirmPayment(path: .init(order: placed.id),
                                                 body: .json(.init(paymentID: "test:\(placed.merchantUID):\(placed.total - 1)")))
            XCTFail("an amount that is not the total")
        } catch {
            let refused = WhatWeEatError.from(error)
            XCTAssertEqual(refused?.status, 409)
            XCTAssertEqual(refused?.code, "payment_amount_mismatch")
        }
        _ = try await app.api.setCartItem(path: .init(hash: dish.hash), body: .json(.init(quantity: 1))).ok
        let order = try await app.api.placeOrder().created.body.json
        let paid = try await app.api.confirmPayment(path: .init(order: order.id),
                                                    body: .json(.init(paymentID: "test:\(order.merchantUID):\(order.total)"))).ok.body.json
        XCTAssertEqual(paid.status, .paid)
        XCTAssertNotNil(paid.paidAt)
        let mine = try await app.api.myOrders().ok.body.json
        XCTAssertEqual(mine.items.first?.id, order.id, "newest first")
    }
}
