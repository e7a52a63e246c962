package import Fluent
import FluentSQL
import Metrics
import Platform
import SQLKit
import Vapor

/// Every refund the server owes at a payment provider, kept until the provider confirms it. A
/// refund is requested in the same transaction as the change that owes it (an order cancelled, a
/// payment that paid for nothing), tried at once, and retried with backoff by `retryJob` until it
/// is done: a provider that is down, refuses, or answers too late loses no one their money, and a
/// restart in the middle loses nothing (a claim lapses after `claimLease`).
///
/// Each attempt asks the provider first, so a refund that went through while our call timed out
/// is recognised (`already_cancelled`) rather than repeated, and a payment that turns out not to
/// be this order's, or not paid, is never refunded (`not_this_order`, `nothing_paid`).
/// The table is `RefundStore`'s.
package enum Refunds {
    /// How long a claimed refund belongs to the instance that claimed it (one provider call is
    /// at most `PortOneGateway.defaultTimeout` three times: a token, a look-up, the refund).
    package static let claimLease: TimeInterval = 60
    /// At most this many unverified refund records per subject: a client naming payment after
    /// payment for a cancelled order while the provider is down cannot grow the table.
    package static let maxPerSubject = 5

    /// What the provider said, once a refund is settled.
    enum Outcome: String, Sendable {
        case refunded
        /// The provider already shows the payment cancelled (a late answer to an earlier attempt).
        case alreadyCancelled = "already_cancelled"
        /// The payment never took money (failed, unknown to the provider).
        case nothingPaid = "nothing_paid"
        /// Paid, but for another order: not ours to refund.
        case notThisOrder = "not_this_order"
    }

    /// A refund to make: the payment, the order it must have paid for (nil: whichever), and
    /// what the refund is for (`banchan_order:{id}`, shown on that order's page while pending).
    /// `amount`: part of the payment (one line of an order), nil for all that is left of it;
    /// `part` names which part, so a payment has at most one refund of each (`whole` for all of it).
    package struct Request: Sendable {
        package let gateway: String
        package let paymentID: String
        package let merchantUID: String?
        package let subject: String
        package let reason: String
        package let amount: Int?
        package let part: String

        package init(gateway: String, paymentID: String, merchantUID: String?, subject: String, reason: String,
                     amount: Int? = nil, part: String = Refunds.wholePayment) {
            self.gateway = gateway
            self.paymentID = paymentID
            self.merchantUID = merchantUID
            self.subject = subject
            self.reason = reason
            self.amount = amount
            self.part = part
        }
    }

    /// The `part` of a refund of everything a payment has left.
    package static let wholePayment = "whole"

    /// What a partial refund's reason carries to the provider, so an attempt whose answer was lost
    /// finds it in the payment's refunds (`cancel_history`) and does not refund it again.
    package static func tag(of id: UUID) -> String { "[#" + id.uuidString.prefix(8).lowercased() + "]" }

    /// A subject's refund as its owner sees it.
    package enum State: String, Sendable, Codable {
        case pending, done
    }

    /// Records a refund on `database` (pass the transaction that makes the change owing it).
    /// A payment already recorded is not recorded twice. Returns the record's id when it is new.
    /// `unverified`: the provider has not said the payment exists (it could not be asked), so a
    /// subject may hold at most `maxPerSubject` of those.
    @discardableResult
    package static func request(_ refund: Request, on database: any Database, unverified: Bool = false, now: Date) async throws -> UUID? {
        let store = RefundStore(database: database)
        if unverified {
            guard try await store.count(subject: refund.subject) < maxPerSubject else { return nil }
        }
        let id = UUID()
        return try await store.record(refund, id: id, reason: String(refund.reason.prefix(200)), now: now) ? id : nil
    }

    /// Tries one recorded refund now (right after its transaction committed), unless another
    /// attempt holds it. Failures are recorded and logged, never thrown: the job tries again.
    /// Whether this call claimed it (and so asked the provider).
    @discardableResult
    package static func attempt(_ id: UUID?, on database: any Database, gateway: (any PaymentGateway)?, logger: Logger, now: Date) async -> Bool {
        guard let id else { return false }
        do {
            let claimed = try await claim(only: id, limit: 1, on: database, now: now)
            for refund in claimed {
                await settle(refund, on: database, gateway: gateway, logger: logger, now: now)
            }
            return !claimed.isEmpty
        } catch {
            logger.error("refund not attempted; the retry job will", metadata: ["refund": "\(id)", "error": "\(error)"])
            return false
        }
    }

    /// Tries every refund that is due, a batch at a time. On PostgreSQL each batch is claimed with
    /// `FOR UPDATE SKIP LOCKED`, so instances never try the same refund at once. Returns how many
    /// were settled.
    @discardableResult
    package static func attemptDue(on database: any Database, gateway: (any PaymentGateway)?, logger: Logger, now: Date) async throws -> Int {
        var settled = 0
        for claimed in try await claim(limit: 20, on: database, now: now) {
            if await settle(claimed, on: database, gateway: gateway, logger: logger, now: now) { settled += 1 }
        }
        return settled
    }

    /// Pending and failing counts, for `/metrics` (`whatweeat_refunds_pending`, `whatweeat_refunds_failed`:
    /// pending refunds whose last attempt failed).
    package static func counts(on database: any Database) async throws -> (pending: Int, failed: Int) {
        try await RefundStore(database: database).counts()
    }

    /// An operator's "try again now": a subject's unsettled refunds are tried at once instead of at
    /// their backoff's time. A refund an attempt holds (its call is with the provider) is left to
    /// that attempt, so presses never start a second call: when this press tried none because
    /// attempts hold them, 409 `refund_already_being_tried`. The state after (nil: the subject owes none).
    package static func retryNow(subject: String, on database: any Database, gateway: (any PaymentGateway)?, logger: Logger,
                                 now: Date) async throws -> State? {
        let store = RefundStore(database: database)
        var tried = 0
        for id in try await store.makeDue(subject: subject, now: now) {
            if await attempt(id, on: database, gateway: gateway, logger: logger, now: now) { tried += 1 }
        }
        if tried == 0, try await store.heldCount(subject: subject, now: now) > 0 {
            throw AppError.conflict("refund_already_being_tried")
        }
        return try await state(of: subject, on: database)
    }

    /// The state of a subject's refunds: pending while any is, done when all are, nil when it has none.
    package static func state(of subject: String, on database: any Database) async throws -> State? {
        let counted = try await RefundStore(database: database).openCount(subject: subject)
        guard counted.total > 0 else { return nil }
        return counted.open > 0 ? .pending : .done
    }

    /// The job every instance runs: due refunds tried every `interval`, the gauges refreshed.
    static func retryJob(every interval: Duration = .seconds(30)) -> PeriodicJob {
        PeriodicJob("settled refunds", every: interval) { app in
            // The job is where time enters: one reading per run, which every refund it tries shares.
            let settled = try await attemptDue(on: app.db, gateway: app.paymentGateway, logger: app.logger, now: app.siteClock())
            try await publishCounts(on: app.db)
            return settled
        }
    }

    /// Sets the `/metrics` gauges from the table (every instance reports the same shared counts).
    package static func publishCounts(on database: any Database) async throws {
        let counts = try await self.counts(on: database)
        Gauge(label: "whatweeat_refunds_pending").record(counts.pending)
        Gauge(label: "whatweeat_refunds_failed").record(counts.failed)
    }

    /// Seconds before the next attempt after `attempts` failed ones: 30 s, doubling, at most an hour.
    package static func backoff(afterAttempts attempts: Int) -> TimeInterval {
        min(3600, 30 * pow(2, Double(max(0, min(attempts, 12) - 1))))
    }

    // MARK: Attempts

    /// Takes the due refunds (only `id`, when given) for `claimLease`.
    private static func claim(only id: UUID? = nil, limit: Int, on database: any Database, now: Date) async throws -> [RefundRow] {
        try await RefundStore(database: database).claimDue(only: id, limit: limit, now: now, leaseEnd: now.addingTimeInterval(claimLease))
    }

    /// One attempt: asks the provider about the payment, refunds it if it is paid (and this
    /// order's), and records the outcome or the failure. True when the refund is settled.
    @discardableResult
    private static func settle(_ refund: RefundRow, on database: any Database, gateway: (any PaymentGateway)?, logger: Logger, now: Date) async -> Bool {
        let outcome: Result<Outcome, any Error>
        if let gateway, gateway.name == refund.gateway {
            outcome = await Result(catching: { try await refundIfPaid(refund, with: gateway) })
        } else {
            outcome = .failure(PaymentGatewayError.unavailable("payment provider \(refund.gateway) is not configured"))
        }
        let store = RefundStore(database: database)
        do {
            switch outcome {
            case .success(let outcome):
                try await store.settle(refund.id, outcome: outcome.rawValue, at: now)
                if outcome != .refunded {
                    logger.notice("refund settled without a refund", metadata: ["subject": "\(refund.subject)", "payment": "\(refund.paymentID)", "outcome": "\(outcome.rawValue)"])
                }
                return true
            case .failure(let error):
                let attempts = refund.attempts + 1
                Counter(label: "whatweeat_refund_failures_total").increment()
                logger.error("refund failed; retrying", metadata: [
                    "subject": "\(refund.subject)", "payment": "\(refund.paymentID)", "attempts": "\(attempts)", "error": "\(error)",
                ])
                try await store.recordFailure(refund.id, attempts: attempts, error: String(String(describing: error).prefix(500)),
                                              nextAttemptAt: now.addingTimeInterval(backoff(afterAttempts: attempts)),
                                              leaseEnd: now.addingTimeInterval(claimLease))
                return false
            }
        } catch {
            // The claim lapses and the refund is tried again; the provider will say if it went through.
            logger.error("refund outcome not recorded", metadata: ["subject": "\(refund.subject)", "error": "\(error)"])
            return false
        }
    }

    private static func refundIfPaid(_ refund: RefundRow, with gateway: any PaymentGateway) async throws -> Outcome {
        let payment: ProviderPayment
        do {
            payment = try await gateway.payment(id: refund.paymentID)
        } catch PaymentGatewayError.unknownPayment {
            return .nothingPaid
        }
        switch payment.status {
        case .cancelled: return .alreadyCancelled
        case .failed: return .nothingPaid
        case .ready: throw PaymentGatewayError.unavailable("payment not settled at the provider yet")
        case .paid:
            if let expected = refund.merchantUID, payment.merchantUID != expected { return .notThisOrder }
            guard let amount = refund.amount else {
                // Everything the payment has left, after any partial refunds of it.
                try await gateway.cancel(paymentID: payment.providerID, reason: refund.reason)
                return .refunded
            }
            let tag = tag(of: refund.id)
            if payment.cancellations.contains(where: { $0.reason.contains(tag) }) { return .alreadyCancelled }
            // Less left than this part (refunded meanwhile at the provider's own console): the
            // operator sees it failing in the console and `/metrics`, and decides.
            guard payment.refundable >= amount else {
                throw PaymentGatewayError.unavailable("\(amount) to refund, \(payment.refundable) left of the payment")
            }
            // The checksum is the provider's own count of what is left: a partial refund of the same
            // payment going through at the same moment makes this one refused (and retried), not doubled.
            try await gateway.cancel(paymentID: payment.providerID, reason: refund.reason + " " + tag, amount: amount, checksum: payment.refundable)
            return .refunded
        }
    }
}

