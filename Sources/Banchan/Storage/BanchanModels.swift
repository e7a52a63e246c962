import Accounts
import Fluent
import Foundation
import Payments
import Platform
import SQLKit

/// A dish as stored: the catalog's description plus its stock, which orders change.
package final class DishRecord: Model, StoredDish, @unchecked Sendable {
    package static let schema = "banchan_dishes"

    @ID(key: .id) package var id: UUID?
    @Field(key: .string(BanchanStore.DishColumn.hash)) package var hash: String
    @Field(key: .string(BanchanStore.DishColumn.section)) package var section: String
    /// Order within its section (catalog order); lists page by (position, id).
    @Field(key: .string(BanchanStore.DishColumn.position)) package var position: Int
    @Field(key: .string(BanchanStore.DishColumn.title)) package var title: String
    @Field(key: .string(BanchanStore.DishColumn.description)) package var summary: String
    @Field(key: .string(BanchanStore.DishColumn.salePrice)) package var salePrice: Int
    @OptionalField(key: .string(BanchanStore.DishColumn.originalPrice)) package var originalPrice: Int?
    @Field(key: .string(BanchanStore.DishColumn.badges)) package var badges: [String]
    @Field(key: .string(BanchanStore.DishColumn.deliveryTypes)) package var deliveryTypes: [String]
    @Field(key: .string(BanchanStore.DishColumn.pointRate)) package var pointRate: Int
    @Field(key: .string(BanchanStore.DishColumn.deliveryInfo)) package var deliveryInfo: String
    @Field(key: .string(BanchanStore.DishColumn.minQuantity)) package var minQuantity: Int
    @Field(key: .string(BanchanStore.DishColumn.maxQuantity)) package var maxQuantity: Int
    @Field(key: .string(BanchanStore.DishColumn.emoji)) package var emoji: String
    @Field(key: .string(BanchanStore.DishColumn.color)) package var color: String
    @Field(key: .string(BanchanStore.DishColumn.weight)) package var weight: String
    @Field(key: .string(BanchanStore.DishColumn.ingredients)) package var ingredients: String
    @Field(key: .string(BanchanStore.DishColumn.storage)) package var storageInfo: String
    @Field(key: .string(BanchanStore.DishColumn.detailSections)) package var detailSections: [String]
    @Field(key: .string(BanchanStore.DishColumn.thumbCount)) package var thumbCount: Int
    /// Units left. Orders take units in the same transaction that records them.
    @Field(key: .string(BanchanStore.DishColumn.stock)) package var stock: Int
    /// Set once an admin changes the dish; the seeder then leaves it alone.
    @Field(key: .string(BanchanStore.DishColumn.editedByAdmin)) package var editedByAdmin: Bool
    @OptionalField(key: .string(BanchanStore.DishColumn.retiredAt)) package var retiredAt: Date?
    @Timestamp(key: .string(BanchanStore.DishColumn.createdAt), on: .create, format: .microseconds) package var createdAt: Date?
    @Timestamp(key: .string(BanchanStore.DishColumn.updatedAt), on: .update, format: .microseconds) package var updatedAt: Date?

    package init() {}

    package init(_ dish: Dish, position: Int, stock: Int) {
        apply(dish)
        self.position = position
        self.stock = stock
        self.editedByAdmin = false
    }

    package func apply(_ dish: Dish) {
        hash = dish.hash
        section = dish.section.rawValue
        title = dish.title
        summary = dish.description
        salePrice = dish.salePrice
        originalPrice = dish.originalPrice
        badges = dish.badges.map(\.rawValue)
        deliveryTypes = dish.deliveryTypes.map(\.rawValue)
        pointRate = dish.pointRate
        deliveryInfo = dish.deliveryInfo
        minQuantity = dish.minQuantity
        maxQuantity = dish.maxQuantity
        emoji = dish.emoji
        color = dish.color
        weight = dish.weight
        ingredients = dish.ingredients
        storageInfo = dish.storage
        detailSections = dish.detailSections
        thumbCount = dish.thumbCount
    }
}

/// One dish in someone's cart: an account's (`user:…`) or an anonymous device's (`device:…`).
final class CartItem: Model, @unchecked Sendable {
    static let schema = "banchan_cart_items"

