import Accounts
import BurgerMap
import BurgerMapTesting
import Fluent
@testable import LookForRealBurgerApp
import Platform
import WhatWeEatTesting
import XCTVapor

/// The LookForRealBurger app's accounts on our server (`../shared/contracts/lslp-burger-api.md` §3
/// A1–A4, U1, U3, and the replay sketch's first and last lines): the key, joining, logging in,
/// the 419/418 refresh protocol with a refresh token that is never rotated, profiles.
final class BurgerMapCompatAccountsTests: XCTestCase {
    func testTheKeyIsRequiredOnEveryCall() async throws {
        try await withLSLPApp { app in
            var client = LSLPClient(app: app)
            for key in ["", "wrong-key"] {
                client.key = key
                let refused = try await client.call(.POST, "/v1/validation/email", json: ["email": "a@example.com"])
                XCTAssertEqual(refused.status.code, 420, key)
                XCTAssertEqual(refused.lslpMessage, "SesacKey가 없거나 올바르지 않아요.")
            }
            client.key = LSLPClient.key
            let accepted = try await client.call(.POST, "/v1/validation/email", json: ["email": "a@example.com"])
            XCTAssertEqual(accepted.status, .ok, accepted.text)
            XCTAssertEqual(accepted.lslpMessage, "사용 가능한 이메일입니다.")
        }
        // Without LSLP_API_KEYS the routes are off.
        try await withTestApp { app in
            let refused = try await LSLPClient(app: app).call(.POST, "/v1/users/login", json: ["email": "a@example.com", "password": "x"])
            XCTAssertEqual(refused.status.code, 420)
        }
    }

    func testJoinEmailCheckAndLogIn() async throws {
        try await withLSLPApp { app in
            let client = LSLPClient(app: app)
            let seeded = try await User.query(on: app.db).count()  // the burger catalog's reviewers
            let joined = try await client.call(.POST, "/v1/users/join", json: ["email": "b@example.com", "password": "burger-password-1", "nick": "버거왕"])
            XCTAssertEqual(joined.status, .ok, joined.text)
            let object = try joined.object()
            XCTAssertEqual(Set(object.keys), ["user_id", "email", "nick"])
            let userID = try XCTUnwrap(object["user_id"] as? String)
            XCTAssertNotNil(userID.range(of: "^[0-9a-f]{24}$", options: .regularExpression), userID)
            XCTAssertEqual(object["nick"] as? String, "버거왕")

            let again = try await client.call(.POST, "/v1/users/join", json: ["email": "b@example.com", "password": "burger-password-1", "nick": "버거왕2"])
            XCTAssertEqual(again.status, .conflict)
            XCTAssertNotNil(again.lslpMessage)
            let taken = try await client.call(.POST, "/v1/validation/email", json: ["email": "b@example.com"])
            XCTAssertEqual(taken.status, .conflict)
            let spaced = try await client.call(.POST, "/v1/users/join", json: ["email": "c@example.com", "password": "burger-password-1", "nick": "버거 왕"])
            XCTAssertEqual(spaced.status.code, 402)
            XCTAssertEqual(spaced.lslpMessage, "공백이 포함된 닉네임은 사용할 수 없어요.")
            let missing = try await client.call(.POST, "/v1/users/join", json: ["email": "d@example.com", "nick": "빠짐"])
            XCTAssertEqual(missing.status, .badRequest)
            XCTAssertNotNil(missing.lslpMessage, "errors are {\"message\"}, not our envelope")
            let empty = try await client.call(.POST, "/v1/users/join", json: ["email": "e@example.com", "password": "", "nick": "빈칸"])
            XCTAssertEqual(empty.status, .badRequest, "an empty password is a field left empty: the app's own toast says so")
            let users = try await User.query(on: app.db).count()
            XCTAssertEqual(users, seeded + 1, "nothing but the first join made an account")

            // The original server took any password the app sends; ours asks eight characters on the
            // web, but the app can only answer a refusal with "입력칸을 채워주세요".
            let short = try await client.call(.POST, "/v1/users/join", json: ["email": "short@example.com", "password": "pw", "nick": "짧은비번"])
            XCTAssertEqual(short.status, .ok, short.text)
            let shortLogin = try await client.call(.POST, "/v1/users/login", json: ["email": "short@example.com", "password": "pw"])
            XCTAssertEqual(shortLogin.status, .ok, shortLogin.text)
            let webRule = try await app.send(.POST, "/api/v1/auth/signup", json: ["email": "web@example.com", "password": "pw", "nickname": "웹짧은"])
            XCTAssertEqual(webRule.status, .unprocessableEntity, "the web's own sign-up keeps its rule")
            XCTAssertEqual(webRule.errorCode, "password_too_short")

            let loggedIn = try await client.call(.POST, "/v1/users/login", json: ["email": "b@example.com", "password": "burger-password-1"])
            XCTAssertEqual(loggedIn.status, .ok, loggedIn.text)
            let session = try loggedIn.object()
            XCTAssertEqual(session["user_id"] as? String, userID)
            XCTAssertNotNil(session["accessToken"] as? String)
            XCTAssertNotNil(session["refreshToken"] as? String)
            let wrong = try await client.call(.POST, "/v1/users/login", json: ["email": "b@example.com", "password": "not-the-password"])
            XCTAssertEqual(wrong.status, .unauthorized)
            XCTAssertNotNil(wrong.lslpMessage)
        }
    }

