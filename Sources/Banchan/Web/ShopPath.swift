import Accounts
import Foundation
import Platform

/// The shop's page paths, in one place: links, form actions and redirects use these, so a renamed
/// page cannot leave a stale link behind. (The route table in `BanchanPages.boot` names the same paths.)
package enum ShopPath {
    package static let home = "/shop"
    package static let cart = "/shop/cart"
    package static let orders = "/shop/orders"
    package static func dish(_ hash: String) -> String { "/shop/dishes/\(hash)" }
    package static func item(_ hash: String) -> String { "/shop/cart/\(hash)" }
    package static func removeItem(_ hash: String) -> String { "/shop/cart/\(hash)/remove" }
    package static func order(_ id: UUID) -> String { "/shop/orders/\(id)" }
    package static func pay(_ id: UUID) -> String { "/shop/orders/\(id)/pay" }
    package static func cancel(_ id: UUID) -> String { "/shop/orders/\(id)/cancel" }
}
