import Accounts
import Foundation
import Platform
import Vapor

/// `GET /admin/orders/export?day=yyyy-MM-dd` (today in Korea by default): every order placed that
/// day as a CSV a spreadsheet opens in Korean (UTF-8 with its byte-order mark), one row per order:
/// number, time, status, who and where, how it travels, what was bought, the amounts, how it was
/// paid, the courier and 송장번호. A cell a spreadsheet would run as a formula (`=`, `+`, `-`, `@`,
/// a tab or a carriage return first) starts with an apostrophe instead.
extension BanchanAdminPages {
    /// More than a day's orders a small shop packs; the file says when it stopped there.
    static let exportLimit = 5_000

    func exportDay(req: Request) async throws -> Response {
        _ = try req.requireAdmin()
        let day = req.query[String.self, at: "day"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.today(req)
        let orders = try await Self.everyOrder(req, status: nil, day: day, upTo: Self.exportLimit)
        try await req.recordAccess("banchan.orders.export", person: nil, subject: day)
        let header = ["number", "placed", "status", "recipient", "phone", "postcode", "address", "address_detail", "slot", "arrives_on",
                      "items", "quantity", "items_total", "delivery_fee", "total", "payment", "courier", "tracking_number"]
            .map { req.t("admin.export.\($0)") }
        var rows = [header]
        for order in orders.sorted(by: { ($0.steps.number ?? "") < ($1.steps.number ?? "") }) {
            let delivery = order.delivery
            let items = order.lines.map { "\($0.title) × \($0.quantity)" }.joined(separator: ", ")
            rows.append([
                order.steps.number ?? order.merchantUID, order.createdAt.map(PageDates.dotted) ?? "", req.t("banchan.status.\(order.status.rawValue)"),
                delivery?.address.recipient ?? "", delivery?.address.phone ?? "", delivery?.address.postcode ?? "", delivery?.address.address ?? "",
                delivery?.address.addressDetail ?? "", delivery.map { req.t("banchan.slot.\($0.slot.rawValue)") } ?? "", delivery?.arrivesOn ?? "",
                items, String(order.lines.reduce(0) { $0 + $1.quantity }), String(order.itemsTotal), String(order.deliveryFee), String(order.total),
                delivery?.paymentMethod.map { req.t("banchan.pay_method.\($0.rawValue)") } ?? order.paymentProvider ?? "",
                order.shipment.map { req.t("banchan.courier.\($0.courier.rawValue)") } ?? "", order.shipment?.trackingNumber ?? "",
            ])
        }
        if orders.count >= Self.exportLimit { rows.append([req.t("admin.export.truncated", ["count": String(Self.exportLimit)])]) }
        let body = "\u{FEFF}" + rows.map { $0.map(Self.csvCell).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
        let response = Response(status: .ok, body: .init(string: body))
        response.headers.contentType = HTTPMediaType(type: "text", subType: "csv", parameters: ["charset": "utf-8"])
        let name = "orders-\(day.filter { $0.isNumber || $0 == "-" }).csv"
        response.headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"\(name)\"")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    /// One CSV cell: quoted when it holds a comma, a quote or a line break; never a formula.
    static func csvCell(_ value: String) -> String {
        var cell = value
        if let first = cell.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) { cell = "'" + cell }
        guard cell.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Every order of a status (any when nil) placed on `day`, a page at a time, up to `limit`.
    static func everyOrder(_ req: Request, status: OrderStatus?, day: String, upTo limit: Int) async throws -> [BanchanStore.OrderRow] {
        var orders: [BanchanStore.OrderRow] = []
        var cursor: String?
        repeat {
            let page = try CursorPageRequest(cursor: cursor.flatMap(PageCursor.init(encoded:)), limit: CursorPageRequest.maxLimit)
            let (items, next) = try await req.banchan.allOrders(status: status, day: day, page: page)
            orders += items
            cursor = next
        } while cursor != nil && orders.count < limit
        return Array(orders.prefix(limit))
    }
}
