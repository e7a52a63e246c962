package import Crypto
package import Foundation
import Messaging
import SwiftASN1
package import X509

/// Certificates made at test time (the SMTP server's TLS, the App Store's signing chain).
package struct TestCertificateAuthority {
    package let name: DistinguishedName
    package let key: P256.Signing.PrivateKey
    package let certificate: Certificate

    /// A self-signed root, valid an hour either side of now.
    package init(commonName: String, extensions: Certificate.Extensions? = nil) throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        self.name = name
        self.key = key
        self.certificate = try Self.sign(subject: name, key: key, issuer: name, issuerKey: key,
                                         extensions: try extensions ?? Self.authorityExtensions())
    }

    /// An intermediate authority signed by this one.
    package func intermediate(commonName: String, extra: [Certificate.Extension] = []) throws -> TestCertificateAuthority {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        var extensions = try Self.authorityExtensions()
        for item in extra { try extensions.append(item) }
        let certificate = try Self.sign(subject: name, key: key, issuer: self.name, issuerKey: self.key, extensions: extensions)
        return TestCertificateAuthority(name: name, key: key, certificate: certificate)
    }

    private init(name: DistinguishedName, key: P256.Signing.PrivateKey, certificate: Certificate) {
        self.name = name
        self.key = key
        self.certificate = certificate
    }

    /// An end-entity certificate for `key`, valid from `notBefore` to `notAfter`.
    package func issue(commonName: String, key: P256.Signing.PrivateKey, notBefore: Date = Date() - 3600, notAfter: Date = Date() + 3600,
               extensions: Certificate.Extensions) throws -> Certificate {
        try Self.sign(subject: try DistinguishedName { CommonName(commonName) }, key: key, issuer: name, issuerKey: self.key,
                      notBefore: notBefore, notAfter: notAfter, extensions: extensions)
    }

    package static func authorityExtensions() throws -> Certificate.Extensions {
        try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            Critical(KeyUsage(keyCertSign: true))
        }
    }

    private static func sign(subject: DistinguishedName, key: P256.Signing.PrivateKey, issuer: DistinguishedName, issuerKey: P256.Signing.PrivateKey,
                             notBefore: Date = Date() - 3600, notAfter: Date = Date() + 3600,
                             extensions: Certificate.Extensions) throws -> Certificate {
        try Certificate(version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: notBefore, notValidAfter: notAfter,
                        issuer: issuer, subject: subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
                        issuerPrivateKey: .init(issuerKey))
    }
}

extension Certificate {
    package var derBytes: [UInt8] {
        var serializer = DER.Serializer()
        try! serializer.serialize(self)
        return serializer.serializedBytes
    }
}
