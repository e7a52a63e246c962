import Crypto
import Foundation
import Platform
public import SwiftASN1
public import X509

/// Checks StoreKit 2 signed transactions (`Transaction.jwsRepresentation`) the way Apple's App Store
/// Server Library does, offline:
///
/// 1. the JWS is compact (`header.payload.signature`), its header says `alg: ES256` (nothing else,
///    never `none`) and carries the signing chain in `x5c` (leaf first, base64 DER);
/// 2. the chain leads from the leaf through the given intermediates to the configured root
///    (`APPSTORE_ROOT_CERT`, Apple Root CA - G3); the root inside `x5c` is never trusted as such;
///    every certificate is valid now (RFC 5280), the leaf carries Apple's receipt-signing marker
///    (1.2.840.113635.100.6.11.1) and the intermediate Apple's WWDR marker (1.2.840.113635.100.6.2.1);
/// 3. the ES256 signature over `header.payload` verifies with the leaf's P-256 key;
/// 4. the payload names our bundle id, an accepted environment, and no revocation.
///
/// Honouring a transaction once is the caller's part (a unique column on the transaction id).
public struct StoreKitTransactionVerifier: AppStoreTransactionVerifier {
    public var name: String { "appstore" }

    /// Marker extensions Apple puts on its StoreKit signing certificates.
    public static let leafMarker: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 11, 1]
    public static let intermediateMarker: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 2, 1]

    package let root: Certificate
    package let bundleID: String
    package let environments: Set<String>

    public init(root: Certificate, bundleID: String, environments: Set<String>) {
        self.root = root
        self.bundleID = bundleID
        self.environments = environments
    }

    /// Reads a root certificate from a PEM or DER file.
    public static func loadRoot(path: String) throws -> Certificate {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        if let text = String(data: bytes, encoding: .utf8), text.contains("-----BEGIN CERTIFICATE-----") {
            return try Certificate(pemEncoded: text)
        }
        return try Certificate(derEncoded: Array(bytes))
    }

    public func verify(signedTransaction: String) async throws -> AppStoreTransaction {
        let parts = signedTransaction.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Data(base64URLEncoded: String(parts[0])),
              let payloadBytes = Data(base64URLEncoded: String(parts[1])),
              let signatureBytes = Data(base64URLEncoded: String(parts[2])),
              let header = try? JSONDecoder().decode(Header.self, from: headerBytes)
        else { throw AppStoreVerificationError.malformed }
        guard header.alg == "ES256" else { throw AppStoreVerificationError.unsupportedAlgorithm }

        // The chain: leaf and intermediates as sent, the root only from our configuration.
        let chain = try (header.x5c ?? []).map { encoded -> Certificate in
            guard let der = Data(base64Encoded: encoded) else { throw AppStoreVerificationError.malformed }
            do { return try Certificate(derEncoded: Array(der)) } catch { throw AppStoreVerificationError.malformed }
        }
        guard chain.count >= 2, chain.count <= 3 else { throw AppStoreVerificationError.untrustedChain }
        var verifier = Verifier(rootCertificates: CertificateStore([root])) {
            RFC5280Policy()
            AppleStoreKitChainPolicy()
        }
        let result = await verifier.validate(leaf: chain[0], intermediates: CertificateStore(Array(chain.dropFirst())))
        guard case .validCertificate = result else { throw AppStoreVerificationError.untrustedChain }

        guard let key = P256.Signing.PublicKey(chain[0].publicKey),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
              key.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8))
        else { throw AppStoreVerificationError.badSignature }

        guard let payload = try? JSONDecoder().decode(Payload.self, from: payloadBytes),
              !payload.transactionId.isEmpty, !payload.productId.isEmpty
        else { throw AppStoreVerificationError.malformed }
        guard payload.bundleId == bundleID else { throw AppStoreVerificationError.wrongBundle }
        guard environments.contains(payload.environment) else { throw AppStoreVerificationError.wrongEnvironment }
        guard payload.revocationDate == nil else { throw AppStoreVerificationError.revoked }
        return AppStoreTransaction(
            transactionID: payload.transactionId,
            originalTransactionID: payload.originalTransactionId ?? payload.transactionId,
            productID: payload.productId, bundleID: payload.bundleId,
            purchaseDate: Date(timeIntervalSince1970: (payload.purchaseDate ?? 0) / 1000),
            environment: payload.environment, quantity: payload.quantity ?? 1)
    }

    package struct Header: Decodable {
        package let alg: String
        package let x5c: [String]?
    }

    /// The fields of `JWSTransactionDecodedPayload` the server reads; dates are milliseconds since 1970.
    struct Payload: Decodable {
        let transactionId: String
        let originalTransactionId: String?
        let bundleId: String
        let productId: String
        let purchaseDate: Double?
        let environment: String
        let quantity: Int?
        let revocationDate: Double?
    }
}

/// Apple's StoreKit chains are exactly leaf → WWDR intermediate → root, each marked by an extension.
struct AppleStoreKitChainPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard chain.count == 3 else { return .failsToMeetPolicy(reason: "a StoreKit chain has three certificates, this one \(chain.count)") }
        guard chain[0].extensions[oid: StoreKitTransactionVerifier.leafMarker] != nil else {
            return .failsToMeetPolicy(reason: "the leaf lacks Apple's receipt-signing marker")
        }
        guard chain[1].extensions[oid: StoreKitTransactionVerifier.intermediateMarker] != nil else {
            return .failsToMeetPolicy(reason: "the intermediate lacks Apple's WWDR marker")
        }
        return .meetsPolicy
    }
}
