import Foundation
import enum Platform.GroupedDigits

/// The shop's three sections, in the order the app shows them.
public enum DishSection: String, Codable, Sendable, CaseIterable {
    /// 메인요리
    case main
    /// 국·찌개
    case soup
    /// 밑반찬
    case side
}

/// How a dish reaches the door. The raw values are the Korean labels the shipped app shows.
public enum DeliveryType: String, Codable, Sendable, CaseIterable {
    case dawn = "새벽배송"
    case parcel = "전국택배"

    /// The code the native API uses.
    public var code: String { self == .dawn ? "dawn" : "parcel" }
}

/// Labels on a dish card. The raw values are the Korean labels the shipped app shows.
public enum DishBadge: String, Codable, Sendable, CaseIterable {
    case event = "이벤트특가"
    case launch = "런칭특가"
    case best = "베스트"
    case limited = "한정수량"

    public var code: String {
        switch self {
        case .event: return "event"
        case .launch: return "launch"
        case .best: return "best"
        case .limited: return "limited"
        }
    }
}

/// A dish as the catalog describes it. Stock is kept apart: it changes with every order.
public struct Dish: Codable, Sendable, Hashable {
    /// Short id from the shipped app's catalog (`HBDEF`); used in URLs.
    public var hash: String
    public var section: DishSection
    public var title: String
    public var description: String
    /// What the customer pays per unit, in won.
    public var salePrice: Int
    /// The struck-through price before a discount; nil when not discounted.
    public var originalPrice: Int?
    public var badges: [DishBadge]
    public var deliveryTypes: [DeliveryType]
    /// Points earned, in percent of the sale price.
    public var pointRate: Int
    public var deliveryInfo: String
    public var minQuantity: Int
    public var maxQuantity: Int
    /// Artwork: the emoji drawn on `color` for the generated images.
    public var emoji: String
    public var color: String
    public var weight: String
    public var ingredients: String
    public var storage: String
    /// Paragraphs of the detail page, each drawn as a detail image.
    public var detailSections: [String]
    /// How many detail thumbnails the page pages through.
    public var thumbCount: Int

    public init(
        hash: String, section: DishSection, title: String, description: String, salePrice: Int, originalPrice: Int?,
        badges: [DishBadge], deliveryTypes: [DeliveryType], pointRate: Int, deliveryInfo: String,
        minQuantity: Int, maxQuantity: Int, emoji: String, color: String, weight: String, ingredients: String,
        storage: String, detailSections: [String], thumbCount: Int
    ) {
        self.hash = hash
        self.section = section
        self.title = title
        self.description = description
        self.salePrice = salePrice
        self.originalPrice = originalPrice
        self.badges = badges
        self.deliveryTypes = deliveryTypes
        self.pointRate = pointRate
        self.deliveryInfo = deliveryInfo
        self.minQuantity = minQuantity
        self.maxQuantity = maxQuantity
        self.emoji = emoji
        self.color = color
        self.weight = weight
        self.ingredients = ingredients
        self.storage = storage
        self.detailSections = detailSections
        self.thumbCount = thumbCount
    }

    public var isDiscounted: Bool { (originalPrice ?? 0) > salePrice }

    /// Points for one unit: the rate of the sale price, rounded down (12,640원 at 1% → 126).
    public var pointsPerUnit: Int { salePrice * pointRate / 100 }

    /// Problems that make a dish unfit to sell, for the catalog check and admin edits.
    public var problems: [String] {
        var found: [String] = []
        if hash.range(of: "^[A-Z0-9]{3,12}$", options: .regularExpression) == nil { found.append("hash") }
        if title.trimmingCharacters(in: .whitespaces).isEmpty || !title.fits(characters: 60, bytes: 240) { found.append("title") }
        if !description.fits(characters: 200, bytes: 800) { found.append("description") }
        if !deliveryInfo.fits(characters: 300, bytes: 1_200) { found.append("deliveryInfo") }
        if salePrice <= 0 || salePrice > 10_000_000 { found.append("salePrice") }
        if let originalPrice, originalPrice <= salePrice || originalPrice > 100_000_000 { found.append("originalPrice") }
        if deliveryTypes.isEmpty { found.append("deliveryTypes") }
        if !(0...100).contains(pointRate) { found.append("pointRate") }
        if minQuantity < 1 || maxQuantity < minQuantity || maxQuantity > 999 { found.append("quantity") }
        if emoji.isEmpty || !emoji.fits(characters: 2, bytes: 32, codePoints: 16) { found.append("emoji") }
        if color.range(of: "^#[0-9A-Fa-f]{6}$", options: .regularExpression) == nil { found.append("color") }
        if !(1...8).contains(thumbCount) { found.append("thumbCount") }
        if detailSections.count > 8 || !detailSections.allSatisfy({ $0.fits(characters: 300, bytes: 1_200) }) { found.append("detailSections") }
        return found
    }
}

/// Prices as the shop writes them: thousands separators and 원 (`15,800원`).
public enum Won {
    public static func format(_ amount: Int) -> String {
        GroupedDigits.format(amount) + "원"
    }
}
