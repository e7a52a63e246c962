import Fluent
import Foundation
import Payments
import Platform
import SQLKit

/// The reads of `banchan_orders` and `banchan_order_items` (the writes are in
/// `BanchanStore+Orders.swift`). An order leaves the store as an `OrderRow`, read as one
/// written-out statement, never as the model.
extension BanchanStore {
    /// When an order was placed and reached each step of its progress (nil: not, or not recorded:
    /// orders that moved before steps were timed).
    struct OrderSteps: Sendable, Hashable {
        let number: String?
        let placedAt: Date?
        let paidAt: Date?
        let preparingAt: Date?
        let shippedAt: Date?
        let deliveredAt: Date?
        let cancelRequestedAt: Date?
        let cancelledAt: Date?

        static let columns: [OrderColumn] = [.number, .createdAt, .paidAt, .preparingAt, .shippedAt, .deliveredAt, .cancelRequestedAt, .cancelledAt]

        init(row: any SQLRow) throws {
            number = try row.decode(column: OrderColumn.number, as: String?.self)
            placedAt = try row.decode(column: OrderColumn.createdAt, as: Date?.self)
            paidAt = try row.decode(column: OrderColumn.paidAt, as: Date?.self)
            preparingAt = try row.decode(column: OrderColumn.preparingAt, as: Date?.self)
            shippedAt = try row.decode(column: OrderColumn.shippedAt, as: Date?.self)
            deliveredAt = try row.decode(column: OrderColumn.deliveredAt, as: Date?.self)
            cancelRequestedAt = try row.decode(column: OrderColumn.cancelRequestedAt, as: Date?.self)
            cancelledAt = try row.decode(column: OrderColumn.cancelledAt, as: Date?.self)
        }
    }

    /// Where an order goes, as placed; none for orders placed without one (the 배민찬 app's).
    struct OrderDelivery: Sendable, Hashable {
        let address: Delivery.Address
        let slot: Delivery.Slot
        let note: String
        /// `yyyy-MM-dd` of the morning a 새벽배송 arrives.
        let arrivesOn: String?
        /// How the buyer meant to pay (PortOne's names).
        let paymentMethod: Delivery.PaymentMethod?

        static let columns: [OrderColumn] = [.deliverySlot, .recipient, .phone, .postcode, .address, .addressDetail, .deliveryNote, .arrivesOn, .paymentMethod]

        /// Whether an order's delivery is the one a request asks for (both none counts).
        static func same(_ kept: OrderDelivery?, as request: DeliveryRequest?) -> Bool {
            guard let kept, let request else { return kept == nil && request == nil }
            return kept.address == request.address && kept.slot == request.slot && kept.note == request.note
                && kept.paymentMethod == request.paymentMethod
        }

        /// Nil when the order has no delivery.
        static func read(_ row: any SQLRow) throws -> OrderDelivery? {
            guard let slot = try row.decode(column: OrderColumn.deliverySlot, as: String?.self).flatMap(Delivery.Slot.init(rawValue:)) else { return nil }
            return OrderDelivery(
                address: Delivery.Address(recipient: try row.decode(column: OrderColumn.recipient, as: String?.self) ?? "",
                                          phone: try row.decode(column: OrderColumn.phone, as: String?.self) ?? "",
                                          postcode: try row.decode(column: OrderColumn.postcode, as: String?.self),
                                          address: try row.decode(column: OrderColumn.address, as: String?.self) ?? "",
                                          addressDetail: try row.decode(column: OrderColumn.addressDetail, as: String?.self) ?? ""),
                slot: slot, note: try row.decode(column: OrderColumn.deliveryNote, as: String?.self) ?? "",
                arrivesOn: try row.decode(column: OrderColumn.arrivesOn, as: String?.self),
                paymentMethod: try row.decode(column: OrderColumn.paymentMethod, as: String?.self).flatMap(Delivery.PaymentMethod.init(rawValue:)))
        }
    }

