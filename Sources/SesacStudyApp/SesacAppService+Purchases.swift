import Accounts
import Fluent
import Mates
import Platform
import Vapor

extension SesacAppService {
    /// A 새싹 스터디 app's purchase, taken on trust: only for servers whose purchases are test
    /// purchases (the caller checks). A receipt grants its product once.
    func grantUnverifiedReceipt(_ receipt: String, product: String, for user: UUID) async throws -> MatesCollection {
        guard let item = SesacWire.shopItem(productID: product) else { throw AppError.invalid("unknown_product") }
        guard receipt.utf8.count <= 256 * 1024 else { throw AppError.invalid("purchase_invalid") }
        // Sent again (the apps retry), it was granted the first time: not granted twice.
        _ = try await store.recordPurchase(by: user, transactionID: "receipt:" + SecureRandom.sha256Hex(product + ":" + receipt),
                                           productID: product, kind: item.kind, index: item.index, environment: "Unverified")
        return try await mates.collection(of: user)
    }
}
