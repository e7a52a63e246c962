import Foundation
import Platform
import Plot
import Vapor

/// The packing list (`/admin/orders/packing?day=`, today in Korea by default): a day's orders
/// still to pack (paid or being prepared), first how many of each dish to pick, then one slip per
/// order with where it goes. Printable: the print style drops the site's frame.
extension BanchanAdminPages {
    /// The most orders one list reads.
    static let packingLimit = 500

    func packingList(req: Request) async throws -> Response {
        let day = req.query[String.self, at: "day"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.today(req)
        // Kept at the orders' version (`KeptOrders`: every committed order write, on every
        // instance, moves it) for the day shown; recorded on every view, kept or not, before it is answered.
        let version = req.banchan.environment.keptOrders.current
        let response = try await Layout.keptPage(req, variant: day, version: version) {
            var orders: [BanchanStore.OrderRow] = []
            for status in [OrderStatus.paid, .preparing] {
                guard orders.count < Self.packingLimit else { break }
                orders += try await Self.everyOrder(req, status: status, day: day, upTo: Self.packingLimit - orders.count)
            }
            orders.sort { ($0.steps.number ?? "") < ($1.steps.number ?? "") }
            var picks: [String: (title: String, quantity: Int)] = [:]
            for line in orders.flatMap(\.lines) { picks[line.hash, default: (line.title, 0)].quantity += line.quantity }
            let pickList = picks.values.sorted { $0.title < $1.title }
            let title = req.t("admin.packing.title", ["day": day])
            let main: Node<HTML.BodyContext> = .group(
                .p(.class("no-print"), .a(.href(Self.orders()), .text("← " + req.t("admin.orders.title")))),
                .h1(.id("packing-title"), .text(title)),
                .form(
                    .method(.get), .action(Self.packing()), .class("admin-filters no-print"),
                    .label(.for("packing-day"), .text(req.t("admin.orders.day"))),
                    .input(.type(.date), .id("packing-day"), .name("day"), .value(day)),
                    .button(.type(.submit), .class("button small"), .text(req.t("admin.orders.filter")))
                ),
                .p(.class("muted"), .id("packing-count"), .text(req.t("admin.packing.count", ["count": String(orders.count)]))),
                orders.isEmpty ? .empty : .section(
                    .class("card"), .ariaLabelledBy("picks-title"),
                    .h2(.id("picks-title"), .text(req.t("admin.packing.picks"))),
                    .table(
                        .class("receipt-lines"), .id("packing-picks"),
                        .thead(.tr(.th(.text(req.t("banchan.receipt.item"))), .th(.class("number"), .text(req.t("banchan.receipt.quantity"))))),
                        .tbody(.forEach(pickList) { pick in .tr(.td(.text(pick.title)), .td(.class("number"), .text(String(pick.quantity)))) })
                    )
                ),
                .ol(.class("packing-slips"), .id("packing-slips"), .forEach(orders) { order in
                    .li(
                        .class("card packing-slip"),
                        .h2(.text(order.steps.number ?? order.merchantUID)),
                        order.delivery.map { delivery in
                            .group(
                                .p(.strong(.text(req.t("banchan.slot.\(delivery.slot.rawValue)"))), .text(" · " + BanchanPages.arrival(req, delivery))),
                                .p(.text("\(delivery.address.recipient) · \(delivery.address.phone)")),
                                .p(.text(delivery.address.line)),
                                delivery.note.isEmpty ? .empty : .p(.class("caution"), .text(delivery.note))
                            )
                        } ?? .p(.class("muted"), .text(req.t("admin.packing.no_delivery"))),
                        .ul(.forEach(order.lines) { line in .li(.text("\(line.title) × \(line.quantity)")) })
                    )
                })
            )
            return parts(req, title: title, main: main)
        }
        try await req.recordAccess("banchan.orders.packing", person: nil, subject: day)
        return response
    }
}
