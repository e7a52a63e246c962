import Foundation
package import Platform
import Vapor

/// Each owner's cart as the cart reads it — its lines with each dish's hash and stock — for the
/// cart page, checkout, the cart API and the header's count on every shop page (the joined read
/// was the one statement of a cart page, and a signed-in page's statement halves what it serves).
/// `BanchanStore` forgets an owner's cart whenever it changed it — setting or removing a dish, a
/// device's cart merged at sign-in, an order emptying the cart — once that write committed, here
/// and through the bus on every other instance. A dish's stock or sale changes the lines too: each
/// cart is kept with the listings' version it was read at and read again once that moved (every
/// dish change and every order's stock moves it). Placing an order reads the cart itself.
package final class KeptCarts: Sendable {
    static let topic = "banchan.carts"

    private struct Entry: Sendable {
        let lines: [BanchanStore.CartLineRow]
        let listingsVersion: Int
    }

    private let memory: BoundedMemory<String, Entry>

    /// 20,000 carts of a few lines each are a few megabytes; a cart past them is read again.
    package init(capacity: Int = 20_000) {
        memory = BoundedMemory(name: "kept_carts", capacity: capacity)
    }

    /// The owner's lines when kept at this listings version.
    func lines(of owner: String, listingsVersion: Int) -> [BanchanStore.CartLineRow]? {
        guard let entry = memory[owner], entry.listingsVersion == listingsVersion else { return nil }
        return entry.lines
    }

    /// Taken before reading a cart; a cart read before a change was forgotten is not kept.
    var generation: UInt64 { memory.generation }

    func keep(_ lines: [BanchanStore.CartLineRow], of owner: String, listingsVersion: Int, readAt generation: UInt64) {
        memory.keep(Entry(lines: lines, listingsVersion: listingsVersion), for: owner, readAt: generation)
    }

    /// These owners' carts changed (and the change committed): forgotten here and on every instance.
    func changed(_ owners: [String], on events: any EventBus) async {
        for owner in owners { memory.forget(owner) }
        for owner in owners { await events.publish(owner, to: Self.topic) }
    }

    func forget(_ owner: String) { memory.forget(owner) }

    /// Every instance forgets the carts another one changed.
    static func follow(_ app: Application) {
        app.follow(topic) { app, owner in app.banchanEnvironment.keptCarts.forget(owner) }
    }
}
