import Foundation

/// The shop's page paths, in one place: links, form actions and redirects use these, so a renamed
/// page cannot leave a stale link behind. (The route table in `BanchanPages.boot` names the same paths.)
enum ShopPath {
    static let home = "/shop"
    static let cart = "/shop/cart"
    static let orders = "/shop/orders"
    static func dish(_ hash: String) -> String { "/shop/dishes/\(hash)" }
    static func item(_ hash: String) -> String { "/shop/cart/\(hash)" }
    static func removeItem(_ hash: String) -> String { "/shop/cart/\(hash)/remove" }
    static func order(_ id: UUID) -> String { "/shop/orders/\(id)" }
    static func pay(_ id: UUID) -> String { "/shop/orders/\(id)/pay" }
    static func cancel(_ id: UUID) -> String { "/shop/orders/\(id)/cancel" }
}