extension Result where Failure == any Error {
    fileprivate init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

package struct CreatePaymentRefunds: NamedMigration {
    package func prepare(on database: any Database) async throws {
        try await create(RefundStore.table, on: database, parts: false)
        try await Self.createIndexes(on: database)
    }

    /// The table as this migration made it, or (`parts`: with the claim and the parts) as
    /// `AddPaymentRefundParts` builds it again on SQLite.
    func create(_ table: String, on database: any Database, parts: Bool) async throws {
        let columns = database.schema(table)
            .id()
            .field("gateway", .string, .required)
            .field("payment_id", .string, .required)
            .field("merchant_uid", .string)
            .field("subject", .string, .required)
            .field("reason", .string, .required)
            .field("requested_at", .datetime, .required)
            .field("attempts", .int, .required)
            .field("next_attempt_at", .datetime, .required)
            .field("last_error", .string)
            .field("done_at", .datetime)
            .field("outcome", .string)
        guard parts else {
            try await columns.unique(on: "gateway", "payment_id").create()
            return
        }
        typealias Column = RefundStore.Column
        try await columns.field(Column.claimedUntil.fieldKey, .datetime).field(Column.amount.fieldKey, .int)
            .field(Column.part.fieldKey, .string, .required, .sql(.default(Refunds.wholePayment)))
            .unique(on: Column.gateway.fieldKey, Column.paymentID.fieldKey, Column.part.fieldKey, name: AddPaymentRefundParts.uniquePart).create()
    }

    static func createIndexes(on database: any Database) async throws {
        try await database.sql.create(index: "payment_refunds_subject").on(RefundStore.table).column("subject").run()
        try await database.sql.create(index: "payment_refunds_due").on(RefundStore.table).column("done_at").column("next_attempt_at").run()
    }

    package func revert(on database: any Database) async throws {
        try await database.schema(RefundStore.table).delete()
    }

    package init() {}
}

/// Issue 61: a payment may owe several refunds, one per part (`part`: `whole`, or one line of an
/// order), each of `amount` (null: all that is left). The uniqueness moves from (gateway,
/// payment) to (gateway, payment, part); SQLite cannot drop a table's constraint, so there the
/// table is built again with its rows (in one transaction: `SafeMigrations`).
package struct AddPaymentRefundParts: NamedMigration {
    typealias Column = RefundStore.Column

    package func prepare(on database: any Database) async throws {
        guard database.sql.dialect.name == "sqlite" else {
            try await database.schema(RefundStore.table).field(Column.amount.fieldKey, .int)
                .field(Column.part.fieldKey, .string, .required, .sql(.default(Refunds.wholePayment)))
                .deleteUnique(on: Column.gateway.fieldKey, Column.paymentID.fieldKey)
                .unique(on: Column.gateway.fieldKey, Column.paymentID.fieldKey, Column.part.fieldKey, name: Self.uniquePart).update()
            return
        }
        try await Self.rebuild(on: database) { table in
            try await CreatePaymentRefunds().create(table, on: database, parts: true)
        }
    }

    /// Named: PostgreSQL cuts Fluent's own name for it (over 63 bytes), which could not be dropped by that name.
    static let uniquePart = "payment_refunds_payment_part"

    package func revert(on database: any Database) async throws {
        // Back to one refund a payment: the partial ones go (that table cannot tell them apart).
        try await database.sql.delete(from: RefundStore.table)
            .where(SQLIdentifier(Column.part), .notEqual, SQLBind(Refunds.wholePayment)).run()
        guard database.sql.dialect.name == "sqlite" else {
            // Its own statement: PostgreSQL runs a table's drops in its own order, the columns (and so the constraint) first.
            try await database.schema(RefundStore.table).deleteConstraint(name: Self.uniquePart).update()
            try await database.schema(RefundStore.table)
                .unique(on: Column.gateway.fieldKey, Column.paymentID.fieldKey)
                .deleteField(Column.amount.fieldKey).deleteField(Column.part.fieldKey).update()
            return
        }
        try await Self.rebuild(on: database) { table in
            try await CreatePaymentRefunds().create(table, on: database, parts: false)
            try await database.schema(table).field(Column.claimedUntil.fieldKey, .datetime).update()
        }
    }

    /// SQLite's way to change a constraint: a new table made by `create`, the rows copied (the
    /// columns both have), the old one dropped, the new one renamed, its indexes made again.
    private static func rebuild(on database: any Database, create: (String) async throws -> Void) async throws {
        let sql = database.sql
        let rebuilt = RefundStore.table + "_rebuilt"
        try await create(rebuilt)
        let kept = SQLList(Column.allCases.filter { $0 != .amount && $0 != .part }.map { SQLIdentifier($0) })
        try await sql.raw("INSERT INTO \(ident: rebuilt) (\(kept)) SELECT \(kept) FROM \(ident: RefundStore.table)").run()
        try await sql.drop(table: RefundStore.table).run()
        try await sql.raw("ALTER TABLE \(ident: rebuilt) RENAME TO \(ident: RefundStore.table)").run()
        try await CreatePaymentRefunds.createIndexes(on: database)
    }

    package init() {}
}

/// Issue 56: a claim is its own column (`claimed_until`), apart from the backoff
/// (`next_attempt_at`), so an operator's "try again now" leaves a refund an attempt holds alone.
package struct AddPaymentRefundClaims: NamedMigration {
    package func prepare(on database: any Database) async throws {
        try await database.schema(RefundStore.table).field(RefundStore.Column.claimedUntil.fieldKey, .datetime).update()
    }

    package func revert(on database: any Database) async throws {
        try await database.schema(RefundStore.table).deleteField(RefundStore.Column.claimedUntil.fieldKey).update()
    }

    package init() {}
}
