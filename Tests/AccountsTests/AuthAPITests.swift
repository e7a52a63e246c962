@testable import Accounts
import Fluent
import NIOFoundationEssentialsCompat
import Platform
import WhatWeEatTesting
import XCTVapor

/// The accounts API: sign up, log in, tokens, profile, withdrawal, roles.
final class AuthAPITests: XCTestCase {
    func testSignUpReturnsTheAccountAndWorkingTokens() async throws {
        try await withTestApp { app in
            let response = try await app.send(.POST, "/api/v1/auth/signup",
                                              json: ["email": "  Mina@Example.COM ", "password": "password1", "nickname": " 미나 "])
            XCTAssertEqual(response.status, .created)
            let body = try response.object()
            let user = try XCTUnwrap(body["user"] as? [String: Any])
            XCTAssertEqual(user["email"] as? String, "mina@example.com", "emails are stored trimmed and lower-cased")
            XCTAssertEqual(user["nickname"] as? String, "미나")
            XCTAssertEqual(user["role"] as? String, "user")
            XCTAssertTrue(user["profileImageURL"] is NSNull, "absent values are explicit nulls")
            XCTAssertEqual(body["expiresIn"] as? Int, 900)
            XCTAssertEqual(body["tokenType"] as? String, "Bearer")

            let me = try await app.send(.GET, "/api/v1/me", token: try XCTUnwrap(body["accessToken"] as? String))
            XCTAssertEqual(me.status, .ok)
            XCTAssertEqual(try me.object()["nickname"] as? String, "미나")
        }
    }

    func testSignUpRules() async throws {
        try await withTestApp { app in
            try await app.signUp("taken@example.com", nickname: "Kim")
            let cases: [([String: String], HTTPStatus, String)] = [
                (["email": "not-an-email", "password": "password1", "nickname": "ok"], .unprocessableEntity, "invalid_email"),
                (["email": "a@b", "password": "password1", "nickname": "ok"], .unprocessableEntity, "invalid_email"),
                (["email": "a@example.com", "password": "short7!", "nickname": "ok"], .unprocessableEntity, "password_too_short"),
                (["email": "a@example.com", "password": String(repeating: "가", count: 25), "nickname": "ok"], .unprocessableEntity, "password_too_long"),
                (["email": "a@example.com", "password": "password1", "nickname": "   "], .unprocessableEntity, "invalid_nickname_length"),
                (["email": "a@example.com", "password": "password1", "nickname": String(repeating: "a", count: 21)], .unprocessableEntity, "invalid_nickname_length"),
                (["email": "a@example.com", "password": "password1", "nickname": "<b>hi"], .unprocessableEntity, "invalid_nickname_characters"),
                (["email": "TAKEN@example.com", "password": "password1", "nickname": "other"], .conflict, "email_taken"),
                (["email": "new@example.com", "password": "password1", "nickname": "kim"], .conflict, "nickname_taken"),
            ]
            for (body, status, code) in cases {
                let response = try await app.send(.POST, "/api/v1/auth/signup", json: body)
                XCTAssertEqual(response.status, status, "\(body)")
                XCTAssertEqual(response.errorCode, code, "\(body)")
            }
            let count = try await User.query(on: app.db).count()
            XCTAssertEqual(count, 1, "no rejected sign-up wrote anything")
            // Twenty characters exactly, counted as people read them (Hangul syllables, emoji).
            let longest = String(repeating: "맛", count: 19) + "🍔"
            try await app.signUp("longest@example.com", nickname: longest)
        }
    }

