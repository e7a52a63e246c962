import Foundation
@testable import Media
import WhatWeEatTesting
import XCTest

/// AWS Signature Version 4 against the worked example in Amazon S3's documentation
/// ("Signature Calculations for the Authorization Header", GET Object).
final class S3SignerTests: XCTestCase {
    let signer = S3Signer(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                          region: "us-east-1")
    let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    func testTheDocumentedGetObjectExample() {
        let authorization = signer.authorization(method: "GET", path: "/test.txt", headers: [
            "Host": "examplebucket.s3.amazonaws.com",
            "Range": "bytes=0-9",
            "x-amz-content-sha256": emptyHash,
            "x-amz-date": "20130524T000000Z",
        ])
        XCTAssertEqual(authorization, "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                       + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                       + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    func testAnyChangeChangesTheSignature() {
        let headers = ["host": "examplebucket.s3.amazonaws.com", "x-amz-content-sha256": emptyHash, "x-amz-date": "20130524T000000Z"]
        let base = signer.authorization(method: "GET", path: "/a.png", headers: headers)
        XCTAssertNotEqual(base, signer.authorization(method: "GET", path: "/b.png", headers: headers))
        XCTAssertNotEqual(base, signer.authorization(method: "DELETE", path: "/a.png", headers: headers))
        var later = headers
        later["x-amz-date"] = "20130525T000000Z"
        XCTAssertNotEqual(base, signer.authorization(method: "GET", path: "/a.png", headers: later))
    }

    func testDatesAndEncoding() {
        XCTAssertEqual(S3Signer.amzDate(Date(timeIntervalSince1970: 1_369_353_600)), "20130524T000000Z")
        XCTAssertEqual(S3Signer.sha256Hex(Data()), emptyHash)
        XCTAssertEqual(S3Signer.uriEncode("uploads/a b+c~.png", keepSlash: true), "uploads/a%20b%2Bc~.png")
        XCTAssertEqual(S3Signer.uriEncode("사진"), "%EC%82%AC%EC%A7%84")
        XCTAssertEqual(S3Signer.uriEncode("a/b"), "a%2Fb")
    }
}
