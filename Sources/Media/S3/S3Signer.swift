import Crypto
import Foundation
import Platform

/// AWS Signature Version 4 in the `Authorization` header, as S3 and every S3-compatible store
/// (MinIO, Ceph, R2, moto) check it: a canonical form of the request, hashed, signed with a key
/// derived from the secret, the day, the region and the service.
struct S3Signer: Sendable {
    let accessKeyID: String
    let secretAccessKey: String
    let region: String
    let service: String

    init(accessKeyID: String, secretAccessKey: String, region: String, service: String = "s3") {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.region = region
        self.service = service
    }

    /// `20130524T000000Z`: the `x-amz-date` form of a moment.
    static func amzDate(_ date: Date) -> String {
        let parts = Calendar.utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
    }

    static func sha256Hex(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// The `Authorization` value for a request whose `headers` (names in any case) already hold
    /// `host`, `x-amz-date` and `x-amz-content-sha256`; every header given is signed.
    /// `path` is the URI path as sent (already percent-encoded), `query` its decoded pairs.
    func authorization(method: String, path: String, query: [(String, String)] = [], headers: [String: String]) -> String {
        let canonicalHeaders = headers.map { ($0.key.lowercased(), $0.value.trimmingCharacters(in: .whitespaces)) }
            .sorted { $0.0 < $1.0 }
        let signedHeaders = canonicalHeaders.map(\.0).joined(separator: ";")
        let canonicalQuery = query.map { (Self.uriEncode($0.0), Self.uriEncode($0.1)) }.sorted { $0 < $1 }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let amzDate = canonicalHeaders.first { $0.0 == "x-amz-date" }?.1 ?? ""
        let payloadHash = canonicalHeaders.first { $0.0 == "x-amz-content-sha256" }?.1 ?? "UNSIGNED-PAYLOAD"
        let canonicalRequest = [method, path, canonicalQuery]
            + canonicalHeaders.map { "\($0.0):\($0.1)" } + ["", signedHeaders, payloadHash]
        let day = String(amzDate.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope,
                            Self.sha256Hex(Data(canonicalRequest.joined(separator: "\n").utf8))].joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key)
            .map { String(format: "%02x", $0) }.joined()
        return "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
    }

    /// RFC 3986 percent-encoding as SigV4 wants it: everything but `A-Z a-z 0-9 - _ . ~` (and `/`
    /// in a path when `keepSlash`).
    static func uriEncode(_ value: String, keepSlash: Bool = false) -> String {
        var result = ""
        for byte in value.utf8 {
            let character = Character(Unicode.Scalar(byte))
            if character.isASCII && (character.isLetter || character.isNumber) || "-_.~".contains(character) || (keepSlash && character == "/") {
                result.append(character)
            } else {
                result += String(format: "%%%02X", byte)
            }
        }
        return result
    }
}