    func testAnExpiredAccessTokenIs419AndARefreshKeepsTheRefreshToken() async throws {
        try await withLSLPApp(adjust: { $0.accessTokenTTL = 1 }) { app in
            var client = try await LSLPClient.member(app, nick: "새로고침")
            let fresh = try await client.call(.GET, "/v1/users/me/profile")
            XCTAssertEqual(fresh.status, .ok, fresh.text)
            try await Task.sleep(for: .milliseconds(2_100))
            let expired = try await client.call(.GET, "/v1/users/me/profile")
            XCTAssertEqual(expired.status.code, 419, expired.text)

            let refreshToken = try XCTUnwrap(client.refreshToken)
            for round in 1...2 {
                let refreshed = try await client.call(.GET, "/v1/auth/refresh", headers: ["Refresh": refreshToken])
                XCTAssertEqual(refreshed.status, .ok, "refresh \(round): \(refreshed.text)")
                client.accessToken = try XCTUnwrap(try refreshed.object()["accessToken"] as? String)
                let replayed = try await client.call(.GET, "/v1/users/me/profile")
                XCTAssertEqual(replayed.status, .ok, "the same refresh token works again (round \(round))")
                try await Task.sleep(for: .milliseconds(2_100))
            }

            let wrongRefresh = try await client.call(.GET, "/v1/auth/refresh", headers: ["Refresh": "not-a-refresh-token"])
            XCTAssertEqual(wrongRefresh.status, .unauthorized)
            let other = try await LSLPClient.member(app, nick: "다른사람")
            let mismatched = try await client.call(.GET, "/v1/auth/refresh", headers: ["Refresh": try XCTUnwrap(other.refreshToken)])
            XCTAssertEqual(mismatched.status, .forbidden, "another session's refresh token")
            var forged = client
            forged.accessToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"
            let notOurs = try await forged.call(.GET, "/v1/auth/refresh", headers: ["Refresh": refreshToken])
            XCTAssertEqual(notOurs.status, .unauthorized, "the stale token must still be ours")

            // Once the refresh token expires the app logs in again.
            try await RefreshToken.query(on: app.db).filter(\.$tokenHash == SecureRandom.sha256Hex(refreshToken))
                .set(\.$expiresAt, to: Date().addingTimeInterval(-1)).update()
            let loggedOut = try await client.call(.GET, "/v1/auth/refresh", headers: ["Refresh": refreshToken])
            XCTAssertEqual(loggedOut.status.code, 418)
        }
    }

    /// The 2026-11-26 probe, item 10: the app's non-rotating refresh took any session's refresh
    /// token, so a stolen web or API token could mint access tokens without ever tripping reuse
    /// detection. Only sessions the app's own login made refresh without rotation.
    func testOnlyTheAppsOwnSessionsRefreshWithoutRotation() async throws {
        try await withLSLPApp { app in
            let credentials = try await app.signUp("web-refresh@example.com", nickname: "웹세션", password: "burger-password-1")
            var web = LSLPClient(app: app)
            web.accessToken = credentials.accessToken
            for _ in 0..<3 {
                let refused = try await web.call(.GET, "/v1/auth/refresh", headers: ["Refresh": credentials.refreshToken])
                XCTAssertEqual(refused.status, .forbidden, refused.text)
            }
            // Its token was not used up by those attempts: it rotates, as ours do.
            let rotated = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": credentials.refreshToken])
            XCTAssertEqual(rotated.status, .ok, rotated.text)
            // The app's login: its refresh token refreshes, again and again.
            let client = try await LSLPClient.member(app, nick: "앱세션")
            for _ in 0..<2 {
                let refreshed = try await client.call(.GET, "/v1/auth/refresh", headers: ["Refresh": try XCTUnwrap(client.refreshToken)])
                XCTAssertEqual(refreshed.status, .ok, refreshed.text)
            }
            let kinds = try await AuthSession.query(on: app.db).all().map(\.kind)
            XCTAssertTrue(kinds.contains(.appWithFixedRefresh) && kinds.contains(.api))
        }
    }

