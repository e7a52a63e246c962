import BurgerMap
import Fluent
import Payments
import Platform
import Vapor

/// The LookForRealBurger app's "후원하기": its users pay 100 won with PortOne in the app, then ask
/// us to check the payment. Counted only once the payment provider says it is paid, for exactly
/// that amount; one payment counts once. The rules over `BurgerDonationStore`.
struct BurgerDonations {
    let database: any Database

    /// What a donation costs: the app sends `amount "100"` to PortOne.
    static let amount = 100
    /// The post the app names in its check (`post_id`, hard-coded as `66d6c7cedfc6560142283221`):
    /// the 24-hex id of this UUID (`ObjectID`), so it exists on every install.
    static let postID = UUID(uuidString: "66D6C7CE-DFC6-5601-4228-322100000000")!
    /// The post's date, fixed with its id.
    static let postedAt = Date(timeIntervalSince1970: 1_725_343_694)
    static let maxPaymentIDLength = 100

    /// Records a donation paid with the configured payment provider (PortOne in production). A
    /// payment checked again by the same person is the donation already recorded; someone else's
    /// is refused. A payment of another amount is refunded.
    func donate(paymentID rawPaymentID: String, by userID: UUID, gateway: (any PaymentGateway)?, logger: Logger, now: Date) async throws -> DonationRow {
        let paymentID = rawPaymentID.trimmingCharacters(in: .whitespaces)
        guard (1...Self.maxPaymentIDLength).contains(paymentID.utf8.count),
              !paymentID.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw AppError.invalid("payment_not_found") }
        guard let gateway else { throw AppError(.serviceUnavailable, "payments_unavailable") }
        if let recorded = try await donation(paymentID: paymentID, by: userID) { return recorded }
        let payment = try await gateway.lookUp(paymentID, logger: logger)
        guard payment.status == .paid else { throw AppError.invalid("donation_not_paid") }
        guard payment.amount == Self.amount else {
            let refund = Refunds.Request(gateway: gateway.name, paymentID: payment.providerID, merchantUID: payment.merchantUID,
                                         subject: "burger_donation:\(userID)", reason: "a donation is \(Self.amount) won, paid \(payment.amount)")
            await Refunds.attempt(try await Refunds.request(refund, on: database, now: now), on: database, gateway: gateway, logger: logger, now: now)
            throw AppError.invalid("donation_amount_mismatch", ["expected": String(Self.amount), "paid": String(payment.amount)])
        }
        do {
            return try await donations.record(userID: userID, paymentID: paymentID, merchantUID: payment.merchantUID, amount: payment.amount,
                                              gateway: gateway.name, now: now)
        } catch {
            // The same payment checked twice at once: the first recorded it.
            guard (error as? any DatabaseError)?.isConstraintFailure == true,
                  let recorded = try await self.donation(paymentID: paymentID, by: userID) else { throw error }
            return recorded
        }
    }

    /// The donation already recorded for this payment, if it is this person's; 409 if another's.
    private func donation(paymentID: String, by userID: UUID) async throws -> DonationRow? {
        guard let recorded = try await donations.donation(paymentID: paymentID) else { return nil }
        guard recorded.userID == userID else { throw AppError.conflict("payment_already_used") }
        return recorded
    }

    /// The people who donated, first donation first, each once.
    func donors() async throws -> [UUID] {
        try await donations.donors()
    }

    private var donations: BurgerDonationStore { BurgerDonationStore(database: database) }
}
