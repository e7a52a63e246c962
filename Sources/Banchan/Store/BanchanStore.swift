package import Fluent
import Platform
import SQLKit
import Vapor

/// The one owner of the shop's tables: `banchan_dishes` here, the carts (`BanchanStore+Cart.swift`)
/// and the orders with the stock they take and give back (`BanchanStore+Orders.swift`). Columns are
/// named once (`DishColumn`, `CartColumn`, `OrderColumn`, `ItemColumn`; the models' keys are these
/// too), dishes are read without models (`DishRow`), and every dish the seed or an administrator
/// writes and every change of stock is announced, so every instance's listings follow.
package struct BanchanStore {
    package let database: any Database
    let environment: BanchanEnvironment

    package init(database: any Database, environment: BanchanEnvironment) {
        self.database = database
        self.environment = environment
    }

    /// The columns of `banchan_dishes`, each named once — in `DishRow`'s coding keys, or here for a
    /// column no row reads — and used by the model's keys and every statement.
    package enum DishColumn {
        package static let id = DishRow.CodingKeys.id.rawValue
        package static let hash = DishRow.CodingKeys.hash.rawValue
        package static let section = DishRow.CodingKeys.section.rawValue
        package static let position = DishRow.CodingKeys.position.rawValue
        package static let title = DishRow.CodingKeys.title.rawValue
        package static let description = DishRow.CodingKeys.summary.rawValue
        package static let salePrice = DishRow.CodingKeys.salePrice.rawValue
        package static let originalPrice = DishRow.CodingKeys.originalPrice.rawValue
        package static let badges = DishRow.CodingKeys.badges.rawValue
        package static let deliveryTypes = DishRow.CodingKeys.deliveryTypes.rawValue
        package static let pointRate = DishRow.CodingKeys.pointRate.rawValue
        package static let deliveryInfo = DishRow.CodingKeys.deliveryInfo.rawValue
        package static let minQuantity = DishRow.CodingKeys.minQuantity.rawValue
        package static let maxQuantity = DishRow.CodingKeys.maxQuantity.rawValue
        package static let emoji = DishRow.CodingKeys.emoji.rawValue
        package static let color = DishRow.CodingKeys.color.rawValue
        package static let weight = DishRow.CodingKeys.weight.rawValue
        package static let ingredients = DishRow.CodingKeys.ingredients.rawValue
        package static let storage = DishRow.CodingKeys.storageInfo.rawValue
        package static let detailSections = DishRow.CodingKeys.detailSections.rawValue
        package static let thumbCount = DishRow.CodingKeys.thumbCount.rawValue
        package static let stock = DishRow.CodingKeys.stock.rawValue
        package static let editedByAdmin = DishRow.CodingKeys.editedByAdmin.rawValue
        package static let retiredAt = DishRow.CodingKeys.retiredAt.rawValue
        package static let photoKey = DishRow.CodingKeys.photoKey.rawValue
        package static let createdAt = "created_at"
        package static let updatedAt = "updated_at"
    }

    /// A row of `banchan_dishes` as the reads decode it (`BanchanStoreTests` checks it against `DishRecord`).
    package struct DishRow: Codable, StoredDish, Sendable, Equatable {
        package let id: UUID
        package let hash: String
        package let section: String
        package let position: Int
        package let title: String
        package let summary: String
        package let salePrice: Int
        package let originalPrice: Int?
        package let badges: [String]
        package let deliveryTypes: [String]
        package let pointRate: Int
        package let deliveryInfo: String
        package let minQuantity: Int
        package let maxQuantity: Int
        package let emoji: String
        package let color: String
        package let weight: String
        package let ingredients: String
        package let storageInfo: String
        package let detailSections: [String]
        package let thumbCount: Int
        package let stock: Int
        package let editedByAdmin: Bool
        package let retiredAt: Date?
        /// The operator's photo of the dish (a stored file's key), shown instead of the drawn
        /// picture; nil for the drawn one.
        package let photoKey: String?

        enum CodingKeys: String, CodingKey {
            case id, hash, section, position, title, badges, emoji, color, weight, ingredients, stock
            case summary = "description", storageInfo = "storage"
            case salePrice = "sale_price", originalPrice = "original_price", deliveryTypes = "delivery_types"
            case pointRate = "point_rate", deliveryInfo = "delivery_info", minQuantity = "min_quantity"
            case maxQuantity = "max_quantity", detailSections = "detail_sections", thumbCount = "thumb_count"
            case editedByAdmin = "edited_by_admin", retiredAt = "retired_at", photoKey = "photo_key"
        }

        /// The row a saved model stands for.
        package init(_ record: DishRecord) throws {
            id = try record.requireID()
            hash = record.hash
            section = record.section
            position = record.position
            title = record.title
            summary = record.summary
            salePrice = record.salePrice
            originalPrice = record.originalPrice
            badges = record.badges
            deliveryTypes = record.deliveryTypes
            pointRate = record.pointRate
            deliveryInfo = record.deliveryInfo
            minQuantity = record.minQuantity
            maxQuantity = record.maxQuantity
            emoji = record.emoji
            color = record.color
            weight = record.weight
            ingredients = record.ingredients
            storageInfo = record.storageInfo
            detailSections = record.detailSections
            thumbCount = record.thumbCount
            stock = record.stock
            editedByAdmin = record.editedByAdmin
            retiredAt = record.retiredAt
            photoKey = record.photoKey
        }
    }

    // MARK: Dish reads

    var sql: any SQLDatabase { database.sql }

    private var dishColumns: [any SQLExpression] {
        [DishColumn.id, DishColumn.hash, DishColumn.section, DishColumn.position, DishColumn.title, DishColumn.description,
         DishColumn.salePrice, DishColumn.originalPrice, DishColumn.badges, DishColumn.deliveryTypes, DishColumn.pointRate,
         DishColumn.deliveryInfo, DishColumn.minQuantity, DishColumn.maxQuantity, DishColumn.emoji, DishColumn.color,
         DishColumn.weight, DishColumn.ingredients, DishColumn.storage, DishColumn.detailSections, DishColumn.thumbCount,
         DishColumn.stock, DishColumn.editedByAdmin, DishColumn.retiredAt, DishColumn.photoKey].map { SQLIdentifier($0) }
    }

    /// Every dish, retired ones too, in list order (section position, then id).
    func allDishRows() async throws -> [DishRow] {
        try await sql.select().columns(dishColumns).from(DishRecord.schema)
            .orderBy(DishColumn.position).orderBy(DishColumn.id)
            .all(decoding: DishRow.self)
    }

    /// The dishes on sale, in list order: what the listings in memory hold.
    func dishRowsOnSale() async throws -> [DishRow] {
        try await sql.select().columns(dishColumns).from(DishRecord.schema)
            .where(SQLIdentifier(DishColumn.retiredAt), .is, SQLLiteral.null)
            .orderBy(DishColumn.position).orderBy(DishColumn.id)
            .all(decoding: DishRow.self)
    }

    /// A dish by its hash, on sale or retired, or nil.
    func dishRow(hash: String) async throws -> DishRow? {
        try await sql.select().columns(dishColumns).from(DishRecord.schema)
            .where(SQLIdentifier(DishColumn.hash), .equal, SQLBind(hash))
            .first(decoding: DishRow.self)
    }

    /// A dish on sale by its hash, or nil (unknown or retired).
    func dishRowOnSale(hash: String) async throws -> DishRow? {
        try await sql.select().columns(dishColumns).from(DishRecord.schema)
            .where(SQLIdentifier(DishColumn.hash), .equal, SQLBind(hash))
            .where(SQLIdentifier(DishColumn.retiredAt), .is, SQLLiteral.null)
            .first(decoding: DishRow.self)
    }
}

