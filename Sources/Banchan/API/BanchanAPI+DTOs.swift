import Accounts
import Fluent
import Payments
import Platform
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

    init(_ row: BanchanStore.DishRow, images: BanchanImages.URLs) {
        self.init(row.dish, stock: row.stock, images: images)
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

    /// `deliveryInfo`: how it travels with the shop's terms in force (`Application.deliveryInfo(of:)`).
    init(_ row: BanchanStore.DishRow, images: BanchanImages.URLs, delivery: DeliveryFeeRule, deliveryInfo: String) {
        let value = row.dish
        dish = DishSummary(row, images: images)
        pointRate = value.pointRate
        pointsPerUnit = value.pointsPerUnit
        self.deliveryInfo = deliveryInfo
        deliveryFee = .init(delivery)
        weight = value.weight
        ingredients = value.ingredients
        storage = value.storage
        detailSections = value.detailSections
        thumbImages = images.thumbs(value)
        detailImages = images.details(value)
        minQuantity = value.minQuantity
        maxQuantity = value.maxQuantity
        stock = row.stock
    }
}

/// An order as its owner sees it.
struct OrderResponse: Content {
    package struct Item: Content {
        package let hash: String
        package let title: String
        let unitPrice: Int
        package let quantity: Int
        let subtotal: Int
        /// The price before the dish's sale when it was ordered; null without a sale.
        @NullEncoded var originalPrice: Int?
        /// Its position in the order (0 first), as `POST /api/v1/admin/orders/{id}/refunds` names it.
        let line: Int
        /// How many of `quantity` the shop refunded.
        let refundedQuantity: Int
    }
    /// Some units of one line the shop refunded: `pending` until the provider confirms it, then `done`.
    struct LineRefundResponse: Content {
        let id: UUID
        let line: Int
        let quantity: Int
        let amount: Int
        let reason: String
        let refundedAt: Date
        let status: Refunds.State
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
    /// The number people read aloud (`20261127-0042`).
    @NullEncoded var number: String?
    /// When it was placed (as `createdAt`), and when it reached each later step of its progress.
    @NullEncoded var placedAt: Date?
    @NullEncoded var preparingAt: Date?
    @NullEncoded var shippedAt: Date?
    @NullEncoded var deliveredAt: Date?
    @NullEncoded var cancelRequestedAt: Date?
    /// `pending` while a refund this order owes is not confirmed by the provider, then `done`;
    /// null when it owes none or in lists (read an order alone to see it).
    @NullEncoded var refundStatus: Refunds.State?
    /// Where it goes; null for an order placed without one (the 배민찬 app's).
    @NullEncoded var delivery: DeliveryResponse?
    /// How the buyer chose to pay at checkout (PortOne's names), when they chose.
    @NullEncoded var paymentMethod: Delivery.PaymentMethod?
    /// How it travels once shipped, when the shop said; null before.
    @NullEncoded var shipment: ShipmentResponse?
    /// Won the shop gave back by line refunds (the rest of `total` stands).
    let refundedTotal: Int
    /// Each line refund, oldest first; null in lists (read an order alone to see them).
    @NullEncoded var lineRefunds: [LineRefundResponse]?

    init(_ order: BanchanStore.OrderRow, gateway: String?, refund: Refunds.State? = nil,
         lineRefunds: [(refund: BanchanStore.LineRefund, state: Refunds.State)]? = nil) {
        id = order.id
        merchantUID = order.merchantUID
        status = order.status
        items = order.lines.map { Item(hash: $0.hash, title: $0.title, unitPrice: $0.unitPrice, quantity: $0.quantity, subtotal: $0.unitPrice * $0.quantity,
                                       originalPrice: $0.originalPrice, line: $0.line, refundedQuantity: $0.refundedQuantity) }
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
        number = order.steps.number
        placedAt = order.steps.placedAt
        preparingAt = order.steps.preparingAt
        shippedAt = order.steps.shippedAt
        deliveredAt = order.steps.deliveredAt
        cancelRequestedAt = order.steps.cancelRequestedAt
        refundStatus = refund
        delivery = order.delivery.map(DeliveryResponse.init)
        paymentMethod = order.delivery?.paymentMethod
        shipment = order.shipment.map(ShipmentResponse.init)
        refundedTotal = order.refundedTotal
        self.lineRefunds = lineRefunds?.map {
            LineRefundResponse(id: $0.refund.id, line: $0.refund.line, quantity: $0.refund.quantity, amount: $0.refund.amount, reason: $0.refund.reason,
                               refundedAt: $0.refund.refundedAt, status: $0.state)
        }
    }

    /// An order read alone: with its refund's state and its line refunds.
    static func alone(_ order: BanchanStore.OrderRow, _ req: Request) async throws -> OrderResponse {
        let service = req.banchan
        return OrderResponse(order, gateway: req.application.paymentGateway?.name, refund: try await service.refundState(ofOrder: order.id),
                             lineRefunds: order.refundedUnits > 0 ? try await service.lineRefunds(ofOrder: order.id) : [])
    }
}

/// How a shipped order travels: its courier (`cj`, `epost`, `hanjin`, `lotte`, `logen`, or `shop`
/// for the shop's own delivery), the 송장번호 and the courier's page for it (null for `shop`).
struct ShipmentResponse: Content {
    let courier: Courier
    @NullEncoded var trackingNumber: String?
    @NullEncoded var trackingURL: String?

