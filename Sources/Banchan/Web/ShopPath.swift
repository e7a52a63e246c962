package import Platform

/// The shop's page paths, in one place: the route table (`BanchanPages.boot`) registers them and
/// links, form actions and redirects fill them in, so a renamed page cannot leave a stale link.
package enum ShopPath {
    package static let home: PagePath = "/shop"
    package static let cart: PagePath = "/shop/cart"
    package static let orders: PagePath = "/shop/orders"
    package static let dish: PagePath1 = "/shop/dishes/:hash"
    package static let item: PagePath1 = "/shop/cart/:hash"
    package static let removeItem: PagePath1 = "/shop/cart/:hash/remove"
    package static let order: PagePath1 = "/shop/orders/:order"
    package static let pay: PagePath1 = "/shop/orders/:order/pay"
    package static let cancel: PagePath1 = "/shop/orders/:order/cancel"
    package static let checkout: PagePath = "/shop/checkout"
    /// "주문이 완료됐어요", where paying leads.
    package static let complete: PagePath1 = "/shop/orders/:order/complete"
    package static let receipt: PagePath1 = "/shop/orders/:order/receipt"
    /// The order page's WebSocket: the order's moves, as they happen.
    package static let orderLive: PagePath1 = "/shop/orders/:order/live"
    package static let addresses: PagePath = "/shop/addresses"
    package static let newAddress: PagePath = "/shop/addresses/new"
    /// The form to change an address (GET) and where it posts (POST): not `/shop/addresses/:address`,
    /// which would also take `/shop/addresses/new`.
    package static let editAddress: PagePath1 = "/shop/addresses/:address/edit"
    package static let removeAddress: PagePath1 = "/shop/addresses/:address/remove"
    package static let defaultAddress: PagePath1 = "/shop/addresses/:address/default"
}