/// The stored fields that make a `Dish`: one conversion for the model (writes) and the row (reads).
package protocol StoredDish {
    var hash: String { get }
    var section: String { get }
    var title: String { get }
    var summary: String { get }
    var salePrice: Int { get }
    var originalPrice: Int? { get }
    var badges: [String] { get }
    var deliveryTypes: [String] { get }
    var pointRate: Int { get }
    var deliveryInfo: String { get }
    var minQuantity: Int { get }
    var maxQuantity: Int { get }
    var emoji: String { get }
    var color: String { get }
    var weight: String { get }
    var ingredients: String { get }
    var storageInfo: String { get }
    var detailSections: [String] { get }
    var thumbCount: Int { get }
}

extension StoredDish {
    /// The domain value; unknown stored enum strings (never written by us) are dropped.
    package var dish: Dish {
        Dish(
            hash: hash, section: DishSection(rawValue: section) ?? .side, title: title, description: summary,
            salePrice: salePrice, originalPrice: originalPrice, badges: badges.compactMap(DishBadge.init(rawValue:)),
            deliveryTypes: deliveryTypes.compactMap(DeliveryType.init(rawValue:)), pointRate: pointRate,
            deliveryInfo: deliveryInfo, minQuantity: minQuantity, maxQuantity: maxQuantity, emoji: emoji, color: color,
            weight: weight, ingredients: ingredients, storage: storageInfo, detailSections: detailSections, thumbCount: thumbCount
        )
    }
}

extension Application {
    /// The shop's store on the application's database.
    var banchanStore: BanchanStore { BanchanStore(database: db, environment: banchanEnvironment) }
}
