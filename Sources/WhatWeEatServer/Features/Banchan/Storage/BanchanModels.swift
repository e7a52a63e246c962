import Fluent
import SQLKit
import Foundation

/// A dish as stored: the catalog's description plus its stock, which orders change.
final class DishRecord: Model, @unchecked Sendable {
    static let schema = "banchan_dishes"

    @ID(key: .id) var id: UUID?
    @Field(key: "hash") var hash: String
    @Field(key: "section") var section: String
    /// Order within its section (catalog order); lists page by (position, id).
    @Field(key: "position") var position: Int
    @Field(key: "title") var title: String
    @Field(key: "description") var summary: String
    @Field(key: "sale_price") var salePrice: Int
    @OptionalField(key: "original_price") var originalPrice: Int?
    @Field(key: "badges") var badges: [String]
    @Field(key: "delivery_types") var deliveryTypes: [String]
    @Field(key: "point_rate") var pointRate: Int
    @Field(key: "delivery_info") var deliveryInfo: String
    @Field(key: "min_quantity") var minQuantity: Int
    @Field(key: "max_quantity") var maxQuantity: Int
    @Field(key: "emoji") var emoji: String
    @Field(key: "color") var color: String
    @Field(key: "weight") var weight: String
    @Field(key: "ingredients") var ingredients: String
    @Field(key: "storage") var storageInfo: String
    @Field(key: "detail_sections") var detailSections: [String]
    @Field(key: "thumb_count") var thumbCount: Int
    /// Units left. Orders take units in the same transaction that records them.
    @Field(key: "stock") var stock: Int
    /// Set once an admin changes the dish; the seeder then leaves it alone.
    @Field(key: "edited_by_admin") var editedByAdmin: Bool
    @OptionalField(key: "retired_at") var retiredAt: Date?
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update, format: .microseconds) var updatedAt: Date?

    init() {}

    init(_ dish: Dish, position: Int, stock: Int) {
        apply(dish)
        self.position = position
        self.stock = stock
        self.editedByAdmin = false
    }

    func apply(_ dish: Dish) {
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

    /// The domain value; unknown stored enum strings (never written by us) are dropped.
    var dish: Dish {
        Dish(
            hash: hash, section: DishSection(rawValue: section) ?? .side, title: title, description: summary,
            salePrice: salePrice, originalPrice: originalPrice, badges: badges.compactMap(DishBadge.init(rawValue:)),
            deliveryTypes: deliveryTypes.compactMap(DeliveryType.init(rawValue:)), pointRate: pointRate,
            deliveryInfo: deliveryInfo, minQuantity: minQuantity, maxQuantity: maxQuantity, emoji: emoji, color: color,
            weight: weight, ingredients: ingredients, storage: storageInfo, detailSections: detailSections, thumbCount: thumbCount
        )
    }
}

/// One dish in someone's cart: an account's (`user:…`) or an anonymous device's (`device:…`).
final class CartItem: Model, @unchecked Sendable {
    static let schema = "banchan_cart_items"

    @ID(key: .id) var id: UUID?
    @Field(key: "owner_key") var ownerKey: String
    @Parent(key: "dish_id") var dish: DishRecord
    @Field(key: "quantity") var quantity: Int
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?

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
    @Field(key: "owner_key") var ownerKey: String
    /// The account while it exists (withdrawal keeps the order for the books, without the link).
    @OptionalParent(key: "user_id") var user: User?
    @Enum(key: "status") var status: OrderStatus
    @Field(key: "items_total") var itemsTotal: Int
    @Field(key: "delivery_fee") var deliveryFee: Int
    @Field(key: "total") var total: Int
    @Field(key: "points") var points: Int
    /// The id the payment provider knows the order by.
    @Field(key: "merchant_uid") var merchantUID: String
    @OptionalField(key: "payment_provider") var paymentProvider: String?
    /// The provider's id of the payment (PortOne's `imp_uid`).
    @OptionalField(key: "payment_id") var paymentID: String?
    @OptionalField(key: "paid_at") var paidAt: Date?
    @OptionalField(key: "cancelled_at") var cancelledAt: Date?
    @OptionalField(key: "cancel_reason") var cancelReason: String?
    /// `Idempotency-Key` of the request that created it, and a digest of that request's body.
    @OptionalField(key: "idempotency_key") var idempotencyKey: String?
    @OptionalField(key: "request_digest") var requestDigest: String?
    @Timestamp(key: "created_at", on: .create, format: .microseconds) var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update, format: .microseconds) var updatedAt: Date?
    @Children(for: \.$order) var items: [BanchanOrderItem]

    init() {}

    /// The loaded lines in the order the customer added them.
    var lines: [BanchanOrderItem] { ($items.value ?? []).sorted { $0.line < $1.line } }
}

/// A line of an order, with the title and price as they were when ordered.
final class BanchanOrderItem: Model, @unchecked Sendable {
    static let schema = "banchan_order_items"

    @ID(key: .id) var id: UUID?
    @Parent(key: "order_id") var order: BanchanOrder
    /// Position in the order, as the customer added the dishes.
    @Field(key: "line") var line: Int
    @Field(key: "dish_id") var dishID: UUID
    @Field(key: "hash") var hash: String
    @Field(key: "title") var title: String
    @Field(key: "unit_price") var unitPrice: Int
    @Field(key: "quantity") var quantity: Int
    @Field(key: "points_per_unit") var pointsPerUnit: Int

    init() {}

    init(orderID: UUID, line: Int, dish: DishRecord, quantity: Int) throws {
        self.$order.id = orderID
        self.line = line
        self.dishID = try dish.requireID()
        self.hash = dish.hash
        self.title = dish.title
        self.unitPrice = dish.salePrice
        self.quantity = quantity
        self.pointsPerUnit = dish.dish.pointsPerUnit
    }
}
