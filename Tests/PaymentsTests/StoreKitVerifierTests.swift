import Accounts
import Crypto
import Foundation
@testable import Payments
import Platform
import WhatWeEatTesting
import X509
import XCTVapor

/// StoreKit 2 signed transactions against a chain made at test time: what the App Store signs is
/// honoured once, and nothing else is.
final class StoreKitVerifierTests: XCTestCase {
    private func refusal(_ verifier: StoreKitTransactionVerifier, _ jws: String, file: StaticString = #filePath, line: UInt = #line) async -> AppStoreVerificationError? {
        do {
            let transaction = try await verifier.verify(signedTransaction: jws)
            XCTFail("accepted \(transaction)", file: file, line: line)
            return nil
        } catch let error as AppStoreVerificationError {
            return error
        } catch {
            XCTFail("unexpected \(error)", file: file, line: line)
            return nil
        }
    }

    func testASignedTransactionIsReadBack() async throws {
        let store = try FakeAppStore()
        let jws = try store.sign(FakeAppStore.payload(transactionID: "2000000812345678", productID: "com.whatweeat.mates.background2"))
        let transaction = try await store.verifier().verify(signedTransaction: jws)
        XCTAssertEqual(transaction.transactionID, "2000000812345678")
        XCTAssertEqual(transaction.productID, "com.whatweeat.mates.background2")
        XCTAssertEqual(transaction.bundleID, FakeAppStore.bundleID)
        XCTAssertEqual(transaction.environment, "Production")
        XCTAssertEqual(transaction.purchaseDate, Date(timeIntervalSince1970: 1_764_000_000))
        // Without the root inside x5c (only leaf and intermediate), as some clients send it.
        let short = try store.sign(FakeAppStore.payload(transactionID: "2"), chain: [store.leaf, store.intermediate.certificate])
        let awaited = try await store.verifier().verify(signedTransaction: short).transactionID
        XCTAssertEqual(awaited, "2")
    }

    func testAForgedSignatureIsRefused() async throws {
        let store = try FakeAppStore()
        let verifier = store.verifier()
        // Signed by a key that is not the leaf's.
        let otherKey = try store.sign(FakeAppStore.payload(transactionID: "1"), signer: P256.Signing.PrivateKey())
        let awaited1 = await refusal(verifier, otherKey)
        XCTAssertEqual(awaited1, .badSignature)
        // A genuine signature over another payload: the product swapped for a dearer one.
        let genuine = try store.sign(FakeAppStore.payload(transactionID: "1", productID: "com.whatweeat.mates.avatar1")).split(separator: ".")
        let swapped = try JSONSerialization.data(withJSONObject: FakeAppStore.payload(transactionID: "1", productID: "com.whatweeat.mates.avatar7"))
        let awaited2 = await refusal(verifier, "\(genuine[0]).\(swapped.base64URLEncodedString()).\(genuine[2])")
        XCTAssertEqual(awaited2, .badSignature)
        let awaited3 = await refusal(verifier, "\(genuine[0]).\(genuine[1]).")
        XCTAssertEqual(awaited3, .badSignature)
    }

