import Foundation
import NIOConcurrencyHelpers
import WhatWeEatKit
import XCTest

/// Signing up and in, keeping the pair and refreshing it, and errors as typed values in the
/// language asked for — against a real server.
final class AccountsTests: XCTestCase {
    func testSignUpReadMeAndLogOut() async throws {
        let saved = NIOLockedValueBox<[Tokens?]>([])
        let app = try ServerUnderTest.client { tokens in saved.withLockedValue { $0.append(tokens) } }
        let email = ServerUnderTest.email()
        let account = try await app.signUp(email: email, password: "kit-password-1", nickname: "키트\(email.prefix(8).suffix(4))")
        XCTAssertEqual(account.email, email)
        let me = try await app.me()
        XCTAssertEqual(me.id, account.id)
        XCTAssertNotNil(saved.withLockedValue { $0.last ?? nil }, "the new pair is handed to the app to keep")

        try await app.logOut()
        let afterLogout = saved.withLockedValue { $0.last }
        XCTAssertEqual(afterLogout, .some(nil), "signing out forgets the pair")
        do {
            _ = try await app.me()
            XCTFail("signed out")
        } catch {
            XCTAssertEqual(WhatWeEatError.from(error)?.status, 401)
        }
    }

    /// The devices an account is signed in on: the Kit names itself, and signing the others out
    /// leaves this one.
    func testSignedInDevicesNameTheKitAndOthersCanBeSignedOut() async throws {
        let phone = try ServerUnderTest.client()
        let email = ServerUnderTest.email()
        try await phone.signUp(email: email, password: "kit-password-1", nickname: "기기\(email.prefix(8).suffix(4))")
        let laptop = try ServerUnderTest.client()
        try await laptop.logIn(email: email, password: "kit-password-1")
        let devices = try await phone.api.listSessions().ok.body.json.items
        XCTAssertEqual(devices.count, 2)
        XCTAssertEqual(devices.filter(\.current).count, 1)
        XCTAssertTrue(devices.allSatisfy { $0.device == "WhatWeEatKit" }, "\(devices.map(\.device))")

        let ended = try await phone.api.signOutOtherSessions().ok.body.json.ended
        XCTAssertEqual(ended, 1)
        do {
            _ = try await laptop.me()
            XCTFail("the laptop was signed out")
        } catch {
            XCTAssertEqual(WhatWeEatError.from(error)?.status, 401)
        }
        _ = try await phone.me()
    }

    /// An access token past its time is refreshed before the call; callers who need it at once
    /// share one refresh (refresh tokens rotate: a second refresh of the same token later would
    /// end the sign-in); a pair kept from an earlier launch works the same.
    func testTheTokenPairIsRefreshedOnceForManyCallersAndRotates() async throws {
        let first = try ServerUnderTest.client()
        let email = ServerUnderTest.email()
        try await first.signUp(email: email, password: "kit-password-1", nickname: "회전\(email.prefix(8).suffix(4))")
        let signedIn = await first.tokens.tokens
        var kept = try XCTUnwrap(signedIn)
        kept.accessExpiresAt = Date().addingTimeInterval(-1)  // as if the app slept past it

        let changes = NIOLockedValueBox(0)
        let relaunched = try ServerUnderTest.client { _ in changes.withLockedValue { $0 += 1 } }
        await relaunched.tokens.set(kept)
        changes.withLockedValue { $0 = 0 }  // the set itself is a change
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try await relaunched.me().email } }
            for try await seen in group { XCTAssertEqual(seen, email) }
        }
        XCTAssertEqual(changes.withLockedValue { $0 }, 1, "one refresh for eight callers")
        let current = await relaunched.tokens.tokens
        let rotated = try XCTUnwrap(current)
        XCTAssertNotEqual(rotated.refreshToken, kept.refreshToken, "refresh tokens rotate")
        XCTAssertGreaterThan(rotated.accessExpiresAt, Date())

        // Within 10 seconds, while its successor is unused, the old refresh token is a retry of a
        // lost answer and gets the same successor. Once the successor was used, it is a reuse:
        // the server ends the sign-in, and the client signs out.
        let retry = try ServerUnderTest.client()
        await retry.tokens.set(kept)
        _ = try await retry.me()
        let retried = await retry.tokens.tokens
        XCTAssertEqual(retried?.refreshToken, rotated.refreshToken, "the same successor")
        var expiredAgain = rotated
        expiredAgain.accessExpiresAt = Date().addingTimeInterval(-1)
        await relaunched.tokens.set(expiredAgain)
        _ = try await relaunched.me()  // uses the successor

        let stale = try ServerUnderTest.client()
        await stale.tokens.set(kept)
        do {
            _ = try await stale.me()
            XCTFail("a reused refresh token must not work")
        } catch {
            XCTAssertEqual(WhatWeEatError.from(error)?.code, "refresh_token_reused")
        }
        let cleared = await stale.tokens.tokens
        XCTAssertNil(cleared, "a refused refresh signs out")
    }

    /// Error answers are `WhatWeEatError`s with the server's code, their message in the language
    /// the client asked for, over either transport.
    func testErrorsAreTypedAndInTheClientsLanguage() async throws {
        for transport in [ServerUnderTest.Transport.asyncHTTPClient, .urlSession] {
            var messages: [String: String] = [:]
            for language in ["ko", "en"] {
                let app = try ServerUnderTest.client(language: language, transport: transport)
                do {
                    try await app.logIn(email: "nobody-\(UUID().uuidString.prefix(6))@example.com", password: "wrong-password-1")
                    XCTFail("no such account")
                } catch {
                    let refused = try XCTUnwrap(WhatWeEatError.from(error), "\(error)")
                    XCTAssertEqual(refused.status, 401)
                    XCTAssertEqual(refused.code, "invalid_credentials")
                    messages[language] = refused.message
                }
            }
            let korean = try XCTUnwrap(messages["ko"]), english = try XCTUnwrap(messages["en"])
            XCTAssertNotEqual(korean, english)
            XCTAssertTrue(korean.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) }, "Hangul: \(korean)")
            XCTAssertTrue(english.allSatisfy(\.isASCII), english)

            let app = try ServerUnderTest.client(language: "en", transport: transport)
            do {
                try await app.signUp(email: "not-an-address", password: "kit-password-1", nickname: "x")
                XCTFail("a bad address is refused")
            } catch {
                let refused = try XCTUnwrap(WhatWeEatError.from(error))
                XCTAssertEqual(refused.status, 422, "\(refused)")
                XCTAssertEqual(refused.code, "invalid_email")
                XCTAssertEqual(refused.message, "Please enter a valid email address.")
            }
        }
    }
}
