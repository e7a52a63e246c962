import Fluent
import Vapor

/// A dish in a list.
struct DishSummary: Content {
    let hash: String
    let section: DishSection
    let title: String
    let description: String
    let image: String
    let salePrice: Int
    /// The struck-through price when discounted, else an explicit null.
    @NullEncoded var originalPrice: Int?
    let badges: [String]
    let deliveryTypes: [String]
    let soldOut: Bool

    init(_ record: DishRecord, images: BanchanImages.URLs) {
        self.init(record.dish, stock: record.stock, images: images)
    }

    init(_ dish: Dish, stock: Int, images: BanchanImages.URLs) {
        hash = dish.hash
        section = dish.section
        title = dish.title
        description = dish.description
        image = images.main(dish.hash)
        salePrice = dish.salePrice
        originalPrice = dish.originalPrice
        badges = dish.badges.map(\.code)
        deliveryTypes = dish.deliveryTypes.map(\.code)
        soldOut = stock < dish.minQuantity
    }
}

/// A dish's page.
struct DishDetail: Content {
    let dish: DishSummary
    let pointRate: Int
    let pointsPerUnit: Int
    let deliveryInfo: String
    let deliveryFee: BanchanAPI.DeliveryFeeResponse
    let weight: String
    let ingredients: String
    let storage: String
    let detailSections: [String]
    let thumbImages: [String]
    let detailImages: [String]
    let minQuantity: Int
    let maxQuantity: Int
    let stock: Int

    init(_ record: DishRecord, images: BanchanImages.URLs, delivery: DeliveryFeeRule) {
        let value = record.dish
        dish = DishSummary(record, images: images)
        pointRate = value.pointRate
        pointsPerUnit = value.pointsPerUnit
        deliveryInfo = value.deliveryInfo
        deliveryFee = .init(delivery)
        weight = value.weight
        ingredients = value.ingredients
        storage = value.storage
        detailSections = value.detailSections
        thumbImages = images.thumbs(value)
        detailImages = images.details(value)
        minQuantity = value.minQuantity
        maxQuantity = value.maxQuantity
        stock = record.stock
    }
}

/// An order as its owner sees it.
struct OrderResponse: Content {
    struct Item: Content {
        let hash: String
        let title: String
        let unitPrice: Int
        let quantity: Int
        let subtotal: Int
    }
    let id: UUID
    let merchantUID: String
    let status: OrderStatus
    let items: [Item]
    let itemsTotal: Int
    let deliveryFee: Int
    let total: Int
    let points: Int
    /// The provider that confirms payments for this server (`portone`, `test`), when payments are on.
    @NullEncoded var paymentGateway: String?
    @NullEncoded var paymentID: String?
    @NullEncoded var paidAt: Date?
    @NullEncoded var cancelledAt: Date?
    @NullEncoded var cancelReason: String?
    @NullEncoded var createdAt: Date?

    init(_ order: BanchanOrder, gateway: String?) throws {
        id = try order.requireID()
        merchantUID = order.merchantUID
        status = order.status
        items = order.lines.map { Item(hash: $0.hash, title: $0.title, unitPrice: $0.unitPrice, quantity: $0.quantity, subtotal: $0.unitPrice * $0.quantity) }
        itemsTotal = order.itemsTotal
        deliveryFee = order.deliveryFee
        total = order.total
        points = order.points
        paymentGateway = gateway
        paymentID = order.paymentID
        paidAt = order.paidAt
        cancelledAt = order.cancelledAt
        cancelReason = order.cancelReason
        createdAt = order.createdAt
    }
}
