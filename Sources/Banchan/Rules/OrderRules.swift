import Foundation
import enum Platform.TextLimits
public import struct Payments.ProviderPayment

/// The delivery fee: a flat fee, free from a threshold of the items' total (2,500원, free from
/// 40,000원 unless configured otherwise).
public struct DeliveryFeeRule: Sendable, Hashable {
    public let fee: Int
    public let freeFrom: Int

    public init(fee: Int = 2_500, freeFrom: Int = 40_000) {
        self.fee = fee
        self.freeFrom = freeFrom
    }

    public func fee(forItemsTotal itemsTotal: Int) -> Int {
        itemsTotal >= freeFrom ? 0 : fee
    }

    /// `2,500원 (40,000원 이상 구매 시 무료)`, as the shipped app shows it.
    public var label: String {
        "\(Won.format(fee)) (\(Won.format(freeFrom)) 이상 구매 시 무료)"
    }
}

/// Why a quantity cannot be ordered.
public enum QuantityProblem: Error, Equatable {
    case belowMinimum(Int)
    case aboveMaximum(Int)
    /// Fewer units left than asked for (the number left).
    case outOfStock(available: Int)
}

/// One line of a cart or an order: a dish at its price, times a quantity.
public struct OrderLine: Sendable, Equatable {
    public let hash: String
    public let unitPrice: Int
    public let quantity: Int
    public let pointsPerUnit: Int

    public init(hash: String, unitPrice: Int, quantity: Int, pointsPerUnit: Int) {
        self.hash = hash
        self.unitPrice = unitPrice
        self.quantity = quantity
        self.pointsPerUnit = pointsPerUnit
    }

    public var subtotal: Int { unitPrice * quantity }
}

public struct OrderTotals: Sendable, Hashable, Codable {
    public let itemsTotal: Int
    public let deliveryFee: Int
    public let total: Int
    public let points: Int

    package init(itemsTotal: Int, deliveryFee: Int, total: Int, points: Int) {
        self.itemsTotal = itemsTotal
        self.deliveryFee = deliveryFee
        self.total = total
        self.points = points
    }
}

public enum OrderRules {
    /// A quantity must lie in [minimum, min(maximum, stock)].
    /// `wanted` held within the dish's limits and the stock: the most of it that can be bought,
    /// or nil when not even the minimum can.
    public static func fitted(_ wanted: Int, to dish: Dish, stock: Int) -> Int? {
        let quantity = min(wanted, dish.maxQuantity, stock)
        return quantity >= dish.minQuantity ? quantity : nil
    }

    public static func check(quantity: Int, of dish: Dish, stock: Int) throws(QuantityProblem) {
        if quantity < dish.minQuantity { throw .belowMinimum(dish.minQuantity) }
        if quantity > dish.maxQuantity { throw .aboveMaximum(dish.maxQuantity) }
        if quantity > stock { throw .outOfStock(available: max(0, stock)) }
    }

    /// Totals are computed here only, from the server's prices: Σ price × quantity plus the fee.
    public static func totals(_ lines: [OrderLine], delivery: DeliveryFeeRule) -> OrderTotals {
        let itemsTotal = lines.reduce(0) { $0 + $1.subtotal }
        let fee = lines.isEmpty ? 0 : delivery.fee(forItemsTotal: itemsTotal)
        let points = lines.reduce(0) { $0 + $1.pointsPerUnit * $1.quantity }
        return OrderTotals(itemsTotal: itemsTotal, deliveryFee: fee, total: itemsTotal + fee, points: points)
    }
}

/// An order's life: 결제 대기 → 결제 완료 → 상품준비중 → 배송중 → 배송완료. The buyer cancels at once
/// until the shop starts preparing it (a payment is refunded); while it is being prepared a cancel
/// is a request the operator answers (cancels and refunds, or declines and goes on preparing);
/// once it ships it cannot be cancelled. The operator may skip preparing (paid → shipped).
public enum OrderStatus: String, Codable, Sendable, CaseIterable {
    case awaitingPayment = "awaiting_payment"
    case paid
    case preparing
    case shipped
    case delivered
    case cancelRequested = "cancel_requested"
    case cancelled