    init(_ shipment: Shipment) {
        courier = shipment.courier
        trackingNumber = shipment.trackingNumber
        trackingURL = shipment.trackingURL
    }
}

/// Where an order goes, as placed.
struct DeliveryResponse: Content {
    let recipient: String
    let phone: String
    @NullEncoded var postcode: String?
    let address: String
    let addressDetail: String
    let slot: Delivery.Slot
    let note: String
    /// `yyyy-MM-dd` of the morning a 새벽배송 arrives; null for 택배.
    @NullEncoded var arrivesOn: String?

    init(_ delivery: BanchanStore.OrderDelivery) {
        recipient = delivery.address.recipient
        phone = delivery.address.phone
        postcode = delivery.address.postcode
        address = delivery.address.address
        addressDetail = delivery.address.addressDetail
        slot = delivery.slot
        note = delivery.note
        arrivesOn = delivery.arrivesOn
    }
}

/// One of an account's saved addresses.
struct AddressResponse: Content {
    let id: UUID
    let recipient: String
    let phone: String
    @NullEncoded var postcode: String?
    let address: String
    let addressDetail: String
    let isDefault: Bool
    let createdAt: Date

    init(_ saved: BanchanStore.SavedAddress) {
        id = saved.id
        recipient = saved.recipient
        phone = saved.phone
        postcode = saved.postcode
        address = saved.address
        addressDetail = saved.addressDetail
        isDefault = saved.isDefault
        createdAt = saved.createdAt
    }
}

/// A saved address as sent: the address fields, and whether checkout should start from it.
struct AddressInput: Content {
    var recipient: String?
    var phone: String?
    var postcode: String?
    var address: String?
    var addressDetail: String?
    var isDefault: Bool?

    func checked() throws -> Delivery.Address {
        try Delivery.Address.validated(recipient: recipient, phone: phone, postcode: postcode, address: address, addressDetail: addressDetail)
    }
}

/// Where an order placed through the API goes: a saved address (`addressId`) or the fields, how it
/// travels, a note for the courier and the payment method.
struct DeliveryInput: Content {
    /// A saved address's id; empty is none, anything else that is not one of the account's is 404.
    var addressId: String?
    var recipient: String?
    var phone: String?
    var postcode: String?
    var address: String?
    var addressDetail: String?
    var slot: Delivery.Slot
    var note: String?
}

extension BanchanAPI {
    /// What administrators send to add or change a dish (every field optional on PATCH).
    struct DishInput: Content {
        var hash: String?
        var section: DishSection?
        var title: String?
        var description: String?
        var salePrice: Int?
        /// Send 0 to remove the discount.
        var originalPrice: Int?
        var badges: [DishBadge]?
        var deliveryTypes: [DeliveryType]?
        var pointRate: Int?
        var deliveryInfo: String?
        var minQuantity: Int?
        var maxQuantity: Int?
        var emoji: String?
        var color: String?
        var weight: String?
        var ingredients: String?
        var storage: String?
        var detailSections: [String]?
        var thumbCount: Int?
        var stock: Int?
    }

}

extension BanchanAPI.DishInput {
    /// A new dish from the fields sent; hash, section, title and sale price are required.
    func newDish() throws -> Dish {
        Dish(
            hash: try hash.required("hash"), section: try section.required("section"),
            title: try title.required("title"), description: description ?? "",
            salePrice: try salePrice.required("salePrice"), originalPrice: originalPrice.flatMap { $0 == 0 ? nil : $0 },
            badges: badges ?? [], deliveryTypes: deliveryTypes ?? [.dawn, .parcel], pointRate: pointRate ?? 1,
            deliveryInfo: deliveryInfo ?? "", minQuantity: minQuantity ?? 1, maxQuantity: maxQuantity ?? 10,
            emoji: emoji ?? "🍱", color: color ?? "#FDE68A", weight: weight ?? "", ingredients: ingredients ?? "",
            storage: storage ?? "", detailSections: detailSections ?? [], thumbCount: thumbCount ?? 3)
    }

    /// The fields sent, written over a dish; a dish's hash never changes.
    func apply(to dish: inout Dish) throws {
        if let hash, hash != dish.hash { throw AppError.invalid("dish_hash_immutable") }
        if let section { dish.section = section }
        if let title { dish.title = title }
        if let description { dish.description = description }
        if let salePrice { dish.salePrice = salePrice }
        if let originalPrice { dish.originalPrice = originalPrice == 0 ? nil : originalPrice }
        if let badges { dish.badges = badges }
        if let deliveryTypes { dish.deliveryTypes = deliveryTypes }
        if let pointRate { dish.pointRate = pointRate }
        if let deliveryInfo { dish.deliveryInfo = deliveryInfo }
        if let minQuantity { dish.minQuantity = minQuantity }
        if let maxQuantity { dish.maxQuantity = maxQuantity }
        if let emoji { dish.emoji = emoji }
        if let color { dish.color = color }
        if let weight { dish.weight = weight }
        if let ingredients { dish.ingredients = ingredients }
        if let storage { dish.storage = storage }
        if let detailSections { dish.detailSections = detailSections }
        if let thumbCount { dish.thumbCount = thumbCount }
    }
}