    func testEmailAvailability() async throws {
        try await withTestApp { app in
            try await app.signUp("mina@example.com")
            let taken = try await app.send(.GET, "/api/v1/auth/email-available?email=MINA@example.com")
            XCTAssertEqual(taken.status, .ok)
            XCTAssertEqual(try taken.object()["available"] as? Bool, false)
            let free = try await app.send(.GET, "/api/v1/auth/email-available?email=new@example.com")
            XCTAssertEqual(try free.object()["available"] as? Bool, true)
            let invalid = try await app.send(.GET, "/api/v1/auth/email-available?email=nope")
            XCTAssertEqual(invalid.status, .unprocessableEntity)
            XCTAssertEqual(invalid.errorCode, "invalid_email")
            let missing = try await app.send(.GET, "/api/v1/auth/email-available")
            XCTAssertEqual(missing.status, .badRequest)
            XCTAssertEqual(missing.errorCode, "missing_field")
        }
    }

    func testLogInWithWrongPasswordOrUnknownEmailIsTheSame401() async throws {
        try await withTestApp { app in
            try await app.signUp()
            let wrong = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "mina@example.com", "password": "password2"])
            let unknown = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "who@example.com", "password": "password1"])
            XCTAssertEqual(wrong.status, .unauthorized)
            XCTAssertEqual(unknown.status, .unauthorized)
            XCTAssertEqual(wrong.errorCode, "invalid_credentials")
            XCTAssertEqual(unknown.errorCode, wrong.errorCode)
            XCTAssertEqual(unknown.errorMessage, wrong.errorMessage)
            let ok = try await app.logIn("MINA@example.com")
            XCTAssertFalse(ok.accessToken.isEmpty)
        }
    }

    func testTenFailedLoginsLockTheEmailWithRetryAfter() async throws {
        try await withTestApp { app in
            try await app.signUp()
            for attempt in 1...10 {
                let response = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "mina@example.com", "password": "wrong-\(attempt)"])
                XCTAssertEqual(response.status, .unauthorized, "attempt \(attempt)")
            }
            // Even the right password is refused while locked.
            let locked = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "mina@example.com", "password": "password1"])
            XCTAssertEqual(locked.status, .tooManyRequests)
            XCTAssertEqual(locked.errorCode, "too_many_login_attempts")
            let retryAfter = try XCTUnwrap(locked.headers.first(name: "Retry-After").flatMap(Int.init))
            XCTAssertTrue((1...900).contains(retryAfter), "\(retryAfter)")
            // Another email is not affected.
            try await app.signUp("other@example.com", nickname: "other")
            _ = try await app.logIn("other@example.com")

            // Once the failures are older than the window, the lock lifts.
            try await LoginFailure.query(on: app.db).set(\.$failedAt, to: Date().addingTimeInterval(-16 * 60)).update()
            _ = try await app.logIn()
        }
    }

    func testSuccessfulLoginClearsEarlierFailures() async throws {
        try await withTestApp { app in
            try await app.signUp()
            for _ in 1...9 {
                _ = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "mina@example.com", "password": "nope-nope"])
            }
            _ = try await app.logIn()
            let failuresLeft = try await LoginFailure.query(on: app.db).count()
            XCTAssertEqual(failuresLeft, 0)
            let response = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "mina@example.com", "password": "nope-nope"])
            XCTAssertEqual(response.status, .unauthorized, "a tenth failure after a success is not yet a lock")
        }
    }

    func testRefreshRotatesAndTheOldTokenNoLongerWorks() async throws {
        try await withTestApp { app in
            let first = try await app.signUp()
            let rotated = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": first.refreshToken])
            XCTAssertEqual(rotated.status, .ok)
            let second = try rotated.json(Application.Credentials.self)
            XCTAssertNotEqual(second.refreshToken, first.refreshToken)
            let me = try await app.send(.GET, "/api/v1/me", token: second.accessToken)
            XCTAssertEqual(me.status, .ok)

            let third = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": second.refreshToken])
            XCTAssertEqual(third.status, .ok, "each new refresh token works once")
        }
    }

    func testReusingARefreshTokenRevokesTheWholeFamily() async throws {
        try await withTestApp { app in
            let first = try await app.signUp()
            let second = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": first.refreshToken])
                .json(Application.Credentials.self)
            // The replay comes after the few seconds in which a retry of the same rotation is answered.
            try await RefreshToken.query(on: app.db).filter(\.$usedAt != nil)
                .set(\.$usedAt, to: Date().addingTimeInterval(-(RefreshOutcome.retryWindow + 1))).update()

            // An attacker replays the first token: refused, and the family is revoked.
            let replay = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": first.refreshToken])
            XCTAssertEqual(replay.status, .unauthorized)
            XCTAssertEqual(replay.errorCode, "refresh_token_reused")

            // The legitimate holder's newer tokens are dead too.
            let legit = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": second.refreshToken])
            XCTAssertEqual(legit.status, .unauthorized)
            let me = try await app.send(.GET, "/api/v1/me", token: second.accessToken)
            XCTAssertEqual(me.status, .unauthorized)
            XCTAssertEqual(me.errorCode, "invalid_token")

            // Another device's session (another family) is untouched.
            let other = try await app.logIn()
            let otherMe = try await app.send(.GET, "/api/v1/me", token: other.accessToken)
            XCTAssertEqual(otherMe.status, .ok)
        }
    }

    /// Two requests of one app racing with the same refresh token (or a retry after a lost answer)
    /// must not sign the user out: within the retry window every one of them gets the one successor.
    func testConcurrentUseOfOneRefreshTokenRotatesOnceAndKeepsTheUserSignedIn() async throws {
        try await withTestApp { app in
            let first = try await app.signUp()
            let replies = try await withThrowingTaskGroup(of: TestingHTTPResponse.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": first.refreshToken]) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            XCTAssertEqual(replies.map(\.status), Array(repeating: .ok, count: 8), replies.map(\.text).joined(separator: "\n"))
            let pairs = try replies.map { try $0.json(Application.Credentials.self) }
            XCTAssertEqual(Set(pairs.map(\.refreshToken)).count, 1, "one rotation: every racer gets the same successor")
            XCTAssertNotEqual(pairs[0].refreshToken, first.refreshToken)
            for pair in pairs {
                let me = try await app.send(.GET, "/api/v1/me", token: pair.accessToken)
                XCTAssertEqual(me.status, .ok, "nobody was signed out")
            }
            let rotations = try await RefreshToken.query(on: app.db).count()
            XCTAssertEqual(rotations, 2, "the first token and its one successor")
            let next = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": pairs[0].refreshToken])
            XCTAssertEqual(next.status, .ok, "the family goes on")
        }
    }

    /// After the successor has itself been used, the old token is no retry any more: reuse.
    func testARetryAfterTheSuccessorWasUsedRevokesTheFamily() async throws {
        try await withTestApp { app in
            let first = try await app.signUp()
            let second = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": first.refreshToken]).json(Application.Credentials.self)
            let third = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": second.refreshToken]).json(Application.Credentials.self)
            let stale = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": first.refreshToken])
            XCTAssertEqual(stale.status, .unauthorized)
            XCTAssertEqual(stale.errorCode, "refresh_token_reused")
            let me = try await app.send(.GET, "/api/v1/me", token: third.accessToken)
            XCTAssertEqual(me.status, .unauthorized, "the whole family is revoked")
        }
    }

    func testExpiredAndUnknownRefreshTokens() async throws {
        try await withTestApp { app in
            let credentials = try await app.signUp()
            try await RefreshToken.query(on: app.db).set(\.$expiresAt, to: Date().addingTimeInterval(-1)).update()
            let expired = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": credentials.refreshToken])
            XCTAssertEqual(expired.status, .unauthorized)
            XCTAssertEqual(expired.errorCode, "refresh_token_expired")
            let unknown = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": "made-up"])
            XCTAssertEqual(unknown.errorCode, "invalid_refresh_token")
            let missing = try await app.send(.POST, "/api/v1/auth/refresh", json: [String: String]())
            XCTAssertEqual(missing.status, .badRequest)
            XCTAssertEqual(missing.errorCode, "missing_field")
        }
    }

    func testAccessTokenRules() async throws {
        try await withTestApp(adjust: { $0.accessTokenTTL = 60 }) { app in
            let credentials = try await app.signUp()
            XCTAssertEqual(credentials.expiresIn, 60, "the lifetime is configurable")

            let firstUser = try await User.query(on: app.db).first()
            let firstSession = try await AuthSession.query(on: app.db).first()
            let user = try XCTUnwrap(firstUser), session = try XCTUnwrap(firstSession)
            let stale = try await app.accessTokens.sign(userID: try user.requireID(), sessionID: try session.requireID(),
                                                        now: Date().addingTimeInterval(-61))
            let expired = try await app.send(.GET, "/api/v1/me", token: stale)
            XCTAssertEqual(expired.status, .unauthorized)
            XCTAssertEqual(expired.errorCode, "token_expired")

            // A token once verified is remembered with what it says; only its very bytes match,
            // and it still ends when it says.
            let good = try await app.send(.GET, "/api/v1/me", token: credentials.accessToken)
            XCTAssertEqual(good.status, .ok)
            let tampered = credentials.accessToken.dropLast(2) + "xx"
            let bad = try await app.send(.GET, "/api/v1/me", token: String(tampered))
            XCTAssertEqual(bad.errorCode, "invalid_token")
            let again = try await app.accessTokens.verify(credentials.accessToken, now: Date())
            XCTAssertEqual(again.userID.uuidString.lowercased(), (try good.object()["id"] as? String)?.lowercased())
            do {
                _ = try await app.accessTokens.verify(credentials.accessToken, now: Date().addingTimeInterval(61))
                XCTFail("a remembered token expires when it says")
            } catch AccessTokens.Failure.expired {
            } catch {
                XCTFail("expired, not \(error)")
            }

            let forged = try await AccessTokens.make(key: ServerKeys(secret: String(repeating: "x", count: 40)).accessTokens, lifetime: 60)
                .sign(userID: try user.requireID(), sessionID: try session.requireID(), now: Date())
            let foreign = try await app.send(.GET, "/api/v1/me", token: forged)
            XCTAssertEqual(foreign.errorCode, "invalid_token", "a token signed with another secret is refused")

            let anonymous = try await app.send(.GET, "/api/v1/me")
            XCTAssertEqual(anonymous.status, .unauthorized)
            XCTAssertEqual(anonymous.errorCode, "unauthorized")
        }
    }

    func testLogOutEndsTheSessionAtOnce() async throws {
        try await withTestApp { app in
            let phone = try await app.signUp()
            let laptop = try await app.logIn()
            let logout = try await app.send(.POST, "/api/v1/auth/logout", token: phone.accessToken)
            XCTAssertEqual(logout.status, .noContent)
            let me = try await app.send(.GET, "/api/v1/me", token: phone.accessToken)
            XCTAssertEqual(me.status, .unauthorized)
            let refresh = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": phone.refreshToken])
            XCTAssertEqual(refresh.status, .unauthorized)
            let other = try await app.send(.GET, "/api/v1/me", token: laptop.accessToken)
            XCTAssertEqual(other.status, .ok, "logging out one device leaves the others signed in")
            let anonymous = try await app.send(.POST, "/api/v1/auth/logout")
            XCTAssertEqual(anonymous.status, .unauthorized)
        }
    }

    func testChangingNicknameAndLanguage() async throws {
        try await withTestApp { app in
            let mina = try await app.signUp()
            try await app.signUp("joon@example.com", nickname: "Joon")
            let patched = try await app.send(.PATCH, "/api/v1/me", json: ["nickname": "미나짱", "language": "ja"], token: mina.accessToken)
            XCTAssertEqual(patched.status, .ok)
            XCTAssertEqual(try patched.object()["nickname"] as? String, "미나짱")
            XCTAssertEqual(try patched.object()["language"] as? String, "ja")

            // The saved language is used for messages when no header asks otherwise.
            let taken = try await app.send(.PATCH, "/api/v1/me", json: ["nickname": "JOON"], token: mina.accessToken)
            XCTAssertEqual(taken.status, .conflict)
            XCTAssertEqual(taken.errorCode, "nickname_taken")
            XCTAssertEqual(taken.errorMessage, "このニックネームはすでに使われています。")

            let badLanguage = try await app.send(.PATCH, "/api/v1/me", json: ["language": "fr"], token: mina.accessToken)
            XCTAssertEqual(badLanguage.status, .badRequest)
            XCTAssertEqual(badLanguage.errorCode, "invalid_value")
            let unchanged = try await app.send(.GET, "/api/v1/me", token: mina.accessToken)
            XCTAssertEqual(try unchanged.object()["nickname"] as? String, "미나짱")
            XCTAssertEqual(try unchanged.object()["language"] as? String, "ja")
        }
    }

    func testProfileImageUploadChecksBytesAndSize() async throws {
        try await withTestApp { app in
            let mina = try await app.signUp()
            func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
                [0, 0, 0, UInt8(data.count)] + Array(type.utf8) + data + [0, 0, 0, 0]
            }
            let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            let ihdr = chunk("IHDR", [0, 0, 0, 2, 0, 0, 0, 2, 8, 6, 0, 0, 0])
            let idat = chunk("IDAT", [0x78, 0x9C, 7, 7, 7]), iend = chunk("IEND", [])
            let png = Data(signature + ihdr + idat + iend)
            // With the position a phone writes, which is stripped before the file is stored.
            let withPosition = Data(signature + ihdr + chunk("tEXt", Array("GPS\u{0}37.5663N".utf8)) + idat + iend)
            let response = try await app.testable().performTest(request: TestingHTTPRequest(
                method: .PUT, url: URI(path: "/api/v1/me/profile-image"),
                headers: ["Authorization": "Bearer \(mina.accessToken)", "Content-Type": "image/png"], body: ByteBuffer(data: withPosition)))
            XCTAssertEqual(response.status, .ok, response.text)
            let url = try XCTUnwrap(try response.object()["profileImageURL"] as? String)
            XCTAssertTrue(url.hasPrefix("/uploads/") && url.hasSuffix(".png"), url)
            let served = try await app.send(.GET, url)
            XCTAssertEqual(served.status, .ok)
            XCTAssertEqual(Data(buffer: served.body), png, "served without the text chunk")
            XCTAssertEqual(served.headers.contentType, .png)

            // A text file named as an image is refused by its bytes.
            let fake = try await app.testable().performTest(request: TestingHTTPRequest(
                method: .PUT, url: URI(path: "/api/v1/me/profile-image"),
                headers: ["Authorization": "Bearer \(mina.accessToken)", "Content-Type": "image/png"], body: ByteBuffer(string: "<?php echo 1; ?>")))
            XCTAssertEqual(fake.status, .unsupportedMediaType)
            XCTAssertEqual(fake.errorCode, "unsupported_image_type")
            let big = try await app.testable().performTest(request: TestingHTTPRequest(
                method: .PUT, url: URI(path: "/api/v1/me/profile-image"),
                headers: ["Authorization": "Bearer \(mina.accessToken)", "Content-Type": "image/png"],
                body: ByteBuffer(data: png + Data(repeating: 0, count: 5 * 1024 * 1024))))
            XCTAssertEqual(big.status, .payloadTooLarge)
            let still = try await app.send(.GET, "/api/v1/me", token: mina.accessToken)
            XCTAssertEqual(try still.object()["profileImageURL"] as? String, url, "rejected uploads change nothing")

            let removed = try await app.send(.DELETE, "/api/v1/me/profile-image", token: mina.accessToken)
            XCTAssertTrue(try removed.object()["profileImageURL"] is NSNull)
            let gone = try await app.send(.GET, url)
            XCTAssertEqual(gone.status, .notFound, "an image nobody uses is deleted")
            for path in ["/uploads/..%2Fjwt-secret", "/uploads/../jwt-secret", "/uploads/%2E%2E%2Fjwt-secret"] {
                let traversal = try await app.send(.GET, path)
                XCTAssertTrue([.notFound, .forbidden].contains(traversal.status), "\(path): \(traversal.status)")
                XCTAssertFalse(traversal.text.contains(app.settings.jwtSecret), path)
            }
        }
    }

    func testWithdrawDeletesTheAccountAndStopsEveryToken() async throws {
        try await withTestApp { app in
            let phone = try await app.signUp()
            let laptop = try await app.logIn()
            let wrong = try await app.send(.DELETE, "/api/v1/me", json: ["password": "not-mine!"], token: phone.accessToken)
            XCTAssertEqual(wrong.status, .forbidden)
            XCTAssertEqual(wrong.errorCode, "wrong_password")
            let missing = try await app.send(.DELETE, "/api/v1/me", token: phone.accessToken)
            XCTAssertEqual(missing.status, .badRequest, "a body with the password is required")
            XCTAssertEqual(missing.errorCode, "missing_field")

            let deleted = try await app.send(.DELETE, "/api/v1/me", json: ["password": "password1"], token: phone.accessToken)
            XCTAssertEqual(deleted.status, .noContent)
            for token in [phone.accessToken, laptop.accessToken] {
                let me = try await app.send(.GET, "/api/v1/me", token: token)
                XCTAssertEqual(me.status, .unauthorized)
            }
            let refresh = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": laptop.refreshToken])
            XCTAssertEqual(refresh.status, .unauthorized)
            let users = try await User.query(on: app.db).count()
            let sessions = try await AuthSession.query(on: app.db).count()
            let tokens = try await RefreshToken.query(on: app.db).count()
            XCTAssertEqual([users, sessions, tokens], [0, 0, 0], "personal data and sessions are gone")
            // The email and nickname are free again.
            try await app.signUp()
        }
    }

    func testOnlyAdminsListUsers() async throws {
        try await withTestApp { app in
            let user = try await app.signUp()
            let forbidden = try await app.send(.GET, "/api/v1/admin/users", token: user.accessToken)
            XCTAssertEqual(forbidden.status, .forbidden)
            let anonymous = try await app.send(.GET, "/api/v1/admin/users")
            XCTAssertEqual(anonymous.status, .unauthorized)

            let admin = try await app.signUpAdmin()
            for index in 0..<4 { try await app.signUp("u\(index)@example.com", nickname: "user\(index)") }

            var seen: [String] = []
            var cursor: String?
            repeat {
                let path = "/api/v1/admin/users?limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try await app.send(.GET, path, token: admin.accessToken)
                XCTAssertEqual(page.status, .ok, page.text)
                let body = try page.object()
                let items = try XCTUnwrap(body["items"] as? [[String: Any]])
                XCTAssertLessThanOrEqual(items.count, 2)
                seen += items.compactMap { $0["email"] as? String }
                cursor = body["nextCursor"] as? String
                XCTAssertTrue(body.keys.contains("nextCursor"))
            } while cursor != nil
            XCTAssertEqual(seen.count, 6)
            XCTAssertEqual(Set(seen).count, 6, "no user appears twice across pages")
            XCTAssertEqual(seen.first, "u3@example.com", "newest first")

            let badLimit = try await app.send(.GET, "/api/v1/admin/users?limit=0", token: admin.accessToken)
            XCTAssertEqual(badLimit.errorCode, "invalid_limit")
            let badCursor = try await app.send(.GET, "/api/v1/admin/users?cursor=%%%", token: admin.accessToken)
            XCTAssertEqual(badCursor.status, .badRequest)
        }
    }
}
