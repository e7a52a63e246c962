import BurgerMap
import LookForRealBurgerApp
import MenuGame
import MenuGameApp
import Platform
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTest

final class SecureRandomTests: XCTestCase {
    /// FIPS 180-2 test vectors: stored digests must not change when the encoding code does.
    func testSHA256HexMatchesTheStandardVectors() {
        XCTAssertEqual(SecureRandom.sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SecureRandom.sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SecureRandom.hex([0x00, 0x0f, 0xa0, 0xff]), "000fa0ff")
    }

    func testTokensAreURLSafeAndDistinct() {
        let tokens = (0..<100).map { _ in SecureRandom.token(bytes: 24) }
        XCTAssertEqual(Set(tokens).count, 100)
        XCTAssertTrue(tokens.allSatisfy { $0.count == 32 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" } })
    }

    /// The hand-written base64url reads and writes what Foundation's base64 does with RFC 4648's
    /// URL alphabet and no padding, for every length's remainder; and refuses what is not base64url.
    func testBase64URLMatchesFoundationAndRefusesOtherText() throws {
        XCTAssertEqual(Data("Many hands make light work.".utf8).base64URLEncodedString(), "TWFueSBoYW5kcyBtYWtlIGxpZ2h0IHdvcmsu")
        XCTAssertEqual(Data([0xfb, 0xff, 0xfe]).base64URLEncodedString(), "-__-")
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let expected = bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let encoded = bytes.base64URLEncodedString()
            XCTAssertEqual(encoded, expected, "length \(length)")
            XCTAssertEqual(Data(base64URLEncoded: encoded), bytes, "length \(length)")
            let padded = encoded + String(repeating: "=", count: (4 - encoded.count % 4) % 4)
            XCTAssertEqual(Data(base64URLEncoded: padded), bytes, "padded, length \(length)")
        }
        for bad in ["a", "abcde", "ab+c", "ab/c", "ab c", "ab=c", "abc==="] {
            XCTAssertNil(Data(base64URLEncoded: bad), bad)
        }
    }
}