    func testAChainToAnotherRootIsRefused() async throws {
        let genuine = try FakeAppStore()
        let impostor = try FakeAppStore()
        // The impostor's whole chain, root included: only the configured root is trusted.
        let awaited1 = await refusal(genuine.verifier(), try impostor.sign(FakeAppStore.payload(transactionID: "1")))
        XCTAssertEqual(awaited1, .untrustedChain)
        // The genuine root pasted into x5c after the impostor's leaf and intermediate.
        let mixed = try impostor.sign(FakeAppStore.payload(transactionID: "1"),
                                      chain: [impostor.leaf, impostor.intermediate.certificate, genuine.root.certificate])
        let awaited2 = await refusal(genuine.verifier(), mixed)
        XCTAssertEqual(awaited2, .untrustedChain)
        // A leaf signed straight by the root (no intermediate), or no chain at all.
        let direct = try genuine.root.issue(commonName: "leaf", key: genuine.leafKey,
                                            extensions: try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) })
        let awaited3 = await refusal(genuine.verifier(), try genuine.sign(FakeAppStore.payload(transactionID: "1"), chain: [direct, genuine.root.certificate]))
        XCTAssertEqual(awaited3, .untrustedChain)
        let awaited4 = await refusal(genuine.verifier(), try genuine.sign(FakeAppStore.payload(transactionID: "1"), header: ["x5c": [String]()]))
        XCTAssertEqual(awaited4, .untrustedChain)
    }

    func testAChainWithoutApplesMarkersIsRefused() async throws {
        let unmarked = try FakeAppStore(markers: false)
        let awaited = await refusal(unmarked.verifier(), try unmarked.sign(FakeAppStore.payload(transactionID: "1")))
        XCTAssertEqual(awaited, .untrustedChain)
    }

    func testAnExpiredLeafIsRefused() async throws {
        let expired = try FakeAppStore(leafNotAfter: Date() - 60)
        let awaited = await refusal(expired.verifier(), try expired.sign(FakeAppStore.payload(transactionID: "1")))
        XCTAssertEqual(awaited, .untrustedChain)
    }

    func testAnotherAppsBundleIsRefused() async throws {
        let store = try FakeAppStore()
        let awaited = await refusal(store.verifier(), try store.sign(FakeAppStore.payload(transactionID: "1", bundleID: "com.other.app")))
        XCTAssertEqual(awaited, .wrongBundle)
    }

    func testEnvironmentsAndRevocations() async throws {
        let store = try FakeAppStore()
        let sandbox = try store.sign(FakeAppStore.payload(transactionID: "1", environment: "Sandbox"))
        let awaited1 = await refusal(store.verifier(), sandbox)
        XCTAssertEqual(awaited1, .wrongEnvironment)
        let awaited2 = try await store.verifier(environments: ["Production", "Sandbox"]).verify(signedTransaction: sandbox).environment
        XCTAssertEqual(awaited2, "Sandbox")
        let awaited3 = await refusal(store.verifier(), try store.sign(FakeAppStore.payload(transactionID: "1", revoked: true)))
        XCTAssertEqual(awaited3, .revoked)
    }

    func testOtherAlgorithmsAndMalformedTokensAreRefused() async throws {
        let store = try FakeAppStore()
        let verifier = store.verifier()
        let payload = try JSONSerialization.data(withJSONObject: FakeAppStore.payload(transactionID: "1")).base64URLEncodedString()
        let none = try JSONSerialization.data(withJSONObject: ["alg": "none"]).base64URLEncodedString()
        let awaited1 = await refusal(verifier, "\(none).\(payload).")
        XCTAssertEqual(awaited1, .unsupportedAlgorithm)
        let awaited2 = await refusal(verifier, try store.sign(FakeAppStore.payload(transactionID: "1"), header: ["alg": "HS256"]))
        XCTAssertEqual(awaited2, .unsupportedAlgorithm)
        for garbage in ["", "a.b", "a.b.c.d", "eyJhbGciOi.garbage.x", "!!!.???.***", "\(none)"] {
            let awaited = await refusal(verifier, garbage)
            XCTAssertEqual(awaited, .malformed, garbage)
        }
        let awaited3 = await refusal(verifier, try store.sign(FakeAppStore.payload(transactionID: "1"), header: ["x5c": ["bm90IGEgY2VydA=="]]))
        XCTAssertEqual(awaited3, .malformed)
        // Signed and chained, but without a transaction id.
        var empty = FakeAppStore.payload(transactionID: "")
        let awaited4 = await refusal(verifier, try store.sign(empty))
        XCTAssertEqual(awaited4, .malformed)
        empty.removeValue(forKey: "transactionId")
        let awaited5 = await refusal(verifier, try store.sign(empty))
        XCTAssertEqual(awaited5, .malformed)
    }
}