    /// How a shipped order travels, as the console recorded it.
    enum OrderShipment {
        static let columns: [OrderColumn] = [.courier, .trackingNumber]

        /// Nil when none was recorded (or the courier is one this server no longer knows).
        static func read(_ row: any SQLRow) throws -> Shipment? {
            guard let courier = try row.decode(column: OrderColumn.courier, as: String?.self).flatMap(Courier.init(rawValue:)) else { return nil }
            return Shipment(courier: courier, trackingNumber: try row.decode(column: OrderColumn.trackingNumber, as: String?.self))
        }
    }

    /// An order with its lines, as its owner, the API and the payment checks see it.
    struct OrderRow: Sendable, Hashable {
        /// A line, with the title and price as they were when ordered.
        struct Line: Sendable, Hashable {
            let hash: String
            let title: String
            let unitPrice: Int
            let quantity: Int
            let pointsPerUnit: Int
            /// The price before the dish's sale, when it had one.
            let originalPrice: Int?
            /// Its position in the order (0 first), as a line refund names it.
            let line: Int
            /// How many of `quantity` the shop refunded.
            let refundedQuantity: Int
        }

        let id: UUID
        /// The buyer's account; nil for an order made from a device without one (the 배민찬 app).
        let userID: UUID?
        let status: OrderStatus
        let itemsTotal: Int
        let deliveryFee: Int
        let total: Int
        let points: Int
        /// The id the payment provider knows the order by.
        let merchantUID: String
        let paymentProvider: String?
        /// The provider's id of the payment (PortOne's `imp_uid`).
        let paymentID: String?
        let cancelReason: String?
        /// A digest of the body of the request that created it (`Idempotency-Key` replays compare it).
        let requestDigest: String?
        /// In the order the customer added them.
        let lines: [Line]
        /// When it was placed, paid, prepared, shipped, delivered, asked to be cancelled, cancelled.
        let steps: OrderSteps
        let delivery: OrderDelivery?
        /// How it travels, once shipped with a courier named.
        let shipment: Shipment?
        var paidAt: Date? { steps.paidAt }
        var cancelledAt: Date? { steps.cancelledAt }
        var createdAt: Date? { steps.placedAt }
        /// Won given back by line refunds.
        var refundedTotal: Int { lines.reduce(0) { $0 + $1.unitPrice * $1.refundedQuantity } }
        /// How many units the shop refunded, over all lines.
        var refundedUnits: Int { lines.reduce(0) { $0 + $1.refundedQuantity } }

        init(row: any SQLRow, lines: [Line]) throws {
            steps = try OrderSteps(row: row)
            id = try row.decode(column: OrderColumn.id, as: UUID.self)
            userID = try row.decode(column: OrderColumn.userID, as: UUID?.self)
            status = try row.decode(column: OrderColumn.status, as: OrderStatus.self)
            itemsTotal = try row.decode(column: OrderColumn.itemsTotal, as: Int.self)
            deliveryFee = try row.decode(column: OrderColumn.deliveryFee, as: Int.self)
            total = try row.decode(column: OrderColumn.total, as: Int.self)
            points = try row.decode(column: OrderColumn.points, as: Int.self)
            merchantUID = try row.decode(column: OrderColumn.merchantUID, as: String.self)
            paymentProvider = try row.decode(column: OrderColumn.paymentProvider, as: String?.self)
            paymentID = try row.decode(column: OrderColumn.paymentID, as: String?.self)
            cancelReason = try row.decode(column: OrderColumn.cancelReason, as: String?.self)
            requestDigest = try row.decode(column: OrderColumn.requestDigest, as: String?.self)
            delivery = try OrderDelivery.read(row)
            shipment = try OrderShipment.read(row)
            self.lines = lines
        }
    }

    // MARK: Reads

