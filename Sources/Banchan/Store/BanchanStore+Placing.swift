import Fluent
import Foundation
import Platform
import SQLKit

/// Placing an order, the store's side: inside one transaction it takes stock and writes the order
/// as whole rows; the service holds the rules between (each dish's limits, the slot, the prices).
/// The stock taken is announced once the transaction committed.
extension BanchanStore {
    /// Where an order goes, as placed: the buyer's request and, for 새벽배송, the morning it arrives.
    struct PlacedDelivery: Sendable, Equatable {
        let request: DeliveryRequest
        let arrivesOn: String?
    }

    /// A dish's stock after an order took some, announced after the commit.
    struct StockChange: Sendable {
        let hash: String
        let stock: Int
    }

    /// Runs `work` in one transaction with the placing side of a store on it; the stock it took
    /// is announced once it committed (nothing, when it rolled back).
    func placing<T: Sendable>(_ work: @escaping @Sendable (OrderPlacing) async throws -> T) async throws -> T {
        let environment = environment
        let (result, changes) = try await database.writeTransaction(recording: PlacingChanges()) { transaction, log in
            try await work(OrderPlacing(store: BanchanStore(database: transaction, environment: environment), taken: log))
        }
        await announce(stocks: changes.stocks.map { ($0.hash, $0.stock) })
        if let owner = changes.emptiedCart { await cartChanged(owner) }
        await environment.keptOrders.changed(on: environment.events)  // a new order in its owner's list
        return result
    }

    /// What a placing transaction changed, told once it committed: each dish's stock, and the cart
    /// it emptied.
    struct PlacingChanges: Sendable {
        var stocks: [StockChange] = []
        var emptiedCart: String?
    }

    /// The store inside a placing transaction.
    struct OrderPlacing: Sendable {
        let store: BanchanStore
        fileprivate let taken: ChangeLog<PlacingChanges>

        /// Takes the stock of each dish, sorted by hash (two orders for the same dishes take their
        /// rows in the same order), each by one conditional update that never goes below zero and
        /// never after a read (on SQLite a transaction that read first cannot write after another
        /// connection commits). The dishes as they are now, with the quantities, in the order asked.
        /// 422 for a quantity below one, 404 `dish_not_found`, 409 `out_of_stock`: the transaction
        /// rolls back.
        func takeStock(_ requested: [Requested]) async throws -> [(dish: DishRow, quantity: Int)] {
            var taken: [String: DishRow] = [:]
            for item in requested.sorted(by: { $0.hash < $1.hash }) {
                guard item.quantity > 0 else { throw AppError.invalid("quantity_below_minimum", ["title": item.hash, "min": "1"]) }
                guard let left = try await store.takeStock(item.quantity, of: item.hash) else {
                    // Unknown, or not enough left: say which.
                    guard let dish = try await store.dishRowOnSale(hash: item.hash) else { throw AppError.notFound("dish_not_found") }
                    throw AppError.conflict("out_of_stock", ["title": dish.title, "available": String(max(0, dish.stock))])
                }
                guard let dish = try await store.dishRow(hash: item.hash), dish.id == left.id else { throw AppError.notFound("dish_not_found") }
                taken[item.hash] = dish
                self.taken.record { $0.stocks.append(StockChange(hash: item.hash, stock: left.stock)) }
            }
            return requested.compactMap { item in taken[item.hash].map { ($0, item.quantity) } }
        }

        /// Writes the order and its lines (the lines in the order given), numbered for `now`'s day
        /// in Korea and dated `now`; empties the owner's cart when it was the cart's.
        func write(_ order: NewOrder, lines: [(dish: DishRow, quantity: Int)], clearingCart: Bool, now: Date) async throws -> OrderRow {
            let id = UUID()
            let row = OrderInsert(order: order, id: id, number: try await store.nextOrderNumber(now: now), at: now.wholeMicroseconds)
            try await store.sql.insert(row, into: BanchanOrder.schema)
            for (line, item) in lines.enumerated() {
                try await store.sql.insert(ItemInsert(id: UUID(), orderID: id, line: line, dishID: item.dish.id, hash: item.dish.hash,
                                                      title: item.dish.title, unitPrice: item.dish.salePrice, quantity: item.quantity,
                                                      pointsPerUnit: item.dish.dish.pointsPerUnit, originalPrice: item.dish.dish.originalPrice),
                                           into: BanchanOrderItem.schema)
            }
            if clearingCart {
                try await store.clearCart(of: order.ownerKey)
                taken.record { $0.emptiedCart = order.ownerKey }
            }
            guard let placed = try await store.orderRows("o.\(ident: OrderColumn.id) = \(bind: id)").first else {
                throw AppError.notFound("order_not_found")
            }
            return placed
        }
    }

    /// What the service decided an order is: whose, its totals, its key, where it goes.
    struct NewOrder: Sendable {
        let ownerKey: String
        let userID: UUID?
        let totals: OrderTotals
        let idempotencyKey: String?
        let requestDigest: String
        let delivery: PlacedDelivery?
    }

    /// A new order as `banchan_orders` holds it, every column it starts with, by `OrderColumn`.
    private struct OrderInsert: Encodable {
        let order: NewOrder
        let id: UUID
        let number: String
        let at: Date

        func encode(to encoder: any Encoder) throws {
            var row = encoder.container(keyedBy: OrderColumn.self)
            try row.encode(id, forKey: .id)
            try row.encode(order.ownerKey, forKey: .ownerKey)
            try row.encodeIfPresent(order.userID, forKey: .userID)
            try row.encode(OrderStatus.awaitingPayment.rawValue, forKey: .status)
            try row.encode(order.totals.itemsTotal, forKey: .itemsTotal)
            try row.encode(order.totals.deliveryFee, forKey: .deliveryFee)
            try row.encode(order.totals.total, forKey: .total)
            try row.encode(order.totals.points, forKey: .points)
            // The id the payment provider knows the order by.
            try row.encode("wwe_" + id.uuidString.replacingOccurrences(of: "-", with: "").lowercased(), forKey: .merchantUID)
            try row.encode(number, forKey: .number)
            try row.encodeIfPresent(order.idempotencyKey, forKey: .idempotencyKey)
            try row.encode(order.requestDigest, forKey: .requestDigest)
            try row.encode(at, forKey: .createdAt)
            try row.encode(at, forKey: .updatedAt)
            guard let delivery = order.delivery else { return }
            let address = delivery.request.address
            try row.encode(delivery.request.slot.rawValue, forKey: .deliverySlot)
            try row.encode(address.recipient, forKey: .recipient)
            try row.encode(address.phone, forKey: .phone)
            try row.encode(address.postcode, forKey: .postcode)
            try row.encode(address.address, forKey: .address)
            try row.encode(address.addressDetail, forKey: .addressDetail)
            try row.encode(delivery.request.note, forKey: .deliveryNote)
            try row.encodeIfPresent(delivery.arrivesOn, forKey: .arrivesOn)
            try row.encode(delivery.request.paymentMethod.rawValue, forKey: .paymentMethod)
        }
    }

    /// A line of an order as `banchan_order_items` holds it: the dish's title and prices as they
    /// were when ordered.
    private struct ItemInsert: Encodable {
        let id: UUID
        let orderID: UUID
        /// Position in the order, as the customer added the dishes.
        let line: Int
        let dishID: UUID
        let hash: String
        let title: String
        let unitPrice: Int
        let quantity: Int
        let pointsPerUnit: Int
        let originalPrice: Int?
        /// None yet: the shop refunds units of a line later (`refundLine`).
        var refundedQuantity = 0
        typealias CodingKeys = ItemColumn
    }
}
