package import Crypto
package import Foundation
package import Payments
import Platform
import SwiftASN1
package import X509

/// Signs StoreKit 2 transactions as the App Store does: a root, a WWDR-like intermediate and a
/// signing leaf made at test time, each with Apple's marker extension, and compact ES256 JWS.
package struct FakeAppStore {
    package let root: TestCertificateAuthority
    package let intermediate: TestCertificateAuthority
    package let leafKey: P256.Signing.PrivateKey
    package let leaf: Certificate

    package static let bundleID = "com.whatweeat.mates"

    /// `leafNotAfter` in the past makes an expired signing certificate; `markers: false` leaves out
    /// Apple's extensions (a chain any CA could have issued).
    package init(leafNotAfter: Date = Date() + 3600, markers: Bool = true) throws {
        root = try TestCertificateAuthority(commonName: "Test Apple Root CA - G3")
        let marker = { (oid: ASN1ObjectIdentifier) in Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00]) }
        intermediate = try root.intermediate(commonName: "Test Apple Worldwide Developer Relations CA - G6",
                                             extra: markers ? [marker(StoreKitTransactionVerifier.intermediateMarker)] : [])
        leafKey = P256.Signing.PrivateKey()
        var extensions = try Certificate.Extensions { Critical(BasicConstraints.notCertificateAuthority) }
        if markers { try extensions.append(marker(StoreKitTransactionVerifier.leafMarker)) }
        leaf = try intermediate.issue(commonName: "Test Prod ECC Mac App Store and iTunes Store Receipt Signing", key: leafKey,
                                      notBefore: min(Date() - 3600, leafNotAfter - 3600), notAfter: leafNotAfter, extensions: extensions)
    }

    /// The root as `APPSTORE_ROOT_CERT` holds it, written to `directory`.
    package func writeRoot(in directory: String, pem: Bool = true) throws -> String {
        let path = directory + "/apple-root." + (pem ? "pem" : "cer")
        let bytes = pem ? Data(try root.certificate.serializeAsPEM().pemString.utf8) : Data(root.certificate.derBytes)
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    package static func payload(transactionID: String, productID: String = "com.whatweeat.mates.avatar1", bundleID: String = bundleID,
                        environment: String = "Production", revoked: Bool = false) -> [String: Any] {
        var payload: [String: Any] = [
            "transactionId": transactionID, "originalTransactionId": transactionID, "bundleId": bundleID, "productId": productID,
            "purchaseDate": 1_764_000_000_000, "originalPurchaseDate": 1_764_000_000_000, "quantity": 1, "type": "Non-Consumable",
            "inAppOwnershipType": "PURCHASED", "signedDate": Date().timeIntervalSince1970 * 1000, "environment": environment,
            "transactionReason": "PURCHASE", "storefront": "KOR", "storefrontId": "143466", "price": 1_200_000, "currency": "KRW",
        ]
        if revoked { payload["revocationDate"] = 1_764_100_000_000; payload["revocationReason"] = 0 }
        return payload
    }

    /// A compact JWS of `payload`. `header` replaces fields of the standard header; `signer` signs
    /// instead of the leaf's key (a forgery).
    package func sign(_ payload: [String: Any], header: [String: Any] = [:], chain: [Certificate]? = nil,
              signer: P256.Signing.PrivateKey? = nil) throws -> String {
        var fields: [String: Any] = ["alg": "ES256", "x5c": (chain ?? [leaf, intermediate.certificate, root.certificate]).map { Data($0.derBytes).base64EncodedString() }]
        fields.merge(header) { $1 }
        let head = try JSONSerialization.data(withJSONObject: fields).base64URLEncodedString()
        let body = try JSONSerialization.data(withJSONObject: payload).base64URLEncodedString()
        let signature = try (signer ?? leafKey).signature(for: Data("\(head).\(body)".utf8)).rawRepresentation
        return "\(head).\(body).\(signature.base64URLEncodedString())"
    }

    package func verifier(environments: Set<String> = ["Production"]) -> StoreKitTransactionVerifier {
        StoreKitTransactionVerifier(root: root.certificate, bundleID: Self.bundleID, environments: environments)
    }
}
