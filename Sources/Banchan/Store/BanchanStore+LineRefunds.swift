import Fluent
import FluentSQL
import Foundation
import Payments
import Platform
import SQLKit

/// Refunds of part of an order (`banchan_order_refunds`, and each line's `refunded_quantity` in
/// `banchan_order_items`): some units of one line, refunded through the refund queue while the
/// rest of the order stands. Read and written only here.
extension BanchanStore {
    static let lineRefundTable = "banchan_order_refunds"

    enum LineRefundColumn: String, TableColumn {
        case id, orderID = "order_id", line, quantity, amount, reason, refundedAt = "refunded_at", refundedBy = "refunded_by"
        static let all: [LineRefundColumn] = [id, line, quantity, amount, reason, refundedAt, refundedBy]
    }

    /// Some units of one line given back, as the order's pages and the API show it.
    struct LineRefund: Sendable, Equatable {
        let id: UUID
        /// The line's position in the order (0 first).
        let line: Int
        let quantity: Int
        /// Won refunded: the line's unit price × `quantity`.
        let amount: Int
        /// Why, as the buyer reads it.
        let reason: String
        let refundedAt: Date
        /// The operator who refunded it.
        let refundedBy: UUID?
    }

    /// What `refundLine` asks of a line, and who asks.
    struct LineRefundRequest: Sendable {
        let orderID: UUID
        let line: Int
        /// Units to refund; nil: every unit of the line not refunded yet.
        let quantity: Int?
        let reason: String
        let by: UUID?
    }

    /// Refunds units of one line of an order, in one transaction: the line's refunded count (by
    /// one conditional update, so two operators at once never refund more than it has), the
    /// refund's record, the payment's refund queued (`refunding`, given the record's id and the
    /// amount), the units back on the shelf when the order has not shipped, and the audit entry
    /// (`audit`, given the refund). The stock given back is announced after the commit.
    /// 409 `line_refund_refused` when the order is not one whose lines can be refunded (any more),
    /// 404 `order_line_not_found`, 409 `line_already_refunded` / 422 `invalid_quantity` (with
    /// `left`), 409 `refund_whole_order` when it would refund every unit of an order not shipped.
    func refundLine(_ request: LineRefundRequest, at now: Date, refunding: @escaping @Sendable (UUID, Int) -> Refunds.Request,
                    audit: @escaping @Sendable (LineRefund) -> AuditEntry) async throws -> (refund: LineRefund, paymentRefund: UUID?) {
        let environment = self.environment
        let done: (refund: LineRefund, paymentRefund: UUID?, stocks: [(hash: String, stock: Int)]) = try await database.writeTransaction { transaction in
            let store = BanchanStore(database: transaction, environment: environment)
            let sql = transaction.sql
            // Touching the order first holds it (PostgreSQL locks the row) against a cancel or a move at the same time.
            let allowed = OrderStatus.allCases.filter(\.operatorCanRefundLine).map(\.rawValue)
            guard let status = try await sql.update(BanchanOrder.schema).set(SQLIdentifier(OrderColumn.updatedAt), to: SQLBind(now))
                .where(SQLIdentifier(OrderColumn.id), .equal, SQLBind(request.orderID))
                .where(SQLIdentifier(OrderColumn.status), .in, SQLBind.group(allowed))
                .where(SQLIdentifier(OrderColumn.paymentID), .isNot, SQLLiteral.null)
                .returning(SQLIdentifier(OrderColumn.status)).first(decodingColumn: OrderColumn.status, as: OrderStatus.self)
            else { throw AppError.conflict("line_refund_refused") }
            guard let line = try await store.line(request.line, of: request.orderID) else { throw AppError.notFound("order_line_not_found") }
            let left = line.quantity - line.refunded
            guard left > 0 else { throw AppError.conflict("line_already_refunded") }
            let quantity = request.quantity ?? left
            guard (1...left).contains(quantity) else { throw AppError.invalid("invalid_quantity", ["field": "quantity", "left": String(left)]) }
            let refunded = SQLIdentifier(ItemColumn.refundedQuantity)
            let counted = try await sql.update(BanchanOrderItem.schema)
                .set(refunded, to: SQLBinaryExpression(refunded, .add, SQLBind(quantity)))
                .where(SQLIdentifier(ItemColumn.orderID), .equal, SQLBind(request.orderID)).where(SQLIdentifier(ItemColumn.line), .equal, SQLBind(request.line))
                .where(SQLBinaryExpression(refunded, .add, SQLBind(quantity)), .lessThanOrEqual, SQLIdentifier(ItemColumn.quantity))
                .returning(refunded).all()
            guard !counted.isEmpty else { throw AppError.conflict("line_already_refunded") }
            if status.notShipped {
                let unitsLeft = try await sql.raw("""
                    SELECT CAST(COALESCE(SUM(\(ident: ItemColumn.quantity) - \(ident: ItemColumn.refundedQuantity)), 0) AS BIGINT) AS n
                    FROM \(ident: BanchanOrderItem.schema) WHERE \(ident: ItemColumn.orderID) = \(bind: request.orderID)
                    """).first(decodingColumn: "n", as: Int.self) ?? 0
                guard unitsLeft > 0 else { throw AppError.conflict("refund_whole_order") }
            }
            let refund = LineRefund(id: UUID(), line: request.line, quantity: quantity, amount: line.unitPrice * quantity,
                                    reason: String(request.reason.prefix(200)), refundedAt: now, refundedBy: request.by)
            try await sql.insert(into: Self.lineRefundTable)
                .columns(LineRefundColumn.id, LineRefundColumn.orderID, LineRefundColumn.line, LineRefundColumn.quantity, LineRefundColumn.amount,
                         LineRefundColumn.reason, LineRefundColumn.refundedAt, LineRefundColumn.refundedBy)
                .values(SQLBind(refund.id), SQLBind(request.orderID), SQLBind(refund.line), SQLBind(refund.quantity), SQLBind(refund.amount),
                        SQLBind(refund.reason), SQLBind(now), SQLBind(refund.refundedBy))
                .run()
            let paymentRefund = try await Refunds.request(refunding(refund.id, refund.amount), on: transaction, now: now)
            try await AuditLog(database: transaction).record(audit(refund))
            var stocks: [(hash: String, stock: Int)] = []
            if status.notShipped, let stock = try await store.returnStock(quantity, to: line.dishID) { stocks.append((line.hash, stock)) }
            return (refund, paymentRefund, stocks)
        }
        await announce(stocks: done.stocks)
        return (done.refund, done.paymentRefund)
    }

