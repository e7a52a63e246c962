@testable import Accounts
import Platform
import WhatWeEatTesting
import XCTest

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
        XCTAssertEqual(AccountRules.nicknameKey("Kim"), AccountRules.nicknameKey("kiM"))
    }

    /// Probe 2026-11-27, finding 8: the nine pairs that became two accounts are one name now, and
    /// names people can tell apart stay apart.
    func testNicknamesThatDrawAlikeAreOneName() throws {
        func same(_ a: String, _ b: String, file: StaticString = #filePath, line: UInt = #line) {
            let (x, y) = (AccountRules.normalizeNickname(a), AccountRules.normalizeNickname(b))
            XCTAssertEqual(AccountRules.nicknameKey(x), AccountRules.nicknameKey(y), "\(a.debugDescription) / \(b.debugDescription)", file: file, line: line)
        }
        same("별", "별\u{FE00}")
        same("곰", "곰\u{E0100}")
        same("admin", "admin\u{FE0F}")
        same("kim 1", "kim  1")
        same("bob", "b\u{0585}b")          // Armenian oh
        same("hana", "\u{04BB}ana")        // Cyrillic shha
        same("nana", "\u{0578}ana")        // Armenian vo
        same("Ian", "lan")
        same("\u{2764}", "\u{2764}\u{FE0F}")  // ❤ and ❤️
        same("admin", "аdmin")             // Cyrillic a
        same("kim0", "kimO")

        XCTAssertEqual(AccountRules.normalizeNickname("별\u{FE00}"), "별", "a selector after a letter draws nothing and goes")
        XCTAssertEqual(AccountRules.normalizeNickname("\u{2764}\u{FE0F}"), "\u{2764}\u{FE0F}", "an emoji keeps its style")
        XCTAssertEqual(AccountRules.normalizeNickname(" kim \u{3000}  1 "), "kim 1")
        XCTAssertNil(AccountRules.nicknameViolation(AccountRules.normalizeNickname("곰\u{E0100}")))

        for (a, b) in [("미나", "미니"), ("kim", "kin"), ("bob", "bab"), ("김밥", "김방"), ("🍔", "🍟")] {
            XCTAssertNotEqual(AccountRules.nicknameKey(a), AccountRules.nicknameKey(b), "\(a) / \(b)")
        }
        XCTAssertEqual(Confusables.table.version, "13.0.0", "the data shipped, with its version")
        XCTAssertGreaterThan(Confusables.table.count, 6000)
        XCTAssertThrowsError(try Confusables.Table(text: "# nothing here\n"))
        XCTAssertThrowsError(try Confusables.Table(text: "00ZZ ; 0041 ; MA\n0041 ; 0042 ; MA\n"))
        XCTAssertThrowsError(try Confusables.Table(text: "0041 ;  ; MA\n"), "a source with no prototype")
        XCTAssertThrowsError(try Confusables.Table(text: "0041 ; 110000 ; MA\n"), "not a scalar")

        // The file's own shape: a BOM, CRLF line ends, tabs after the semicolons, sequences, comments.
        let small = try Confusables.Table(text: "\u{FEFF}# confusables.txt\r\n# Version: 15.1.0\r\n\r\n"
            + "04BB ;\t0068 ;\tMA\t# ( һ → h )\r\n"
            + "00C6 ;\t0041 0045 ;\tMA\t# ( Æ → AE )\r\n"
            + "# 0049 ; 006C ; MA\r\n")
        XCTAssertEqual(small.version, "15.1.0")
        XCTAssertEqual(small.count, 2, "comment lines map nothing")
        XCTAssertEqual(small.skeleton("һi"), "hi")
        XCTAssertEqual(small.skeleton("Æ"), "AE")
        XCTAssertEqual(small.skeleton("I"), "I")
        XCTAssertEqual(try Confusables.load(root: FileManager.default.currentDirectoryPath).count, Confusables.table.count)
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