    @ID(key: .id) var id: UUID?
    @Field(key: .string(BanchanStore.CartColumn.ownerKey)) var ownerKey: String
    @Parent(key: .string(BanchanStore.CartColumn.dishID)) var dish: DishRecord
    @Field(key: .string(BanchanStore.CartColumn.quantity)) var quantity: Int
    @Timestamp(key: .string(BanchanStore.CartColumn.createdAt), on: .create, format: .microseconds) var createdAt: Date?

    init() {}

    init(ownerKey: String, dishID: UUID, quantity: Int) {
        self.ownerKey = ownerKey
        self.$dish.id = dishID
        self.quantity = quantity
    }
}

/// An order: what was bought at which prices, and where its payment stands.
final class BanchanOrder: Model, @unchecked Sendable {
    static let schema = "banchan_orders"

    @ID(key: .id) var id: UUID?
    @Field(key: .string(BanchanStore.OrderColumn.ownerKey)) var ownerKey: String
    /// The account while it exists (withdrawal keeps the order for the books, without the link).
    @OptionalParent(key: .string(BanchanStore.OrderColumn.userID)) var user: User?
    @Enum(key: .string(BanchanStore.OrderColumn.status)) var status: OrderStatus
    @Field(key: .string(BanchanStore.OrderColumn.itemsTotal)) var itemsTotal: Int
    @Field(key: .string(BanchanStore.OrderColumn.deliveryFee)) var deliveryFee: Int
    @Field(key: .string(BanchanStore.OrderColumn.total)) var total: Int
    @Field(key: .string(BanchanStore.OrderColumn.points)) var points: Int
    /// The id the payment provider knows the order by.
    @Field(key: .string(BanchanStore.OrderColumn.merchantUID)) var merchantUID: String
    @OptionalField(key: .string(BanchanStore.OrderColumn.paymentProvider)) var paymentProvider: String?
    /// The provider's id of the payment (PortOne's `imp_uid`).
    @OptionalField(key: .string(BanchanStore.OrderColumn.paymentID)) var paymentID: String?
    @OptionalField(key: .string(BanchanStore.OrderColumn.paidAt)) var paidAt: Date?
    @OptionalField(key: .string(BanchanStore.OrderColumn.cancelledAt)) var cancelledAt: Date?
    @OptionalField(key: .string(BanchanStore.OrderColumn.cancelReason)) var cancelReason: String?
    /// `Idempotency-Key` of the request that created it, and a digest of that request's body.
    @OptionalField(key: .string(BanchanStore.OrderColumn.idempotencyKey)) var idempotencyKey: String?
    @OptionalField(key: .string(BanchanStore.OrderColumn.requestDigest)) var requestDigest: String?
    @Timestamp(key: .string(BanchanStore.OrderColumn.createdAt), on: .create, format: .microseconds) var createdAt: Date?
    @Timestamp(key: .string(BanchanStore.OrderColumn.updatedAt), on: .update, format: .microseconds) var updatedAt: Date?
    @Children(for: \.$order) var items: [BanchanOrderItem]

    init() {}

    /// The loaded lines in the order the customer added them.
    var lines: [BanchanOrderItem] { ($items.value ?? []).sorted { $0.line < $1.line } }

    /// What the order's refunds are recorded under (`Refunds`).
    static func refundSubject(_ id: UUID?) -> String { "banchan_order:\(id?.uuidString ?? "")" }
}

/// A line of an order, with the title and price as they were when ordered.
final class BanchanOrderItem: Model, @unchecked Sendable {
    static let schema = "banchan_order_items"

    @ID(key: .id) var id: UUID?
    @Parent(key: .string(BanchanStore.ItemColumn.orderID)) var order: BanchanOrder
    /// Position in the order, as the customer added the dishes.
    @Field(key: .string(BanchanStore.ItemColumn.line)) var line: Int
    @Field(key: .string(BanchanStore.ItemColumn.dishID)) var dishID: UUID
    @Field(key: .string(BanchanStore.ItemColumn.hash)) var hash: String
    @Field(key: .string(BanchanStore.ItemColumn.title)) var title: String
    @Field(key: .string(BanchanStore.ItemColumn.unitPrice)) var unitPrice: Int
    @Field(key: .string(BanchanStore.ItemColumn.quantity)) var quantity: Int
    @Field(key: .string(BanchanStore.ItemColumn.pointsPerUnit)) var pointsPerUnit: Int

    init() {}
}
