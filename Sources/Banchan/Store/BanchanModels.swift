import Accounts
package import Fluent
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
    @OptionalField(key: .string(BanchanStore.DishColumn.photoKey)) package var photoKey: String?
    @Timestamp(key: .string(BanchanStore.DishColumn.createdAt), on: .create, format: .microseconds) package var createdAt: Date?
    @Timestamp(key: .string(BanchanStore.DishColumn.updatedAt), on: .update, format: .microseconds) package var updatedAt: Date?

    package init() {}
}

/// One dish in someone's cart: an account's (`user:…`) or an anonymous device's (`device:…`).
package final class CartItem: Model, @unchecked Sendable {
    package static let schema = "banchan_cart_items"

    @ID(key: .id) package var id: UUID?
    @Field(key: BanchanStore.CartColumn.ownerKey.fieldKey) package var ownerKey: String
    @Parent(key: BanchanStore.CartColumn.dishID.fieldKey) package var dish: DishRecord
    @Field(key: BanchanStore.CartColumn.quantity.fieldKey) package var quantity: Int
    @Timestamp(key: BanchanStore.CartColumn.createdAt.fieldKey, on: .create, format: .microseconds) package var createdAt: Date?

    package init() {}
}

/// An order: what was bought at which prices, and where its payment stands.
final class BanchanOrder: Model, @unchecked Sendable {
    static let schema = "banchan_orders"

    @ID(key: .id) var id: UUID?
    @Field(key: BanchanStore.OrderColumn.ownerKey.fieldKey) var ownerKey: String
    /// The account while it exists (withdrawal keeps the order for the books, without the link).
    @OptionalParent(key: BanchanStore.OrderColumn.userID.fieldKey) var user: User?
    @Enum(key: BanchanStore.OrderColumn.status.fieldKey) var status: OrderStatus
    @Field(key: BanchanStore.OrderColumn.itemsTotal.fieldKey) var itemsTotal: Int
    @Field(key: BanchanStore.OrderColumn.deliveryFee.fieldKey) var deliveryFee: Int
    @Field(key: BanchanStore.OrderColumn.total.fieldKey) var total: Int
    @Field(key: BanchanStore.OrderColumn.points.fieldKey) var points: Int
    /// The id the payment provider knows the order by.
    @Field(key: BanchanStore.OrderColumn.merchantUID.fieldKey) var merchantUID: String
    @OptionalField(key: BanchanStore.OrderColumn.paymentProvider.fieldKey) var paymentProvider: String?
    /// The provider's id of the payment (PortOne's `imp_uid`).
    @OptionalField(key: BanchanStore.OrderColumn.paymentID.fieldKey) var paymentID: String?
    @OptionalField(key: BanchanStore.OrderColumn.paidAt.fieldKey) var paidAt: Date?
    @OptionalField(key: BanchanStore.OrderColumn.cancelledAt.fieldKey) var cancelledAt: Date?
    @OptionalField(key: BanchanStore.OrderColumn.cancelReason.fieldKey) var cancelReason: String?
    /// `20261127-0042`; nil only for an order placed before numbers (the migration gives those one).
    @OptionalField(key: BanchanStore.OrderColumn.number.fieldKey) var number: String?
    /// `Idempotency-Key` of the request that created it, and a digest of that request's body.
    @OptionalField(key: BanchanStore.OrderColumn.idempotencyKey.fieldKey) var idempotencyKey: String?
    @OptionalField(key: BanchanStore.OrderColumn.requestDigest.fieldKey) var requestDigest: String?
    @Timestamp(key: BanchanStore.OrderColumn.createdAt.fieldKey, on: .create, format: .microseconds) var createdAt: Date?
    @Timestamp(key: BanchanStore.OrderColumn.updatedAt.fieldKey, on: .update, format: .microseconds) var updatedAt: Date?
    @Children(for: \.$order) var items: [BanchanOrderItem]

    init() {}

    /// The loaded lines in the order the customer added them.
    var lines: [BanchanOrderItem] { ($items.value ?? []).sorted { $0.line < $1.line } }

    /// What the order's refunds are recorded under (`Refunds`).
    static func refundSubject(_ id: UUID?) -> String { "banchan_order:\(id?.uuidString ?? "")" }
    /// The part of the order's payment a line refund is (`Refunds.Request.part`).
    static func lineRefundPart(_ refundID: UUID) -> String { "line:" + refundID.uuidString.lowercased() }
}

/// A line of an order, with the title and price as they were when ordered.
final class BanchanOrderItem: Model, @unchecked Sendable {
    static let schema = "banchan_order_items"

    @ID(key: .id) var id: UUID?
    @Parent(key: BanchanStore.ItemColumn.orderID.fieldKey) var order: BanchanOrder
    /// Position in the order, as the customer added the dishes.
    @Field(key: BanchanStore.ItemColumn.line.fieldKey) var line: Int
    @Field(key: BanchanStore.ItemColumn.dishID.fieldKey) var dishID: UUID
    @Field(key: BanchanStore.ItemColumn.hash.fieldKey) var hash: String
    @Field(key: BanchanStore.ItemColumn.title.fieldKey) var title: String
    @Field(key: BanchanStore.ItemColumn.unitPrice.fieldKey) var unitPrice: Int
    @Field(key: BanchanStore.ItemColumn.quantity.fieldKey) var quantity: Int
    @Field(key: BanchanStore.ItemColumn.pointsPerUnit.fieldKey) var pointsPerUnit: Int
    @OptionalField(key: BanchanStore.ItemColumn.originalPrice.fieldKey) var originalPrice: Int?
    @Field(key: BanchanStore.ItemColumn.refundedQuantity.fieldKey) var refundedQuantity: Int

    init() {}
}
