import Accounts
package import Fluent
import Payments
import Platform
import Vapor

/// What a person owns and wears.
package struct MatesCollection: Sendable {
    package let avatars: [Int]
    package let backgrounds: [Int]
    package let avatar: Int
    package let background: Int
}

extension MatesService {
    /// What the account owns and wears (its own profile from memory).
    package func collection(of user: UUID) async throws -> MatesCollection {
        let profile = try await profileSnapshot(user)
        return try await collection(of: user, avatar: profile.avatar, background: profile.background)
    }

    func collection(of profile: MatesProfile) async throws -> MatesCollection {
        try await collection(of: profile.id, avatar: profile.avatar, background: profile.background)
    }

    /// What the person owns (the free first of each kind included) and wears.
    package func collection(of user: UUID, avatar: Int, background: Int) async throws -> MatesCollection {
        let bought = try await store.purchasedItems(of: user)
        func owned(_ kind: MatesItemKind) -> [Int] {
            Array(Set([0] + bought.filter { $0.kind == kind.rawValue }.map(\.index))).sorted()
        }
        return MatesCollection(avatars: owned(.avatar), backgrounds: owned(.background), avatar: avatar, background: background)
    }

    /// Honours an App Store signed transaction once: verified by `verifier`, for a product of the
    /// catalog; the same transaction id a second time (by anyone) is refused.
    func purchase(signedTransaction: String, for profile: MatesProfile, verifier: (any AppStoreTransactionVerifier)?) async throws
        -> (item: MatesShopItem, collection: MatesCollection)
    {
        guard let verifier else { throw AppError(.serviceUnavailable, "purchases_unavailable") }
        guard !signedTransaction.isEmpty, signedTransaction.utf8.count <= 64 * 1024 else { throw AppError.invalid("purchase_invalid") }
        let transaction: AppStoreTransaction
        do {
            transaction = try await verifier.verify(signedTransaction: signedTransaction)
        } catch {
            application.logger.notice("an App Store transaction was refused: \(error)")
            throw AppError.invalid("purchase_invalid")
        }
        guard let item = MatesShopCatalog.item(productID: transaction.productID) else { throw AppError.invalid("unknown_product") }
        guard try await store.recordPurchase(by: profile.id, transactionID: transaction.transactionID,
                                             productID: transaction.productID, kind: item.kind, index: item.index, environment: transaction.environment) else {
            throw AppError.conflict("transaction_used")
        }
        return (item, try await collection(of: profile))
    }

    /// `equip` for an account (callers that hold ids, not profiles: the apps' layer).
    package func equip(avatar: Int?, background: Int?, for user: UUID) async throws -> MatesCollection {
        try await equip(avatar: avatar, background: background, for: try await verifiedProfile(user))
    }

    /// Wears an avatar and a background; only what one owns.
    func equip(avatar: Int?, background: Int?, for profile: MatesProfile) async throws -> MatesCollection {
        let owned = try await collection(of: profile)
        var profile = profile
        if let avatar {
            guard MatesShopCatalog.exists(.avatar, avatar) else { throw AppError.invalid("unknown_item") }
            guard owned.avatars.contains(avatar) else { throw AppError(.forbidden, "item_not_owned") }
            profile.avatar = avatar
        }
        if let background {
            guard MatesShopCatalog.exists(.background, background) else { throw AppError.invalid("unknown_item") }
            guard owned.backgrounds.contains(background) else { throw AppError(.forbidden, "item_not_owned") }
            profile.background = background
        }
        try await store.save(profile, columns: [.avatar, .background])
        return try await collection(of: profile)
    }
}
