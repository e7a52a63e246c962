package import Fluent
import Foundation
package import Platform
import SQLKit

/// A refund as `payment_refunds` holds it.
package struct RefundRow: Sendable, Equatable {
    package let id: UUID
    package let gateway: String
    package let paymentID: String
    /// The order the payment must have paid for (nil: whichever).
    package let merchantUID: String?
    /// What the refund is for (`banchan_order:{id}`).
    package let subject: String
    package let reason: String
    package let attempts: Int
    package let nextAttemptAt: Date
    package let lastError: String?
    package let doneAt: Date?
    /// `Refunds.Outcome`'s raw value once settled.
    package let outcome: String?
    /// Part of the payment (nil: all that is left of it), and which part (`Refunds.wholePayment`).
    package let amount: Int?
    package let part: String
}

/// The one owner of `payment_refunds`, the refunds the server owes (`Refunds` keeps the rules:
/// when to try, what the provider's answer means, the backoff): the only code that reads or writes
/// it, naming each column once. Nothing is kept in memory about refunds but the console's counts
/// (the `/metrics` gauges are set from the table by the retry job): a write that changes them
/// moves `changes` in this process. An outcome another instance records is not announced — the
/// console's Today is kept at most seconds for that (`AdminConsolePages.todayLifetimeSeconds`) — and a
/// refund recorded inside an order's transaction, before its commit, is followed by the order's
/// own announcement after it (`KeptOrders`), which Today's shop figures are kept at too.
package struct RefundStore {
    let database: any Database

    package init(database: any Database) { self.database = database }

    /// Moves after every write that changes the counts (`counts()`), in this process.
    package static let changes = ChangeVersion(topic: "payments.refunds")

    static let table = "payment_refunds"

    enum Column: String, TableColumn {
        case id, gateway, paymentID = "payment_id", merchantUID = "merchant_uid", subject, reason
        case requestedAt = "requested_at", attempts, nextAttemptAt = "next_attempt_at", lastError = "last_error"
        case doneAt = "done_at", outcome
        /// Until when an attempt holds the refund (nil: nobody does); apart from `nextAttemptAt`,
        /// the backoff, so an operator's "try again now" cannot move a refund out of a held claim.
        case claimedUntil = "claimed_until"
        /// Part of the payment (null: all that is left), and which part: a payment has one refund a part.
        case amount, part
        static let all = [id, gateway, paymentID, merchantUID, subject, reason, attempts, nextAttemptAt, lastError, doneAt, outcome, amount, part]
    }

    private var sql: any SQLDatabase { database.sql }

    /// Records a refund due now, unless that part of its payment (at its gateway) is recorded already: false then.
    func record(_ refund: Refunds.Request, id: UUID, reason: String, now: Date) async throws -> Bool {
        let recorded = try await !sql.raw("""
            INSERT INTO \(ident: Self.table) (\(ident: Column.id), \(ident: Column.gateway), \(ident: Column.paymentID), \(ident: Column.merchantUID),
                \(ident: Column.subject), \(ident: Column.reason), \(ident: Column.requestedAt), \(ident: Column.attempts), \(ident: Column.nextAttemptAt),
                \(ident: Column.amount), \(ident: Column.part))
            VALUES (\(bind: id), \(bind: refund.gateway), \(bind: refund.paymentID), \(bind: refund.merchantUID), \(bind: refund.subject),
                    \(bind: reason), \(bind: now), 0, \(bind: now), \(bind: refund.amount), \(bind: refund.part))
            ON CONFLICT (\(ident: Column.gateway), \(ident: Column.paymentID), \(ident: Column.part)) DO NOTHING RETURNING \(ident: Column.id)
            """).all().isEmpty
        Self.changes.moveOn()
        return recorded
    }

    /// How many refunds `subject` has, settled or not.
    package func count(subject: String) async throws -> Int {
        try await sql.raw("SELECT COUNT(*) AS n FROM \(ident: Self.table) WHERE \(ident: Column.subject) = \(bind: subject)")
            .first(decodingColumn: "n", as: Int.self) ?? 0
    }

    /// Not claimed at `now`: nobody holds it, or the holder's lease lapsed (it died mid-call).
    private static func unclaimed(at now: Date) -> SQLQueryString {
        "(\(ident: Column.claimedUntil) IS NULL OR \(ident: Column.claimedUntil) <= \(bind: now))"
    }

    /// Takes the due refunds nobody holds (only `id`, when given) until `leaseEnd`: one statement
    /// sets their claim, so no other claim sees them until it is released or lapses. On PostgreSQL
    /// the rows are picked `FOR UPDATE SKIP LOCKED`, so instances never claim the same refund at
    /// once (a row another claim just took is read again and no longer matches).
    package func claimDue(only id: UUID? = nil, limit: Int, now: Date, leaseEnd: Date) async throws -> [RefundRow] {
        let skipLocked = sql.dialect.name == "postgresql" ? " FOR UPDATE SKIP LOCKED" : ""
        var onlyThisOne: SQLQueryString = ""
        if let id { onlyThisOne = "AND \(ident: Column.id) = \(bind: id)" }
        return try await sql.raw("""
            UPDATE \(ident: Self.table) SET \(ident: Column.claimedUntil) = \(bind: leaseEnd)
            WHERE \(ident: Column.id) IN (SELECT \(ident: Column.id) FROM \(ident: Self.table)
                         WHERE \(ident: Column.doneAt) IS NULL AND \(ident: Column.nextAttemptAt) <= \(bind: now) AND \(Self.unclaimed(at: now)) \(onlyThisOne)
                         ORDER BY \(ident: Column.nextAttemptAt) LIMIT \(unsafeRaw: String(limit))\(unsafeRaw: skipLocked))
            AND \(ident: Column.doneAt) IS NULL AND \(Self.unclaimed(at: now))
            RETURNING \(Self.columns)
            """).all().map(Self.row(from:))
    }

    /// Makes a subject's unsettled refunds that no attempt holds due now (an operator's retry
    /// instead of waiting for the backoff): their ids. A held one is left to its attempt.
    func makeDue(subject: String, now: Date) async throws -> [UUID] {
        try await sql.raw("""
            UPDATE \(ident: Self.table) SET \(ident: Column.nextAttemptAt) = \(bind: now)
            WHERE \(ident: Column.subject) = \(bind: subject) AND \(ident: Column.doneAt) IS NULL AND \(Self.unclaimed(at: now))
            RETURNING \(ident: Column.id)
            """).all().map { try $0.decode(column: Column.id, as: UUID.self) }
    }

    /// How many of a subject's unsettled refunds an attempt holds at `now`.
    func heldCount(subject: String, now: Date) async throws -> Int {
        try await sql.raw("""
            SELECT COUNT(*) AS n FROM \(ident: Self.table)
            WHERE \(ident: Column.subject) = \(bind: subject) AND \(ident: Column.doneAt) IS NULL AND \(ident: Column.claimedUntil) > \(bind: now)
            """).first(decodingColumn: "n", as: Int.self) ?? 0
    }

    /// Settles a refund with the provider's answer (once: a settled one stays as it was), releasing its claim.
    func settle(_ id: UUID, outcome: String, at now: Date) async throws {
        try await sql.update(Self.table).set(Column.doneAt, to: SQLBind(now)).set(Column.outcome, to: SQLBind(outcome))
            .set(Column.attempts, to: SQLBinaryExpression(SQLIdentifier(Column.attempts), .add, SQLLiteral.numeric("1")))
            .set(Column.claimedUntil, to: SQLLiteral.null)
            .where(Column.id, .equal, SQLBind(id)).where(Column.doneAt, .is, SQLLiteral.null).run()
        Self.changes.moveOn()
    }

    /// Records a failed attempt, when to try again, and releases the claim `leaseEnd` took (not
    /// for a settled refund, nor for one a later claim holds since this one's lease lapsed: that
    /// attempt records its own answer).
    func recordFailure(_ id: UUID, attempts: Int, error: String, nextAttemptAt: Date, leaseEnd: Date) async throws {
        try await sql.raw("""
            UPDATE \(ident: Self.table) SET \(ident: Column.attempts) = \(bind: attempts), \(ident: Column.lastError) = \(bind: error),
                \(ident: Column.nextAttemptAt) = \(bind: nextAttemptAt), \(ident: Column.claimedUntil) = NULL
            WHERE \(ident: Column.id) = \(bind: id) AND \(ident: Column.doneAt) IS NULL
              AND (\(ident: Column.claimedUntil) IS NULL OR \(ident: Column.claimedUntil) <= \(bind: leaseEnd))
            """).run()
        Self.changes.moveOn()
    }

    /// Unsettled refunds, and how many of them failed their last attempt.
    package func counts() async throws -> (pending: Int, failed: Int) {
        let row = try await sql.raw("""
            SELECT COUNT(*) AS pending, COALESCE(SUM(CASE WHEN \(ident: Column.lastError) IS NULL THEN 0 ELSE 1 END), 0) AS failed
            FROM \(ident: Self.table) WHERE \(ident: Column.doneAt) IS NULL
            """).first()
        return (try row?.decode(column: "pending", as: Int.self) ?? 0, try row?.decode(column: "failed", as: Int.self) ?? 0)
    }

    /// How many refunds `subject` has, and how many of them are unsettled.
    func openCount(subject: String) async throws -> (total: Int, open: Int) {
        let row = try await sql.raw("""
            SELECT COUNT(*) AS total, COALESCE(SUM(CASE WHEN \(ident: Column.doneAt) IS NULL THEN 1 ELSE 0 END), 0) AS open
            FROM \(ident: Self.table) WHERE \(ident: Column.subject) = \(bind: subject)
            """).first()
        return (try row?.decode(column: "total", as: Int.self) ?? 0, try row?.decode(column: "open", as: Int.self) ?? 0)
    }

    /// The refund of a payment's `part` (at any gateway), if one was recorded: what the operator
    /// and the tests look at.
    package func refund(paymentID: String, part: String = Refunds.wholePayment) async throws -> RefundRow? {
        try await sql.raw("""
            SELECT \(Self.columns) FROM \(ident: Self.table) WHERE \(ident: Column.paymentID) = \(bind: paymentID) AND \(ident: Column.part) = \(bind: part)
            """).first().map(Self.row(from:))
    }

    /// Every refund of a subject, oldest first: an order's refunds, each with its part.
    package func refunds(subject: String) async throws -> [RefundRow] {
        try await sql.raw("""
            SELECT \(Self.columns) FROM \(ident: Self.table) WHERE \(ident: Column.subject) = \(bind: subject)
            ORDER BY \(ident: Column.requestedAt), \(ident: Column.id)
            """).all().map(Self.row(from:))
    }

    private static var columns: SQLList { SQLList(Column.all.map { SQLIdentifier($0) }) }

    private static func row(from row: any SQLRow) throws -> RefundRow {
        RefundRow(id: try row.decode(column: Column.id, as: UUID.self), gateway: try row.decode(column: Column.gateway, as: String.self),
                  paymentID: try row.decode(column: Column.paymentID, as: String.self),
                  merchantUID: try row.decode(column: Column.merchantUID, as: String?.self),
                  subject: try row.decode(column: Column.subject, as: String.self), reason: try row.decode(column: Column.reason, as: String.self),
                  attempts: try row.decode(column: Column.attempts, as: Int.self),
                  nextAttemptAt: try row.decode(column: Column.nextAttemptAt, as: Date.self),
                  lastError: try row.decode(column: Column.lastError, as: String?.self), doneAt: try row.decode(column: Column.doneAt, as: Date?.self),
                  outcome: try row.decode(column: Column.outcome, as: String?.self), amount: try row.decode(column: Column.amount, as: Int?.self),
                  part: try row.decode(column: Column.part, as: String.self))
    }
}
