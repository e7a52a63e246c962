import BurgerMap
import LookForRealBurgerApp
import MenuGame
import MenuGameApp
import Platform
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
}
