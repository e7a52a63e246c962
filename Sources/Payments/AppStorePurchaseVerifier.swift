public import Foundation
package import Platform

/// An App Store transaction as the server honours it.
///
/// This file holds the verifier protocol and the test verifier; `StoreKitTransactionVerifier`
/// checks Apple's signed transactions (`APPSTORE_ROOT_CERT`).
public struct AppStoreTransaction: Sendable, Equatable {
    public let transactionID: String
    public let originalTransactionID: String
    public let productID: String
    public let bundleID: String
    public let purchaseDate: Date
    public let environment: String
    public let quantity: Int
}

public enum AppStoreVerificationError: Error, Equatable { case malformed, unsupportedAlgorithm, untrustedChain, badSignature, wrongBundle, wrongEnvironment, revoked }

public protocol AppStoreTransactionVerifier: Sendable {
    var name: String { get }
    func verify(signedTransaction: String) async throws -> AppStoreTransaction
}

/// For development and tests: `test:{productID}:{transactionID}` is a verified purchase of that
/// product. Settings refuse it when `APP_ENV=production`.
public struct TestAppStoreVerifier: AppStoreTransactionVerifier {
    public var name: String { "test" }
    /// When its purchases are made.
    private let clock: Now
    package init(clock: @escaping Now) { self.clock = clock }
    public static func token(productID: String, transactionID: String) -> String { "test:\(productID):\(transactionID)" }
    public func verify(signedTransaction: String) async throws -> AppStoreTransaction {
        let parts = signedTransaction.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts[0] == "test", !parts[1].isEmpty, !parts[2].isEmpty else { throw AppStoreVerificationError.malformed }
        return AppStoreTransaction(transactionID: parts[2], originalTransactionID: parts[2], productID: parts[1], bundleID: "test",
                                   purchaseDate: clock(), environment: "test", quantity: 1)
    }
}
