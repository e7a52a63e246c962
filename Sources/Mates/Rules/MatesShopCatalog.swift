import Foundation

/// The looks a mate can wear: sprout faces (avatars) and backgrounds. Number 0 of each is free
/// and everyone owns it; the rest are App Store products.
public enum MatesItemKind: String, Sendable, Codable, CaseIterable {
    case avatar, background
}

public struct MatesShopItem: Sendable, Equatable {
    public let kind: MatesItemKind
    public let index: Int
    /// Won (KRW), as the App Store price tier shows it; 0 for the free ones.
    public let price: Int
    /// The App Store product id; nil for the free ones.
    public let productID: String?

    public var id: String { "\(kind.rawValue)-\(index)" }
}

public enum MatesShopCatalog {
    public static let productPrefix = "com.whatweeat.mates."
    public static let avatarCount = 5
    public static let backgroundCount = 8

    public static let items: [MatesShopItem] =
        (0..<avatarCount).map { item(.avatar, $0, price: [0, 1_200, 2_500, 2_500, 2_500][$0]) }
        + (0..<backgroundCount).map { item(.background, $0, price: [0, 1_200, 1_200, 1_200, 2_500, 2_500, 2_500, 2_500][$0]) }

    package static func item(_ kind: MatesItemKind, _ index: Int, price: Int) -> MatesShopItem {
        MatesShopItem(kind: kind, index: index, price: price, productID: index == 0 ? nil : "\(productPrefix)\(kind.rawValue)\(index)")
    }

    public static func item(productID: String) -> MatesShopItem? {
        items.first { $0.productID == productID }
    }

    public static func exists(_ kind: MatesItemKind, _ index: Int) -> Bool {
        index >= 0 && index < (kind == .avatar ? avatarCount : backgroundCount)
    }
}