    /// The buyer cancels at once.
    public var canCancel: Bool { self == .awaitingPayment || self == .paid }
    /// The buyer may ask the operator to cancel.
    public var canRequestCancel: Bool { self == .preparing }
    /// The operator may cancel (and refund): anything that has not shipped.
    public var operatorCanCancel: Bool { canCancel || self == .preparing || self == .cancelRequested }
    /// The operator may refund some units of a line of a paid order (a dish out, a dish spoiled on
    /// arrival) until it is cancelled; the rest of the order stands.
    public var operatorCanRefundLine: Bool { self == .paid || self == .preparing || self == .cancelRequested || self == .shipped || self == .delivered }
    /// A refunded line's units go back to stock only while the order has not left the shop; before
    /// then, refunding every unit left is cancelling the order (the delivery fee too), not a line.
    public var notShipped: Bool { self == .paid || self == .preparing || self == .cancelRequested }

    public func canMove(to next: OrderStatus) -> Bool {
        switch (self, next) {
        case (.awaitingPayment, .paid), (.paid, .preparing), (.paid, .shipped), (.preparing, .shipped), (.shipped, .delivered),
             (.preparing, .cancelRequested), (.cancelRequested, .preparing):
            return true
        case (_, .cancelled): return operatorCanCancel
        default: return false
        }
    }
}

/// Why a reported payment does not pay for an order.
public enum PaymentMismatch: Error, Equatable {
    case notPaid(ProviderPayment.Status)
    case wrongAmount(expected: Int, paid: Int)
    case wrongOrder
}

public enum PaymentCheck {
    /// A payment pays for an order only if it is paid, for this order, and for exactly its total.
    public static func verify(_ payment: ProviderPayment, merchantUID: String, total: Int) throws(PaymentMismatch) {
        guard payment.merchantUID == merchantUID else { throw .wrongOrder }
        guard payment.status == .paid else { throw .notPaid(payment.status) }
        guard payment.amount == total else { throw .wrongAmount(expected: total, paid: payment.amount) }
    }
}

/// What the operator sets for every order from the console: the delivery fee, the items total from
/// which delivery is free, and the 새벽배송 cut-off. The environment gives the first values; once
/// the operator saves them, the stored ones hold on every instance.
public struct ShopTerms: Sendable, Equatable {
    public var delivery: DeliveryFeeRule
    public var dawn: DawnSchedule

    public static let feeRange = 0...1_000_000
    public static let freeFromRange = 0...100_000_000

    public init(delivery: DeliveryFeeRule, dawn: DawnSchedule) {
        self.delivery = delivery
        self.dawn = dawn
    }

    /// The first field out of its range, by its API name (`deliveryFee`, `freeDeliveryFrom`, `dawnCutoff`).
    public var problem: String? {
        if !Self.feeRange.contains(delivery.fee) { return "deliveryFee" }
        if !Self.freeFromRange.contains(delivery.freeFrom) { return "freeDeliveryFrom" }
        if !(0..<(24 * 60)).contains(dawn.cutoffMinutes) { return "dawnCutoff" }
        return nil
    }
}

/// What an operator types to find an order (`/admin/orders?q=`): its number as printed
/// (`20261207-0042`, or `20261207-42`), digits of the recipient's phone or of a number (at least
/// four: `5678`, `010-1234-5678`), or the recipient's name. Wildcards typed are dropped: a search
/// never matches more than what was typed.
public enum OrderSearch: Equatable, Sendable {
    case number(String)
    case digits(String)
    case name(String)

    public static let maxLength = 50

    /// Nil for nothing typed; throws for more than `maxLength` characters.
    public static func parse(_ typed: String?) throws(OrderSearchTooLong) -> OrderSearch? {
        guard (typed ?? "").fits(characters: maxLength, bytes: maxLength * TextLimits.bytesPerCharacter) else { throw OrderSearchTooLong() }
        let text = (typed ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return nil }
        if let match = text.wholeMatch(of: /([0-9]{8})-([0-9]{1,5})/), let sequence = Int(match.2) {
            return .number(match.1 + "-" + (sequence < 10_000 ? String(format: "%04d", sequence) : String(sequence)))
        }
        let digits = text.filter { $0 != "-" && !$0.isWhitespace }
        if digits.count >= 4, digits.allSatisfy({ $0.isASCII && $0.isNumber }) { return .digits(digits) }
        let name = text.filter { $0 != "%" && $0 != "_" && $0 != "\\" }
        return name.isEmpty ? nil : .name(name)
    }
}

public struct OrderSearchTooLong: Error {}
