import Accounts
import BurgerMap
import Fluent
import LookForRealBurgerApp
import Platform
import SesacStudyApp
import WhatWeEatServer
import XCTVapor

/// Named things the tests share: catalog entries they rely on, and accounts with a role.
package enum Fixtures {
    /// 불고기: discounted, with a badge: 23,900원 (28,900원), 2% points, 1–10 per order.
    package static let bulgogi = "HU6Z5"
    /// 닭갈비: 14,900원, no discount, no badge.
    package static let dakgalbi = "HA5O3"
}

extension Application {
    /// Signs up an account and makes it an administrator (as `whatweeat user create --admin` does).
    @discardableResult
    package func signUpAdmin(_ email: String = "boss@example.com", nickname: String = "boss") async throws -> Credentials {
        let credentials = try await signUp(email, nickname: nickname)
        try await User.query(on: db).filter(\.$email == email).set(\.$role, to: .admin).update()
        return credentials
    }

    /// Empties the burger map of the catalog every test app is seeded with (its places, reviews,
    /// photos and reactions, and the seed reviewers' accounts), for tests that count what they add.
    /// Children are deleted before parents, so it holds whether or not the database cascades.
    package func removeBurgerCatalog() async throws {
        try await db.transaction { database in
            try await BurgerReaction.query(on: database).delete()
            try await BurgerComment.query(on: database).delete()
            try await BurgerReport.query(on: database).delete()
            try await BurgerPhoto.query(on: database).delete()
            try await BurgerReview.query(on: database).delete()
            try await BurgerMark.query(on: database).delete()
            try await BurgerPlace.query(on: database).delete()
            try await User.query(on: database).filter(\.$email, .custom("LIKE"), "burger-reviewer-%@seed.whatweeat.invalid").delete()
        }
        // The map's in-memory index, when a request has loaded it, learns of it as of any change
        // made behind the service's back (otherwise it loads from the emptied tables on first
        // use), and cached lists are dropped.
        if placeIndex.isLoaded { try await placeIndex.reload(from: BurgerMapStore(database: db, environment: self.burgerMapEnvironment)) }
        burgerMapCache.invalidate()
        let places = try await BurgerPlace.query(on: db).count()
        let reviews = try await BurgerReview.query(on: db).count()
        XCTAssertEqual([places, reviews], [0, 0], "the burger catalog is gone")
    }
}

extension HTTPHeaders {
    /// An anonymous device's `X-Device-Token`.
    package static func device(_ token: String) -> HTTPHeaders { [DeviceToken.header: token] }
}