    /// One line of an order as a refund needs it.
    private func line(_ line: Int, of orderID: UUID) async throws -> (dishID: UUID, hash: String, unitPrice: Int, quantity: Int, refunded: Int)? {
        guard let row = try await sql.select()
            .columns(ItemColumn.dishID, ItemColumn.hash, ItemColumn.unitPrice, ItemColumn.quantity, ItemColumn.refundedQuantity)
            .from(items).where(SQLIdentifier(ItemColumn.orderID), .equal, SQLBind(orderID)).where(SQLIdentifier(ItemColumn.line), .equal, SQLBind(line))
            .first() else { return nil }
        return (try row.decode(column: ItemColumn.dishID, as: UUID.self), try row.decode(column: ItemColumn.hash, as: String.self),
                try row.decode(column: ItemColumn.unitPrice, as: Int.self), try row.decode(column: ItemColumn.quantity, as: Int.self),
                try row.decode(column: ItemColumn.refundedQuantity, as: Int.self))
    }

    /// An order's line refunds, oldest first.
    func lineRefunds(ofOrder id: UUID) async throws -> [LineRefund] {
        try await sql.select().columns(LineRefundColumn.all).from(Self.lineRefundTable)
            .where(SQLIdentifier(LineRefundColumn.orderID), .equal, SQLBind(id))
            .orderBy(SQLIdentifier(LineRefundColumn.refundedAt)).orderBy(SQLIdentifier(LineRefundColumn.id))
            .all().map { row in
                LineRefund(id: try row.decode(column: LineRefundColumn.id, as: UUID.self), line: try row.decode(column: LineRefundColumn.line, as: Int.self),
                           quantity: try row.decode(column: LineRefundColumn.quantity, as: Int.self),
                           amount: try row.decode(column: LineRefundColumn.amount, as: Int.self),
                           reason: try row.decode(column: LineRefundColumn.reason, as: String.self),
                           refundedAt: try row.decode(column: LineRefundColumn.refundedAt, as: Date.self),
                           refundedBy: try row.decode(column: LineRefundColumn.refundedBy, as: UUID?.self))
            }
    }
}

/// Refunds of some units of a line (issue 61): each line counts its refunded units, and each
/// refund is kept with its amount, reason, time and operator.
struct AddLineRefunds: NamedMigration {
    typealias Column = BanchanStore.LineRefundColumn

    func prepare(on database: any Database) async throws {
        try await database.schema(BanchanOrderItem.schema)
            .field(BanchanStore.ItemColumn.refundedQuantity.fieldKey, .int, .required, .sql(.default(0))).update()
        try await database.schema(BanchanStore.lineRefundTable)
            .id()
            .field(Column.orderID.fieldKey, .uuid, .required, .references(BanchanOrder.schema, "id", onDelete: .cascade))
            .field(Column.line.fieldKey, .int, .required)
            .field(Column.quantity.fieldKey, .int, .required)
            .field(Column.amount.fieldKey, .int, .required)
            .field(Column.reason.fieldKey, .string, .required)
            .field(Column.refundedAt.fieldKey, .datetime, .required)
            .field(Column.refundedBy.fieldKey, .uuid)
            .create()
        try await database.sql.create(index: "banchan_order_refunds_order").on(BanchanStore.lineRefundTable).column(Column.orderID.rawValue).run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(BanchanStore.lineRefundTable).delete()
        // Written out: Fluent's SQLite driver leaves a dropped field where it is.
        try await database.sql.raw("ALTER TABLE \(ident: BanchanOrderItem.schema) DROP COLUMN \(ident: BanchanStore.ItemColumn.refundedQuantity)").run()
    }
}
