import XCTest
@testable import WhatWeEatServer

final class AccountRulesTests: XCTestCase {
    func testEmails() {
        XCTAssertEqual(AccountRules.normalizeEmail("  Mina@Example.COM\n"), "mina@example.com")
        for valid in ["a@b.co", "mina.kim+food@example.co.kr", "x@sub-domain.example.com"] {
            XCTAssertNil(AccountRules.emailViolation(valid), valid)
        }
        for invalid in ["", "plain", "@example.com", "a@", "a@b", "a@@b.com", "a b@example.com", "a@exa mple.com",
                        "a@-example.com", "a@example..com", String(repeating: "a", count: 65) + "@example.com"] {
            XCTAssertEqual(AccountRules.emailViolation(invalid), "invalid_email", invalid)
        }
    }

    func testPasswords() {
        XCTAssertEqual(AccountRules.passwordViolation("1234567"), "password_too_short")
        XCTAssertNil(AccountRules.passwordViolation("12345678"))
        XCTAssertNil(AccountRules.passwordViolation(String(repeating: "a", count: 72)))
        XCTAssertEqual(AccountRules.passwordViolation(String(repeating: "a", count: 73)), "password_too_long")
        // 24 Hangul syllables are 72 UTF-8 bytes; 25 are 75.
        XCTAssertNil(AccountRules.passwordViolation(String(repeating: "맛", count: 24)))
        XCTAssertEqual(AccountRules.passwordViolation(String(repeating: "맛", count: 25)), "password_too_long")
    }

    func testNicknamesCountWhatPeopleSee() {
        // One character is a name (별, 곰): the apps allow it. Nothing, or only blanks, is not.
        XCTAssertNil(AccountRules.nicknameViolation("김"))
        XCTAssertNil(AccountRules.nicknameViolation("🍔"))
        XCTAssertEqual(AccountRules.nicknameViolation(""), "invalid_nickname_length")
        XCTAssertEqual(AccountRules.nicknameViolation(AccountRules.normalizeNickname("   ")), "invalid_nickname_length")
        XCTAssertEqual(AccountRules.nicknameViolation("\u{3164}"), "invalid_nickname_characters", "a Hangul filler is a blank")
        XCTAssertEqual(AccountRules.nicknameViolation("\u{200B}"), "invalid_nickname_characters")
        XCTAssertNil(AccountRules.nicknameViolation("김밥"))
        XCTAssertNil(AccountRules.nicknameViolation("👨‍👩‍👧🍔"), "a family emoji is one character")
        XCTAssertNil(AccountRules.nicknameViolation(String(repeating: "가", count: 20)))
        XCTAssertEqual(AccountRules.nicknameViolation(String(repeating: "가", count: 21)), "invalid_nickname_length")
        XCTAssertEqual(AccountRules.nicknameViolation("a\u{0007}b"), "invalid_nickname_characters")
        XCTAssertEqual(AccountRules.nicknameViolation("<script>"), "invalid_nickname_characters")
        XCTAssertEqual(AccountRules.normalizeNickname("  미나 "), "미나")
        XCTAssertEqual(AccountRules.nicknameKey("Kim"), AccountRules.nicknameKey("kIM"))
    }

    func testLoginThrottle() {
        let throttle = LoginThrottle(maxFailures: 10, window: 900)
        let now = Date(timeIntervalSince1970: 1_000_000)
        let nine = (0..<9).map { now.addingTimeInterval(-Double($0) * 10) }
        XCTAssertNil(throttle.retryAfter(failures: nine, now: now))
        let ten = nine + [now.addingTimeInterval(-100)]
        // The oldest of the ten failures (100 s ago) leaves the window in 800 s.
        XCTAssertEqual(throttle.retryAfter(failures: ten, now: now), 800)
        // Failures outside the window do not count.
        let old = nine + [now.addingTimeInterval(-901)]
        XCTAssertNil(throttle.retryAfter(failures: old, now: now))
        // With more than ten, the lock lasts until only nine remain in the window.
        let twelve = ten + [now.addingTimeInterval(-300), now.addingTimeInterval(-600)]
        XCTAssertEqual(throttle.retryAfter(failures: twelve, now: now), 800)
        XCTAssertEqual(throttle.retryAfter(failures: Array(repeating: now, count: 10), now: now), 900)
    }

    func testRefreshOutcomes() {
        let now = Date()
        let later = now.addingTimeInterval(60)
        XCTAssertEqual(RefreshOutcome.evaluate(usedAt: nil, expiresAt: later, familyRevokedAt: nil, now: now), .rotate)
        XCTAssertEqual(RefreshOutcome.evaluate(usedAt: now, expiresAt: later, familyRevokedAt: nil, now: now), .reuseDetected)
        XCTAssertEqual(RefreshOutcome.evaluate(usedAt: nil, expiresAt: now, familyRevokedAt: nil, now: now), .expired)
        XCTAssertEqual(RefreshOutcome.evaluate(usedAt: now, expiresAt: later, familyRevokedAt: now, now: now), .revoked)
        // A second use within the retry window is a retry; after it, a reuse.
        let window = RefreshOutcome.retryWindow
        XCTAssertEqual(RefreshOutcome.evaluate(usedAt: now.addingTimeInterval(-2), expiresAt: later, familyRevokedAt: nil, now: now, retryWindow: window), .retryOfRotation)
        XCTAssertEqual(RefreshOutcome.evaluate(usedAt: now.addingTimeInterval(-window), expiresAt: later, familyRevokedAt: nil, now: now, retryWindow: window), .reuseDetected)
        XCTAssertEqual(RefreshOutcome.evaluate(usedAt: now.addingTimeInterval(-2), expiresAt: later, familyRevokedAt: now, now: now, retryWindow: window), .revoked)
    }
}

