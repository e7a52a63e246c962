import Foundation
package import Platform
import Vapor

/// Each order as its page shows it, each owner's first page of orders and the console's first page
/// of each list of orders (by status, day and search), kept at the version of
/// the orders they were read at. Every write of an order moves the version once it committed —
/// a status move, a payment, a cancel, a line refund (all announced to the order's open pages by
/// `BanchanStore.announceMoved`), a new order (`placing`), the retention job's blanking — here
/// and through the bus on every other instance, so everything kept is read again after any
/// order changed. An order's page and the orders page each read one joined statement on every
/// view otherwise, and a statement halves what a signed-in page serves; orders change far less
/// often than they are looked at. A read that began before a move is never kept at the new version.
package final class KeptOrders: Sendable {
    static let topic = "banchan.orders"

    private struct Kept<Value: Sendable>: Sendable {
        let value: Value
        let version: Int
    }

    private let version = ChangeVersion(topic: KeptOrders.topic)
    private let pages: BoundedMemory<String, Kept<BanchanStore.OrderPageRow>>
    private let lists: BoundedMemory<String, Kept<[BanchanService.Listed]>>
    private let consoleLists: BoundedMemory<String, Kept<(items: [BanchanStore.OrderRow], nextCursor: String?)>>

    package init(capacity: Int = 10_000) {
        pages = BoundedMemory(name: "kept_order_pages", capacity: capacity)
        lists = BoundedMemory(name: "kept_order_lists", capacity: capacity)
        consoleLists = BoundedMemory(name: "kept_console_order_lists", capacity: 256)
    }

    /// The version now; take it before reading, hand it to `keep`.
    var current: Int { version.current }

    func page(_ id: UUID, ownerKey: String) -> BanchanStore.OrderPageRow? {
        guard let kept = pages[Self.pageKey(id, ownerKey)], kept.version == current else { return nil }
        return kept.value
    }

    func keep(_ row: BanchanStore.OrderPageRow, ownerKey: String, readAt version: Int) {
        guard version == current else { return }
        pages.keep(Kept(value: row, version: version), for: Self.pageKey(row.id, ownerKey))
    }

    /// The owner's first page of orders (`limit` long), when kept at this version.
    func firstPage(of ownerKey: String, limit: Int) -> [BanchanService.Listed]? {
        guard let kept = lists[Self.listKey(ownerKey, limit)], kept.version == current else { return nil }
        return kept.value
    }

    func keep(firstPage: [BanchanService.Listed], of ownerKey: String, limit: Int, readAt version: Int) {
        guard version == current else { return }
        lists.keep(Kept(value: firstPage, version: version), for: Self.listKey(ownerKey, limit))
    }

    /// The console's first page of the list `key` names (status, day, search, length), when kept
    /// at this version.
    func consoleFirstPage(_ key: String) -> (items: [BanchanStore.OrderRow], nextCursor: String?)? {
        guard let kept = consoleLists[key], kept.version == current else { return nil }
        return kept.value
    }

    func keep(consoleFirstPage page: (items: [BanchanStore.OrderRow], nextCursor: String?), _ key: String, readAt version: Int) {
        guard version == current else { return }
        consoleLists.keep(Kept(value: page, version: version), for: key)
    }

    /// An order changed (and the change committed): everything kept is read again, here and on
    /// every instance.
    func changed(on events: any EventBus) async {
        await version.changed(announcingOn: events)
    }

    static func follow(_ app: Application) {
        app.banchanEnvironment.keptOrders.version.follow(app)
    }

    private static func pageKey(_ id: UUID, _ ownerKey: String) -> String { id.uuidString + "|" + ownerKey }
    private static func listKey(_ ownerKey: String, _ limit: Int) -> String { ownerKey + "|" + String(limit) }
}