    func testProfilesShowFollowsAndEveryPlaceAndReview() async throws {
        try await withLSLPApp { app in
            let mina = try await LSLPClient.member(app, nick: "미나버거")
            let junho = try await LSLPClient.member(app, nick: "준호버거")
            let minaUser = try await ObjectID.find(User.self, try XCTUnwrap(mina.userID), on: app.db)
            let junhoUser = try await ObjectID.find(User.self, try XCTUnwrap(junho.userID), on: app.db)
            let minaID = try XCTUnwrap(minaUser?.id), junhoID = try XCTUnwrap(junhoUser?.id)
            // Mina follows Junho and writes a review of a place she adds, on the web's API (the same
            // access token is a bearer token there).
            _ = try await BurgerMapService(database: app.db, application: app).setFollow(junhoID, to: true, by: minaID)
            let token = try XCTUnwrap(mina.accessToken)
            let place = try await app.place(token, "프로필 버거")
            let review = try await app.review(token, place: place)

            let junhosProfile = try await mina.call(.GET, "/v1/users/\(try XCTUnwrap(junho.userID))/profile")
            XCTAssertEqual(junhosProfile.status, .ok, junhosProfile.text)
            let profile = try junhosProfile.object()
            XCTAssertEqual(profile["nick"] as? String, "준호버거")
            XCTAssertNil(profile["email"], "someone else's email is not shown")
            XCTAssertEqual((profile["followers"] as? [[String: Any]])?.compactMap { $0["user_id"] as? String }, [mina.userID].compactMap { $0 })
            XCTAssertEqual(profile["posts"] as? [String], [])

            let mine = try await mina.call(.GET, "/v1/users/me/profile").object()
            XCTAssertEqual(Set(mine.keys), ["user_id", "email", "nick", "followers", "following", "posts"])
            XCTAssertEqual((mine["following"] as? [[String: Any]])?.compactMap { $0["nick"] as? String }, ["준호버거"])
            XCTAssertEqual(mine["posts"] as? [String], [ObjectID.of(review), ObjectID.of(place)], "newest first: the review, then its place")

            for unknown in ["000000000000000000000000", "not-an-id", String(repeating: "f", count: 24)] {
                let missing = try await mina.call(.GET, "/v1/users/\(unknown)/profile")
                XCTAssertEqual(missing.status.code, 410, unknown)
            }
        }
    }

    func testFollowAndUnfollowByTheAppsIDs() async throws {
        try await withLSLPApp { app in
            let mina = try await LSLPClient.member(app, nick: "팔로워미나")
            let junho = try await LSLPClient.member(app, nick: "팔로이준호")
            let junhoID = try XCTUnwrap(junho.userID)
            let followed = try await mina.call(.POST, "/v1/follow/\(junhoID)")
            XCTAssertEqual(followed.status, .ok, followed.text)
            let object = try followed.object()
            XCTAssertEqual(object["nick"] as? String, "팔로워미나")
            XCTAssertEqual(object["opponent_nick"] as? String, "팔로이준호")
            XCTAssertEqual(object["following_status"] as? Bool, true)
            let again = try await mina.call(.POST, "/v1/follow/\(junhoID)")
            XCTAssertEqual(again.status, .conflict, "already following")
            let profile = try await mina.call(.GET, "/v1/users/\(junhoID)/profile").object()
            XCTAssertEqual((profile["followers"] as? [[String: Any]])?.compactMap { $0["user_id"] as? String }, [mina.userID].compactMap { $0 })
            let myself = try await mina.call(.POST, "/v1/follow/\(try XCTUnwrap(mina.userID))")
            XCTAssertEqual(myself.status, .badRequest)
            let nobody = try await mina.call(.POST, "/v1/follow/\(String(repeating: "0", count: 24))")
            XCTAssertEqual(nobody.status.code, 410)

            for _ in 1...2 {
                let unfollowed = try await mina.call(.DELETE, "/v1/follow/\(junhoID)")
                XCTAssertEqual(unfollowed.status, .ok, unfollowed.text)
                XCTAssertEqual(try unfollowed.object()["following_status"] as? Bool, false)
            }
            let after = try await mina.call(.GET, "/v1/users/\(junhoID)/profile").object()
            XCTAssertEqual((after["followers"] as? [Any])?.count, 0)
            var anonymous = mina
            anonymous.accessToken = nil
            let refused = try await anonymous.call(.POST, "/v1/follow/\(junhoID)")
            XCTAssertEqual(refused.status, .unauthorized)
        }
    }
}
