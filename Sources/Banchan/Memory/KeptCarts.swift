import Foundation
package import Platform
import Vapor

/// How many items each owner's cart holds, for the header's count on every shop page (a `SUM` per
/// page was a sixth of an order's page). `BanchanStore` forgets an owner's count whenever it
/// changed their cart — setting or removing a dish, a device's cart merged at sign-in, an order
/// emptying the cart — once that write committed, here and through the bus on every other
/// instance. A dish leaving the shop changes counts too: each is kept with the listings' version it
/// was read at and read again once that moved (every dish change and every order's stock moves it).
package final class CartCounts: Sendable {
    static let topic = "banchan.carts"

    private struct Entry: Sendable {
        let count: Int
        let listingsVersion: Int
    }

    private let memory: BoundedMemory<String, Entry>

    package init(capacity: Int = 100_000) {
        memory = BoundedMemory(name: "cart_counts", capacity: capacity)
    }

    /// The owner's count when kept at this listings version.
    func count(of owner: String, listingsVersion: Int) -> Int? {
        guard let entry = memory[owner], entry.listingsVersion == listingsVersion else { return nil }
        return entry.count
    }

    /// Taken before reading a count; a count read before a change was forgotten is not kept.
    var generation: UInt64 { memory.generation }

    func keep(_ count: Int, of owner: String, listingsVersion: Int, readAt generation: UInt64) {
        memory.keep(Entry(count: count, listingsVersion: listingsVersion), for: owner, readAt: generation)
    }

    /// These owners' carts changed (and the change committed): forgotten here and on every instance.
    func changed(_ owners: [String], on events: any EventBus) async {
        for owner in owners { memory.forget(owner) }
        for owner in owners { await events.publish(owner, to: Self.topic) }
    }

    func forget(_ owner: String) { memory.forget(owner) }

    /// Every instance forgets the counts another one changed.
    static func follow(_ app: Application) {
        app.follow(topic) { app, owner in app.banchanEnvironment.cartCounts.forget(owner) }
    }
}
