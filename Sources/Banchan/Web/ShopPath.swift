import Platform

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
}
