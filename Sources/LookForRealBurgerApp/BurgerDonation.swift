import Accounts
import Fluent
import Foundation

/// A donation made from the LookForRealBurger app's "후원하기", once the payment provider confirmed
/// it; the provider's payment id is unique, so one payment counts once.
package final class BurgerDonation: Model, @unchecked Sendable {
    package static let schema = "burger_donations"

    @ID(key: .id) package var id: UUID?
    @OptionalParent(key: "user_id") package var user: User?
    @Field(key: "payment_id") package var paymentID: String
    @Field(key: "merchant_uid") package var merchantUID: String
    @Field(key: "amount") package var amount: Int
    /// `portone` or `test`.
    @Field(key: "gateway") package var gateway: String
    @Timestamp(key: "created_at", on: .create, format: .microseconds) package var createdAt: Date?

    package init() {}

    package init(userID: UUID, paymentID: String, merchantUID: String, amount: Int, gateway: String) {
        self.$user.id = userID
        self.paymentID = paymentID
        self.merchantUID = merchantUID
        self.amount = amount
        self.gateway = gateway
    }
}
