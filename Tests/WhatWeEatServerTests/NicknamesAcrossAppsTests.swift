import Accounts
import Fluent
import LookForRealBurgerApp
import Platform
import SesacStudyApp
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTVapor

/// One nickname rule across the web and the shipped apps' own joins (Accounts' rules, tested in
/// AccountsTests): a name taken in one is taken in all, look-alikes included.
final class NicknamesAcrossAppsTests: XCTestCase {
    /// One-syllable names (별, 곰) are common, and the apps allow them: one character is a name on
    /// the web, in the 새싹 스터디 apps and in the LookForRealBurger app alike — still unique across
    /// all three, and blanks are still refused.
    func testOneCharacterNamesWorkEverywhereAndStayUnique() async throws {
        try await withSesacApp(adjust: { $0.lookForRealBurgerApp.apiKeys = [LSLPClient.key] }) { app, firebase in
            try await app.signUp("star@example.com", nickname: "별")
            let again = try await app.send(.POST, "/api/v1/auth/signup", json: ["email": "star2@example.com", "password": "password1", "nickname": "별"])
            XCTAssertEqual(again.errorCode, "nickname_taken")
            let bear = try SesacAppClient(app: app, firebase: firebase)
            try await bear.signUp(nick: "곰")
            var lslp = LSLPClient(app: app)
            lslp.accessToken = nil
            let taken = try await lslp.call(.POST, "/v1/users/join", json: ["email": "bear@example.com", "password": "burger-password-1", "nick": "곰"])
            XCTAssertEqual(taken.status, .conflict, "the app's 곰 holds the name: \(taken.text)")
            let fox = try await lslp.call(.POST, "/v1/users/join", json: ["email": "fox@example.com", "password": "burger-password-1", "nick": "🦊"])
            XCTAssertEqual(fox.status, .ok, fox.text)
            let blank = try await app.send(.POST, "/api/v1/auth/signup", json: ["email": "blank@example.com", "password": "password1", "nickname": "\u{3164}"])
            XCTAssertEqual(blank.errorCode, "invalid_nickname_characters")
        }
    }

    func testTheAppsJoinsRefuseLookAlikes() async throws {
        try await withLSLPApp { app in
            let client = LSLPClient(app: app)
            _ = try await LSLPClient.member(app, nick: "곰돌")
            let twin = try await client.call(.POST, "/v1/users/join", json: ["email": "twin@example.com", "password": "burger-password-1", "nick": "곰돌\u{E0101}"])
            XCTAssertEqual(twin.status, .conflict, twin.text)
            let joined = try await User.query(on: app.db).filter(\.$email == "twin@example.com").count()
            XCTAssertEqual(joined, 0)
        }
        try await withSesacApp { app, firebase in
            try await SesacAppClient(app: app, firebase: firebase).signUp(nick: "곰돌")
            let twin = try SesacAppClient(app: app, firebase: firebase)
            let refused = try await twin.call(.POST, "/v1/user", form: SesacAppClient.encode([
                ("phoneNumber", twin.phone), ("FCMtoken", "fcm"), ("nick", "곰돌\u{FE00}"), ("birth", "1995-06-15T09:00:00.000Z"),
                ("email", "twin@example.com"), ("gender", "1"),
            ]))
            XCTAssertEqual(refused.status.code, 202, "the app's answer for a nickname it may not use: \(refused.text)")
        }
    }
}