final class PlatformRulesTests: XCTestCase {
    func testAcceptLanguageNegotiation() {
        XCTAssertNil(Language.negotiate(acceptLanguage: nil))
        XCTAssertNil(Language.negotiate(acceptLanguage: "fr, de"))
        XCTAssertEqual(Language.negotiate(acceptLanguage: "en-US,en;q=0.9"), .en)
        XCTAssertEqual(Language.negotiate(acceptLanguage: "fr;q=1, ja;q=0.4, en;q=0.3"), .ja)
        XCTAssertEqual(Language.negotiate(acceptLanguage: "en;q=0.5, ko"), .ko)
        XCTAssertEqual(Language.negotiate(acceptLanguage: "ja-JP, en"), .ja, "equal quality keeps the header's order")
        XCTAssertNil(Language.negotiate(acceptLanguage: "en;q=0"), "q=0 means not acceptable")
    }

    func testPageCursorRoundTripsAndRejectsForgeries() throws {
        let cursor = PageCursor(createdAt: Date(timeIntervalSince1970: 1_795_316_964.684991), id: UUID())
        XCTAssertEqual(PageCursor(encoded: cursor.encoded), cursor)
        XCTAssertNil(PageCursor(encoded: "%%%"))
        XCTAssertNil(PageCursor(encoded: Data("nan|\(UUID())".utf8).base64URLEncodedString()))
        XCTAssertNil(PageCursor(encoded: Data("12|not-a-uuid".utf8).base64URLEncodedString()))
    }

    func testImageSniffingReadsBytesNotNames() {
        XCTAssertEqual(ImageType.sniff(Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0])), .jpeg)
        XCTAssertEqual(ImageType.sniff(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0])), .png)
        XCTAssertEqual(ImageType.sniff(Data("GIF89a....".utf8)), .gif)
        XCTAssertEqual(ImageType.sniff(Data("RIFF\0\0\0\0WEBPVP8 ".utf8)), .webp)
        XCTAssertNil(ImageType.sniff(Data("RIFF\0\0\0\0WAVEfmt ".utf8)))
        XCTAssertNil(ImageType.sniff(Data("<svg xmlns=...>".utf8)), "SVG can carry script; not accepted as a photo")
        XCTAssertNil(ImageType.sniff(Data()))
    }

    func testUploadKeysCannotEscapeTheFolder() {
        let hash = String(repeating: "a", count: 64)
        XCTAssertTrue(DiskFileStorage.isValidKey("\(hash).png"))
        XCTAssertFalse(DiskFileStorage.isValidKey("../\(hash).png"))
        XCTAssertFalse(DiskFileStorage.isValidKey("\(hash).svg"))
        XCTAssertFalse(DiskFileStorage.isValidKey("jwt-secret"))
        XCTAssertFalse(DiskFileStorage.isValidKey(String(repeating: "g", count: 64) + ".png"))
    }

    func testTranslationCatalogsAreComplete() throws {
        let translator = try Translator.load(from: FileManager.default.currentDirectoryPath + "/Resources/translations")
        let korean = try XCTUnwrap(translator.catalogs[.ko])
        for language in [Language.en, .ja] {
            let catalog = try XCTUnwrap(translator.catalogs[language])
            XCTAssertEqual(Set(catalog.keys), Set(korean.keys), "\(language) has the same keys as Korean")
            for (key, text) in korean {
                let placeholders = { (s: String) in Set(s.matches(of: /\{[a-z]+\}/).map { String($0.output) }) }
                XCTAssertEqual(placeholders(catalog[key] ?? ""), placeholders(text), "\(language) \(key) keeps its placeholders")
            }
        }
        XCTAssertEqual(translator.text("error.password_too_short", .en, ["min": "8"]), "The password must be at least 8 characters.")
        XCTAssertEqual(translator.text("no.such.key", .ja), "no.such.key")
    }
}

/// Every error code the sources can throw has a message in the catalogs.
final class ErrorCatalogTests: XCTestCase {
    func testEveryThrownCodeHasAMessage() throws {
        let root = FileManager.default.currentDirectoryPath
        let translator = try Translator.load(from: root + "/Resources/translations")
        let korean = try XCTUnwrap(translator.catalogs[.ko])
        guard let files = FileManager.default.enumerator(atPath: root + "/Sources") else { return XCTFail("no Sources") }
        // AppError(.status, "code" …), .badRequest("code" …), .invalid(…), .conflict(…), .notFound(…), rejection(…)
        let pattern = /(?:AppError\(\.[a-zA-Z]+, |\.(?:badRequest|invalid|conflict|notFound)\(|rejection\()"([a-z_]+)"/
        var codes = Set<String>()
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/Sources/" + file, encoding: .utf8)
            for match in text.matches(of: pattern) { codes.insert(String(match.output.1)) }
        }
        // Codes chosen by the error middleware itself.
        codes.formUnion(["malformed_json", "missing_field", "invalid_type", "invalid_value", "not_found", "method_not_allowed",
                         "payload_too_large", "unsupported_media_type", "unauthorized", "forbidden", "too_many_requests",
                         "validation_failed", "bad_request", "internal_error"])
        XCTAssertGreaterThan(codes.count, 40, "the scan finds the codes")
        let missing = codes.filter { korean["error.\($0)"] == nil }.sorted()
        XCTAssertEqual(missing, [], "codes without a message")
    }
}