    /// The owner's order made with this `Idempotency-Key`, with its lines.
    func order(withKey key: String, ownerKey: String) async throws -> OrderRow? {
        try await orderRows("o.\(ident: OrderColumn.ownerKey) = \(bind: ownerKey) AND o.\(ident: OrderColumn.idempotencyKey) = \(bind: key)").first
    }

    /// An order with its lines, when it is the owner's (any owner's when `ownerKey` is nil: an administrator's read).
    func order(_ id: UUID, ownerKey: String?) async throws -> OrderRow? {
        guard let ownerKey else { return try await orderRows("o.\(ident: OrderColumn.id) = \(bind: id)").first }
        return try await orderRows("o.\(ident: OrderColumn.id) = \(bind: id) AND o.\(ident: OrderColumn.ownerKey) = \(bind: ownerKey)").first
    }

    /// The owner's orders with their lines, newest first, a page at a time: the page's ids, then
    /// those orders with their lines.
    func orders(ownerKey: String, page: CursorPageRequest) async throws -> (items: [OrderRow], nextCursor: String?) {
        try await orders(page: page) { $0.where(SQLColumn(OrderColumn.ownerKey, table: BanchanOrder.schema), .equal, SQLBind(ownerKey)) }
    }

    /// Every buyer's orders (the operator's list), newest first: of one status, and placed on one
    /// day in Korea's time, when given.
    /// Matching `search` when given: the number, digits of the recipient's phone or of the number,
    /// or part of the recipient's name.
    func allOrders(status: OrderStatus?, placedOn day: DateInterval?, matching search: OrderSearch? = nil,
                   page: CursorPageRequest) async throws -> (items: [OrderRow], nextCursor: String?) {
        // The console's first pages are kept at the orders' version (`KeptOrders`).
        guard page.cursor == nil, page.orderedCursor == nil else { return try await storedOrders(status: status, placedOn: day, matching: search, page: page) }
        let kept = environment.keptOrders
        let key = [status?.rawValue ?? "", day.map { "\($0.start.timeIntervalSince1970)" } ?? "", search.map { "\($0)" } ?? "", String(page.limit)]
            .joined(separator: "|")
        if let remembered = kept.consoleFirstPage(key) { return remembered }
        let version = kept.current
        let read = try await storedOrders(status: status, placedOn: day, matching: search, page: page)
        kept.keep(consoleFirstPage: read, key, readAt: version)
        return read
    }

    private func storedOrders(status: OrderStatus?, placedOn day: DateInterval?, matching search: OrderSearch?,
                              page: CursorPageRequest) async throws -> (items: [OrderRow], nextCursor: String?) {
        try await orders(page: page) { select in
            let column = { (column: OrderColumn) in SQLColumn(column, table: BanchanOrder.schema) }
            if let status { select.where(column(.status), .equal, SQLBind(status.rawValue)) }
            if let day {
                select.where(column(.createdAt), .greaterThanOrEqual, SQLBind(day.start)).where(column(.createdAt), .lessThan, SQLBind(day.end))
            }
            switch search {
            case .number(let number)?:
                select.where(column(.number), .equal, SQLBind(number))
            case .digits(let digits)?:
                // Phones are kept as `010-1234-5678`: compared without their hyphens.
                let phoneDigits = SQLFunction("REPLACE", args: column(.phone), SQLLiteral.string("-"), SQLLiteral.string(""))
                select.where { group in
                    group.where(phoneDigits, .like, SQLBind("%" + digits + "%"))
                        .orWhere(SQLFunction("REPLACE", args: column(.number), SQLLiteral.string("-"), SQLLiteral.string("")), .like, SQLBind("%" + digits + "%"))
                }
            case .name(let name)?:
                select.where(column(.recipient), .like, SQLBind("%" + name + "%"))
            case nil:
                break
            }
            return select
        }
    }

