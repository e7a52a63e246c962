import Accounts
import Fluent
import Mates
import Platform
import Vapor

extension MatesService {
    /// A 새싹 스터디 app's purchase, taken on trust: only for servers whose purchases are test
    /// purchases (the caller checks). A receipt grants its product once.
    func grantUnverifiedReceipt(_ receipt: String, product: String, for profile: MatesProfile) async throws -> MatesCollection {
        guard let item = SesacWire.shopItem(productID: product) else { throw AppError.invalid("unknown_product") }
        guard receipt.utf8.count <= 256 * 1024 else { throw AppError.invalid("purchase_invalid") }
        let purchase = MatesPurchase()
        purchase.userID = try profile.requireID()
        purchase.transactionID = "receipt:" + SecureRandom.sha256Hex(product + ":" + receipt)
        purchase.productID = product
        purchase.itemKind = item.kind.rawValue
        purchase.itemIndex = item.index
        purchase.environment = "Unverified"
        do {
            try await purchase.create(on: database)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            // Sent again (the apps retry): it was granted the first time.
        }
        return try await collection(of: profile)
    }
}
