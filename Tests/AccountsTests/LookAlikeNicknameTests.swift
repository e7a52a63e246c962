@testable import Accounts
import Fluent
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// Probe 2026-11-27, finding 8, on every path that sets a nickname: the web API's sign-up, the
/// LookForRealBurger app's join, the 새싹 app's sign-up; and the stored keys computed again.
final class LookAlikeNicknameTests: XCTestCase {
    /// The probe's nine pairs: the second of each is refused once the first exists.
    static let pairs: [(String, String)] = [
        ("별빛", "별빛\u{FE00}"), ("곰돌", "곰돌\u{E0100}"), ("adminx", "adminx\u{FE0F}"), ("kim 1", "kim  1"),
        ("bobby", "b\u{0585}bby"), ("hana", "\u{04BB}ana"), ("nana", "\u{0578}ana"), ("Ian", "lan"), ("\u{2764}", "\u{2764}\u{FE0F}"),
    ]

    func testTheWebSignUpRefusesEveryLookAlike() async throws {
        try await withTestApp { app in
            for (index, (first, second)) in Self.pairs.enumerated() {
                let made = try await app.send(.POST, "/api/v1/auth/signup", json: ["email": "a\(index)@example.com", "password": "password1", "nickname": first])
                XCTAssertEqual(made.status, .created, made.text)
                let twin = try await app.send(.POST, "/api/v1/auth/signup", json: ["email": "b\(index)@example.com", "password": "password1", "nickname": second])
                XCTAssertEqual(twin.errorCode, "nickname_taken", "\(second.unicodeScalars.map { String($0.value, radix: 16) })")
            }
            // The stored name is what people see: no selector after a letter, one space.
            let spaced = try await User.query(on: app.db).filter(\.$email == "a3@example.com").first()
            XCTAssertEqual(spaced?.nickname, "kim 1")
            // A profile rename takes the same rule.
            let renamer = try await app.signUp("renamer@example.com", nickname: "다른이름")
            let renamed = try await app.send(.PATCH, "/api/v1/me", json: ["nickname": "\u{04BB}ana"], token: renamer.accessToken)
            XCTAssertEqual(renamed.errorCode, "nickname_taken")
        }
    }

    /// Keys stored before the skeleton are computed again; names that now look alike keep their
    /// names, the older keeps the key, and the look is taken for new accounts.
    func testStoredKeysAreComputedAgain() async throws {
        try await withTestApp { app in
            try await app.signUp("old@example.com", nickname: "hana")
            let cyrillicID = UUID()
            try await app.db.sql.raw("""
                INSERT INTO \(ident: User.schema) (id, email, password_hash, nickname, nickname_key, role, created_at, updated_at)
                VALUES (\(bind: cyrillicID), 'twin@example.com', 'x', \(bind: "\u{04BB}ana"), \(bind: "\u{04BB}ana"), 'user', \(bind: Date()), \(bind: Date()))
                """).run()
            try await RecomputeNicknameKeys().prepare(on: app.db)
            let keys = try await User.query(on: app.db).filter(\.$email ~~ ["old@example.com", "twin@example.com"]).sort(\.$createdAt).all()
            XCTAssertEqual(keys.map(\.nicknameKey), ["hana", "hana~" + cyrillicID.uuidString])
            XCTAssertEqual(keys.map(\.nickname), ["hana", "\u{04BB}ana"], "names stay")
            let newcomer = try await app.send(.POST, "/api/v1/auth/signup", json: ["email": "new@example.com", "password": "password1", "nickname": "hаna"])
            XCTAssertEqual(newcomer.errorCode, "nickname_taken")
        }
    }
}