    /// A newest-first page of orders matching `filter`: the page's ids, then those orders with their lines.
    private func orders(page: CursorPageRequest, filter: (SQLSelectBuilder) -> SQLSelectBuilder) async throws -> (items: [OrderRow], nextCursor: String?) {
        let order = { (column: OrderColumn) in SQLColumn(column, table: BanchanOrder.schema) }
        let listed = try await filter(sql.select().column(order(OrderColumn.id)).column(order(OrderColumn.createdAt)).from(orders))
            .newestFirst(createdAt: order(OrderColumn.createdAt), id: order(OrderColumn.id), page)
            .all().map { PageKey(id: try $0.decode(column: OrderColumn.id, as: UUID.self), createdAt: try $0.decode(column: OrderColumn.createdAt, as: Date.self)) }
        let paged = page.page(of: listed)
        guard !paged.items.isEmpty else { return ([], paged.nextCursor) }
        let read = try await orderRows("o.\(ident: OrderColumn.id) IN (\(binds: paged.items.map(\.id)))")
        let byID = Dictionary(uniqueKeysWithValues: read.map { ($0.id, $0) })
        return (paged.items.compactMap { byID[$0.id] }, paged.nextCursor)
    }

    /// An order's place in a newest-first page.
    private struct PageKey: NewestFirstRow {
        let id: UUID
        let createdAt: Date
    }

    /// What an order's page shows of it: only those columns. Read as a whole `OrderRow` (19 columns
    /// and one more clause), the page measured 0.90× of its narrow read side by side.
    struct OrderPageRow: Sendable, Hashable {
        struct Line: Sendable, Hashable {
            let title: String
            let unitPrice: Int
            let quantity: Int
            let originalPrice: Int?
            /// How many of `quantity` the shop refunded.
            let refundedQuantity: Int
        }

        let id: UUID
        let status: OrderStatus
        let itemsTotal: Int
        let deliveryFee: Int
        let total: Int
        let points: Int
        let merchantUID: String
        let cancelReason: String?
        /// In the order the customer added them.
        let lines: [Line]
        let steps: OrderSteps
        let delivery: OrderDelivery?
        let paymentProvider: String?
        let shipment: Shipment?
        /// Won given back by line refunds, and how many units.
        var refundedTotal: Int { lines.reduce(0) { $0 + $1.unitPrice * $1.refundedQuantity } }
        var refundedUnits: Int { lines.reduce(0) { $0 + $1.refundedQuantity } }
    }

    /// The order with this id as its page shows it, when it is the owner's: kept at the orders'
    /// version (`KeptOrders`), else one written-out statement of the order joined with its lines
    /// (the page reads it on every view).
    func orderPage(_ id: UUID, ownerKey: String) async throws -> OrderPageRow? {
        let kept = environment.keptOrders
        if let page = kept.page(id, ownerKey: ownerKey) { return page }
        let version = kept.current
        guard let page = try await storedOrderPage(id, ownerKey: ownerKey) else { return nil }
        kept.keep(page, ownerKey: ownerKey, readAt: version)
        return page
    }

