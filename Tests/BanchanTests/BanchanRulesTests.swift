@testable import Banchan
import BanchanApp
import Payments
import Platform
import WhatWeEatTesting
import XCTest

final class BanchanRulesTests: XCTestCase {
    private func dish(salePrice: Int = 12_640, originalPrice: Int? = 15_800, pointRate: Int = 1, min: Int = 1, max: Int = 10) -> Dish {
        Dish(hash: "HBDEF", section: .main, title: "[테스트] 소불고기", description: "부드러운 불고기", salePrice: salePrice,
             originalPrice: originalPrice, badges: [.launch], deliveryTypes: [.dawn, .parcel], pointRate: pointRate,
             deliveryInfo: "새벽배송", minQuantity: min, maxQuantity: max, emoji: "🥩", color: "#FECACA", weight: "500g",
             ingredients: "소고기", storage: "냉장", detailSections: ["하나"], thumbCount: 3)
    }

    func testPricesAreWrittenAsTheShopWritesThem() {
        XCTAssertEqual(Won.format(15_800), "15,800원")
        XCTAssertEqual(Won.format(12_640), "12,640원")
        XCTAssertEqual(Won.format(126), "126원")
        XCTAssertEqual(Won.format(0), "0원")
        XCTAssertEqual(Won.format(1_234_567), "1,234,567원")
        XCTAssertEqual(Won.format(-2_500), "-2,500원")
    }

    func testPointsAreTheRateOfTheSalePriceRoundedDown() {
        XCTAssertEqual(dish().pointsPerUnit, 126)            // 12,640 × 1% = 126.4
        XCTAssertEqual(dish(salePrice: 23_900, pointRate: 2).pointsPerUnit, 478)
        XCTAssertEqual(dish(pointRate: 0).pointsPerUnit, 0)
    }

    func testDeliveryIsFreeFromTheThreshold() {
        let rule = DeliveryFeeRule()
        XCTAssertEqual(rule.fee(forItemsTotal: 39_999), 2_500)
        XCTAssertEqual(rule.fee(forItemsTotal: 40_000), 0)
        XCTAssertEqual(rule.label, "2,500원 (40,000원 이상 구매 시 무료)")
        XCTAssertEqual(DeliveryFeeRule(fee: 3_000, freeFrom: 50_000).label, "3,000원 (50,000원 이상 구매 시 무료)")
    }

    func testQuantityMustLieBetweenTheMinimumAndTheSmallerOfMaximumAndStock() {
        let limited = dish(min: 2, max: 5)
        XCTAssertThrowsError(try OrderRules.check(quantity: 1, of: limited, stock: 100)) { XCTAssertEqual($0 as? QuantityProblem, .belowMinimum(2)) }
        XCTAssertThrowsError(try OrderRules.check(quantity: 6, of: limited, stock: 100)) { XCTAssertEqual($0 as? QuantityProblem, .aboveMaximum(5)) }
        XCTAssertThrowsError(try OrderRules.check(quantity: 4, of: limited, stock: 3)) { XCTAssertEqual($0 as? QuantityProblem, .outOfStock(available: 3)) }
        XCTAssertNoThrow(try OrderRules.check(quantity: 2, of: limited, stock: 2))
        XCTAssertNoThrow(try OrderRules.check(quantity: 5, of: limited, stock: 100))
    }

    func testTotalsAreThePricesTimesQuantitiesPlusTheFee() {
        let rule = DeliveryFeeRule()
        let small = OrderRules.totals([OrderLine(hash: "A", unitPrice: 12_640, quantity: 2, pointsPerUnit: 126)], delivery: rule)
        XCTAssertEqual(small, OrderTotals(itemsTotal: 25_280, deliveryFee: 2_500, total: 27_780, points: 252))
        let large = OrderRules.totals([
            OrderLine(hash: "A", unitPrice: 12_640, quantity: 2, pointsPerUnit: 126),
            OrderLine(hash: "B", unitPrice: 14_720, quantity: 1, pointsPerUnit: 147),
        ], delivery: rule)
        XCTAssertEqual(large, OrderTotals(itemsTotal: 40_000, deliveryFee: 0, total: 40_000, points: 399))
        XCTAssertEqual(OrderRules.totals([], delivery: rule).total, 0, "an empty cart owes no delivery fee")
    }

    func testOrdersCanBeCancelledUntilTheyShip() {
        XCTAssertTrue(OrderStatus.awaitingPayment.canMove(to: .paid))
        XCTAssertTrue(OrderStatus.awaitingPayment.canMove(to: .cancelled))
        XCTAssertTrue(OrderStatus.paid.canMove(to: .cancelled))
        XCTAssertTrue(OrderStatus.paid.canMove(to: .shipped))
        XCTAssertFalse(OrderStatus.shipped.canMove(to: .cancelled))
        XCTAssertFalse(OrderStatus.delivered.canMove(to: .cancelled))
        XCTAssertFalse(OrderStatus.cancelled.canMove(to: .paid))
        XCTAssertFalse(OrderStatus.awaitingPayment.canMove(to: .shipped), "nothing ships unpaid")
    }

    func testAPaymentPaysOnlyForItsOrderAndExactlyItsTotal() {
        let paid = ProviderPayment(providerID: "imp_1", merchantUID: "wwe_a", amount: 27_780, status: .paid)
        XCTAssertNoThrow(try PaymentCheck.verify(paid, merchantUID: "wwe_a", total: 27_780))
        XCTAssertThrowsError(try PaymentCheck.verify(paid, merchantUID: "wwe_a", total: 30_280)) {
            XCTAssertEqual($0 as? PaymentMismatch, .wrongAmount(expected: 30_280, paid: 27_780))
        }
        XCTAssertThrowsError(try PaymentCheck.verify(paid, merchantUID: "wwe_b", total: 27_780)) { XCTAssertEqual($0 as? PaymentMismatch, .wrongOrder) }
        let ready = ProviderPayment(providerID: "imp_2", merchantUID: "wwe_a", amount: 27_780, status: .ready)
        XCTAssertThrowsError(try PaymentCheck.verify(ready, merchantUID: "wwe_a", total: 27_780)) { XCTAssertEqual($0 as? PaymentMismatch, .notPaid(.ready)) }
    }

    func testTheShippedCatalogIsFitToSell() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path + "/Resources/"
        let entries = try BanchanCatalogFile.load(from: directory)
        XCTAssertGreaterThanOrEqual(entries.count, 36)
        for section in DishSection.allCases {
            XCTAssertGreaterThanOrEqual(entries.filter { $0.dish.section == section }.count, 12, section.rawValue)
        }
        for entry in entries {
            XCTAssertEqual(entry.dish.problems, [], entry.dish.title)
            XCTAssertTrue((2...5).contains(entry.dish.thumbCount), entry.dish.title)
            XCTAssertGreaterThanOrEqual(entry.stock, 0)
        }
        XCTAssertEqual(Set(entries.map(\.dish.hash)).count, entries.count, "hashes are unique")
    }
}