    private func storedOrderPage(_ id: UUID, ownerKey: String) async throws -> OrderPageRow? {
        let rows = try await sql.raw("""
            SELECT \(Self.orderPageColumns.expression(for: sql))
            FROM \(orders) o LEFT JOIN \(items) i ON i.\(ident: ItemColumn.orderID) = o.\(ident: OrderColumn.id)
            WHERE o.\(ident: OrderColumn.id) = \(bind: id) AND o.\(ident: OrderColumn.ownerKey) = \(bind: ownerKey)
            ORDER BY i.\(ident: ItemColumn.line)
            """).all()
        guard let first = rows.first else { return nil }
        let lines = try rows.compactMap { row -> OrderPageRow.Line? in
            guard let title = try row.decode(column: ItemColumn.title, as: String?.self) else { return nil }
            return OrderPageRow.Line(title: title, unitPrice: try row.decode(column: ItemColumn.unitPrice, as: Int.self),
                                     quantity: try row.decode(column: ItemColumn.quantity, as: Int.self),
                                     originalPrice: try row.decode(column: ItemColumn.originalPrice, as: Int?.self),
                                     refundedQuantity: try row.decode(column: ItemColumn.refundedQuantity, as: Int.self))
        }
        return OrderPageRow(id: id, status: try first.decode(column: OrderColumn.status, as: OrderStatus.self),
                            itemsTotal: try first.decode(column: OrderColumn.itemsTotal, as: Int.self),
                            deliveryFee: try first.decode(column: OrderColumn.deliveryFee, as: Int.self),
                            total: try first.decode(column: OrderColumn.total, as: Int.self), points: try first.decode(column: OrderColumn.points, as: Int.self),
                            merchantUID: try first.decode(column: OrderColumn.merchantUID, as: String.self),
                            cancelReason: try first.decode(column: OrderColumn.cancelReason, as: String?.self), lines: lines,
                            steps: try OrderSteps(row: first), delivery: try OrderDelivery.read(first),
                            paymentProvider: try first.decode(column: OrderColumn.paymentProvider, as: String?.self),
                            shipment: try OrderShipment.read(first))
    }

    private static let orderPageColumns = SerializedOnce {
        let orderColumns = ([OrderColumn.status, OrderColumn.itemsTotal, OrderColumn.deliveryFee, OrderColumn.total, OrderColumn.points,
                             OrderColumn.merchantUID, OrderColumn.cancelReason, OrderColumn.paymentProvider] + OrderSteps.columns + OrderDelivery.columns
                            + OrderShipment.columns)
            .map { SQLColumn($0, table: "o") }
        let itemColumns = [ItemColumn.title, ItemColumn.unitPrice, ItemColumn.quantity, ItemColumn.originalPrice, ItemColumn.refundedQuantity].map { SQLColumn($0, table: "i") }
        return SQLList(orderColumns + itemColumns)
    }

    /// The orders matching `condition` (on `o`, the orders) with their lines, newest first: one
    /// statement of the orders joined with their lines, where building the order and its items as
    /// models took most of an order's page (0.09× of `/healthz`).
    func orderRows(_ condition: SQLQueryString) async throws -> [OrderRow] {
        let rows = try await sql.raw("""
            SELECT \(Self.orderRowSelection.expression(for: sql))
            FROM \(orders) o LEFT JOIN \(items) i ON i.\(ident: ItemColumn.orderID) = o.\(ident: OrderColumn.id)
            WHERE \(condition)
            ORDER BY o.\(ident: OrderColumn.createdAt) DESC, o.\(ident: OrderColumn.id) DESC, i.\(ident: ItemColumn.line)
            """).all()
        var found: [(first: any SQLRow, lines: [OrderRow.Line])] = []
        var positions: [UUID: Int] = [:]
        for row in rows {
            let id = try row.decode(column: OrderColumn.id, as: UUID.self)
            let position = positions[id] ?? found.count
            if position == found.count {
                positions[id] = position
                found.append((row, []))
            }
            // An order always has lines; the join would give one row of nulls for one that had none.
            guard let hash = try row.decode(column: ItemColumn.hash, as: String?.self) else { continue }
            found[position].lines.append(OrderRow.Line(
                hash: hash, title: try row.decode(column: ItemColumn.title, as: String.self),
                unitPrice: try row.decode(column: ItemColumn.unitPrice, as: Int.self), quantity: try row.decode(column: ItemColumn.quantity, as: Int.self),
                pointsPerUnit: try row.decode(column: ItemColumn.pointsPerUnit, as: Int.self),
                originalPrice: try row.decode(column: ItemColumn.originalPrice, as: Int?.self),
                line: try row.decode(column: ItemColumn.line, as: Int.self), refundedQuantity: try row.decode(column: ItemColumn.refundedQuantity, as: Int.self)))
        }
        return try found.map { try OrderRow(row: $0.first, lines: $0.lines) }
    }

    private static let orderRowColumns = [
        OrderColumn.id, OrderColumn.userID, OrderColumn.status, OrderColumn.itemsTotal, OrderColumn.deliveryFee, OrderColumn.total, OrderColumn.points,
        OrderColumn.merchantUID, OrderColumn.paymentProvider, OrderColumn.paymentID, OrderColumn.cancelReason, OrderColumn.requestDigest,
    ] + OrderSteps.columns + OrderDelivery.columns + OrderShipment.columns
    private static let lineColumns = [ItemColumn.hash, ItemColumn.title, ItemColumn.unitPrice, ItemColumn.quantity, ItemColumn.pointsPerUnit,
                                      ItemColumn.originalPrice, ItemColumn.line, ItemColumn.refundedQuantity]
    private static let orderRowSelection = SerializedOnce {
        SQLList(orderRowColumns.map { SQLColumn($0, table: "o") } + lineColumns.map { SQLColumn($0, table: "i") })
    }

    /// Blanks who and where of the orders placed before `cutoff`: the recipient, the phone, the
    /// address and the note. The slot, the lines, the amounts and the dates stay for the books.
    /// Returns how many orders it blanked (none twice).
    func forgetDeliveryDetails(placedBefore cutoff: Date) async throws -> Int {
        let blanked = try await sql.update(orders)
            .set(SQLIdentifier(OrderColumn.recipient), to: SQLLiteral.null).set(SQLIdentifier(OrderColumn.phone), to: SQLLiteral.null)
            .set(SQLIdentifier(OrderColumn.postcode), to: SQLLiteral.null).set(SQLIdentifier(OrderColumn.address), to: SQLLiteral.null)
            .set(SQLIdentifier(OrderColumn.addressDetail), to: SQLLiteral.null).set(SQLIdentifier(OrderColumn.deliveryNote), to: SQLLiteral.null)
            .where(SQLIdentifier(OrderColumn.createdAt), .lessThan, SQLBind(cutoff))
            .where(SQLIdentifier(OrderColumn.recipient), .isNot, SQLLiteral.null)
            .returning(SQLIdentifier(OrderColumn.id)).all().count
        // The blanked orders' kept pages, on every instance (`KeptOrders`).
        if blanked > 0 { await environment.keptOrders.changed(on: environment.events) }
        return blanked
    }

    /// Orders still awaiting payment made before `cutoff`, at most `limit`.
    func unpaidOrders(before cutoff: Date, limit: Int) async throws -> [UUID] {
        try await sql.select().column(SQLIdentifier(OrderColumn.id)).from(orders)
            .where(SQLIdentifier(OrderColumn.status), .equal, SQLBind(OrderStatus.awaitingPayment.rawValue))
            .where(SQLIdentifier(OrderColumn.createdAt), .lessThan, SQLBind(cutoff)).limit(limit)
            .all(decodingColumn: OrderColumn.id, as: UUID.self)
    }

    /// One newest-first page of the owner's orders as the orders page lists them: rows with the
    /// first line's title and the number of lines, not models with their items. The first page is
    /// kept at the orders' version (`KeptOrders`).
    func listedOrders(ownerKey: String, page: CursorPageRequest) async throws -> (items: [BanchanService.Listed], nextCursor: String?) {
        guard page.cursor == nil, page.orderedCursor == nil else { return try await storedListedOrders(ownerKey: ownerKey, page: page) }
        let kept = environment.keptOrders
        // One more than the page: whether there is a next page is part of what is kept.
        let listed: [BanchanService.Listed]
        if let remembered = kept.firstPage(of: ownerKey, limit: page.limit) {
            listed = remembered
        } else {
            let version = kept.current
            listed = try await listedRows(ownerKey: ownerKey, page: page)
            kept.keep(firstPage: listed, of: ownerKey, limit: page.limit, readAt: version)
        }
        return page.page(of: listed)
    }

    private func storedListedOrders(ownerKey: String, page: CursorPageRequest) async throws -> (items: [BanchanService.Listed], nextCursor: String?) {
        page.page(of: try await listedRows(ownerKey: ownerKey, page: page))
    }

    /// The rows of a page of the owner's orders (with one more, as `page(of:)` takes them).
    private func listedRows(ownerKey: String, page: CursorPageRequest) async throws -> [BanchanService.Listed] {
        let order = { (column: OrderColumn) in SQLColumn(column, table: BanchanOrder.schema) }
        let lineCount = SQLQueryString("(SELECT COUNT(*) FROM \(items) i WHERE i.\(ident: ItemColumn.orderID) = \(order(OrderColumn.id)))")
        let firstTitle = SQLQueryString("""
            (SELECT i.\(ident: ItemColumn.title) FROM \(items) i WHERE i.\(ident: ItemColumn.orderID) = \(order(OrderColumn.id)) ORDER BY i.\(ident: ItemColumn.line) LIMIT 1)
            """)
        let rows = try await sql.select()
            .column(order(OrderColumn.id)).column(order(OrderColumn.status)).column(order(OrderColumn.total)).column(order(OrderColumn.createdAt))
            .column(lineCount, as: "line_count").column(firstTitle, as: "first_title")
            .from(orders)
            .where(order(OrderColumn.ownerKey), .equal, SQLBind(ownerKey))
            .newestFirst(createdAt: order(OrderColumn.createdAt), id: order(OrderColumn.id), page)
            .all()
        let listed = try rows.map { row in
            BanchanService.Listed(id: try row.decode(column: OrderColumn.id, as: UUID.self),
                                  status: try row.decode(column: OrderColumn.status, as: OrderStatus.self),
                                  total: try row.decode(column: OrderColumn.total, as: Int.self),
                                  createdAt: try row.decode(column: OrderColumn.createdAt, as: Date.self),
                                  firstTitle: try row.decode(column: "first_title", as: String?.self),
                                  lineCount: try row.decode(column: "line_count", as: Int.self))
        }
        return listed
    }
}

extension BanchanStore {
    /// The console's figures for a day: orders waiting for each state, and orders placed and paid since `start`.
    struct DayFigures: Sendable, Equatable {
        var waiting: [OrderStatus: Int]
        var placedSince: Int
        var paidSince: Int
        var paidAmountSince: Int
    }

    func dayFigures(since start: Date) async throws -> DayFigures {
        let byStatus = try await sql.select().column(SQLIdentifier(OrderColumn.status)).column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n")
            .from(orders).where(SQLIdentifier(OrderColumn.status), .in, SQLBind.group([OrderStatus.paid, .preparing, .cancelRequested].map(\.rawValue)))
            .groupBy(SQLIdentifier(OrderColumn.status)).all()
        var waiting: [OrderStatus: Int] = [:]
        for row in byStatus {
            waiting[try row.decode(column: OrderColumn.status, as: OrderStatus.self)] = try row.decode(column: "n", as: Int.self)
        }
        let placed = try await sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from(orders)
            .where(SQLIdentifier(OrderColumn.createdAt), .greaterThanOrEqual, SQLBind(start)).first(decodingColumn: "n", as: Int.self) ?? 0
        let paid = try await sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n")
            // PostgreSQL sums integers as numeric: cast back so it reads as an integer on both databases.
            .column(SQLQueryString("CAST(COALESCE(SUM(\(ident: OrderColumn.total)), 0) AS BIGINT)"), as: "amount")
            .from(orders).where(SQLIdentifier(OrderColumn.paidAt), .greaterThanOrEqual, SQLBind(start)).first()
        return DayFigures(waiting: waiting, placedSince: placed, paidSince: try paid?.decode(column: "n", as: Int.self) ?? 0,
                          paidAmountSince: try paid?.decode(column: "amount", as: Int.self) ?? 0)
    }
}
