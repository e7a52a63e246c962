@testable import Accounts
import Fluent
import Foundation
import Platform
import WhatWeEatTesting
import XCTVapor

/// Signed-in requests are served from memory (`SessionCache`), and every change that ends a
/// session or alters an account is seen by the very next request, here and on other instances.
final class SessionCacheTests: XCTestCase {
    struct Me: Decodable { let id: UUID; let nickname: String; let language: String?; let profileImageURL: String? }

    func testRequestsAreServedFromMemoryUntilTheAccountChanges() async throws {
        try await withTestApp { app in
            let mina = try await app.signUp()
            XCTAssertEqual(app.sessionCache.count, 0)
            let first = try await app.send(.GET, "/api/v1/me", token: mina.accessToken)
            XCTAssertEqual(first.status, .ok)
            XCTAssertEqual(app.sessionCache.count, 1, "the first request remembers the session")
            let id = try first.json(Me.self).id

            // A write behind the service's back (as an operator's SQL would be) is not seen while
            // the entry lives: proof that the request did not read the row.
            try await User.query(on: app.db).filter(\.$id == id).set(\.$nickname, to: "몰래").update()
            let awaited1 = try await app.send(.GET, "/api/v1/me", token: mina.accessToken).json(Me.self).nickname
            XCTAssertEqual(awaited1, "미나")
            // Through the service, the change is seen at once.
            let patched = try await app.send(.PATCH, "/api/v1/me", json: ["nickname": "미나짱", "language": "ja"], token: mina.accessToken)
            XCTAssertEqual(patched.status, .ok, patched.text)
            let after = try await app.send(.GET, "/api/v1/me", token: mina.accessToken).json(Me.self)
            XCTAssertEqual(after.nickname, "미나짱")
            XCTAssertEqual(after.language, "ja")
            // The remembered user is a copy per request: saving it updates the row, not a new one.
            let awaited2 = try await User.query(on: app.db).filter(\.$email == "mina@example.com").all().map(\.nickname)
            XCTAssertEqual(awaited2, ["미나짱"])
        }
    }

    func testEveryWayOutRefusesTheOldAccessTokenAtOnce() async throws {
        try await withTestApp { app in
            // Logout.
            let mina = try await app.signUp()
            _ = try await app.send(.GET, "/api/v1/me", token: mina.accessToken)
            let awaited1 = try await app.send(.POST, "/api/v1/auth/logout", token: mina.accessToken).status
            XCTAssertEqual(awaited1, .noContent)
            let awaited2 = try await app.send(.GET, "/api/v1/me", token: mina.accessToken).status
            XCTAssertEqual(awaited2, .unauthorized)

            // A refresh token used twice (past the retry window) revokes its family.
            let joon = try await app.signUp("joon@example.com", nickname: "준호")
            _ = try await app.send(.GET, "/api/v1/me", token: joon.accessToken)
            let rotated = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": joon.refreshToken])
            XCTAssertEqual(rotated.status, .ok)
            try await RefreshToken.query(on: app.db).filter(\.$usedAt != nil).set(\.$usedAt, to: Date() - 60).update()
            let reused = try await app.send(.POST, "/api/v1/auth/refresh", json: ["refreshToken": joon.refreshToken])
            XCTAssertEqual(reused.errorCode, "refresh_token_reused")
            let awaited3 = try await app.send(.GET, "/api/v1/me", token: joon.accessToken).status
            XCTAssertEqual(awaited3, .unauthorized)

            // Withdrawal.
            let hana = try await app.signUp("hana@example.com", nickname: "하나")
            _ = try await app.send(.GET, "/api/v1/me", token: hana.accessToken)
            let withdrawn = try await app.send(.DELETE, "/api/v1/me", json: ["password": "password1"], token: hana.accessToken)
            XCTAssertEqual(withdrawn.status, .noContent, withdrawn.text)
            let awaited4 = try await app.send(.GET, "/api/v1/me", token: hana.accessToken).status
            XCTAssertEqual(awaited4, .unauthorized)
        }
    }

    /// Browser pages are signed in from memory too (a page read the session row on every request),
    /// and a logout — in this browser, or of the account from anywhere — is seen at once.
    func testBrowserSessionsAreServedFromMemoryUntilTheyEnd() async throws {
        try await withTestApp { app in
            var browser = CookieBrowser(app: app)
            _ = try await browser.get("/signup")
            _ = try await browser.post("/signup", form: ["email": "mina@example.com", "nickname": "미나", "password": "password1"])
            let first = try await browser.get("/me")
            XCTAssertEqual(first.status, .ok)
            XCTAssertEqual(app.sessionCache.count, 1, "the page remembered its session")

            try await User.query(on: app.db).filter(\.$email == "mina@example.com").set(\.$nickname, to: "몰래").update()
            let remembered = try await browser.get("/me")
            XCTAssertTrue(remembered.text.contains("미나"), "served from memory: the row changed behind the service is not read")
            XCTAssertFalse(remembered.text.contains("몰래"))

            // The same person's API session withdraws the account: the browser is signed out at once.
            let login = try await app.send(.POST, "/api/v1/auth/login", json: ["email": "mina@example.com", "password": "password1"])
            let token = try login.json(Application.Credentials.self).accessToken
            let withdrawn = try await app.send(.DELETE, "/api/v1/me", json: ["password": "password1"], token: token)
            XCTAssertEqual(withdrawn.status, .noContent, withdrawn.text)
            let after = try await browser.get("/me")
            XCTAssertEqual(after.status, .seeOther, "a withdrawn account's cookie signs nobody in")

            // A logout in the browser.
            var joon = CookieBrowser(app: app)
            _ = try await joon.get("/signup")
            _ = try await joon.post("/signup", form: ["email": "joon@example.com", "nickname": "준호", "password": "password1"])
            let joonsPage = try await joon.get("/me")
            XCTAssertEqual(joonsPage.status, .ok)
            let stolenCookie = joon.cookies
            _ = try await joon.post("/logout", form: [:])
            var replay = CookieBrowser(app: app, cookies: stolenCookie)
            let replayed = try await replay.get("/me")
            XCTAssertEqual(replayed.status, .seeOther, "the old cookie no longer signs in, though it was remembered")
        }
    }

    func testARequestThatReadBeforeAForgetDoesNotRememberWhatItRead() throws {
        let cache = SessionCache()
        let user = User(id: UUID(), email: "a@example.com", passwordHash: "x", nickname: "a")
        user.$id.exists = true
        let session = UUID()
        let generation = cache.generation
        cache.apply(.session(session))  // a logout lands while the read is on its way
        cache.remember(session: session, expiresAt: Date() + 600, user: user, readAt: generation, now: Date())
        XCTAssertNil(cache.user(session: session, userID: user.id!, now: Date()), "stale reads are dropped")

        cache.remember(session: session, expiresAt: Date() + 600, user: user, readAt: cache.generation, now: Date())
        XCTAssertEqual(cache.user(session: session, userID: user.id!, now: Date())?.nickname, "a")
        XCTAssertNil(cache.user(session: session, userID: UUID(), now: Date()), "another user's token for the same session id")
        XCTAssertNil(cache.user(session: session, userID: user.id!, now: Date() + 31), "entries live 30 s")
        cache.apply(.user(user.id!))
        XCTAssertNil(cache.user(session: session, userID: user.id!, now: Date()))

        let expiring = UUID()
        cache.remember(session: expiring, expiresAt: Date() + 1, user: user, readAt: cache.generation, now: Date())
        XCTAssertNil(cache.user(session: expiring, userID: user.id!, now: Date() + 2), "not past the session's own end")

        XCTAssertEqual(SessionCache.Change(message: SessionCache.Change.user(user.id!).message), .user(user.id!))
        XCTAssertEqual(SessionCache.Change(message: SessionCache.Change.session(session).message), .session(session))
        XCTAssertNil(SessionCache.Change(message: "session:not-a-uuid"))
        XCTAssertNil(SessionCache.Change(message: "everything"))
    }

    /// Two server processes on one PostgreSQL database: a logout through the first refuses the old
    /// access token on the second within a second, though the second had it in memory.
    func testALogoutOnOneInstanceIsHonouredByAnotherWithinASecond() async throws {
        try XCTSkipUnless(TestDatabase.postgresURL != nil, "needs PostgreSQL; the CI's PostgreSQL pass runs it")
        let directories = [try TestDatabase.temporaryDirectory(), try TestDatabase.temporaryDirectory()]
        defer { for directory in directories { try? FileManager.default.removeItem(atPath: directory) } }
        let environment = ["JWT_SECRET": "two-instances-share-this-secret-0123456789", "AUTH_ATTEMPTS_PER_MINUTE": "1000"]
        let a = try ServerProcess(dataDirectory: directories[0], extraEnvironment: environment)
        defer { a.stop(signal: SIGTERM) }
        try await a.waitUntilHealthy()
        let b = try ServerProcess(dataDirectory: directories[1], extraEnvironment: environment)
        defer { b.stop(signal: SIGTERM) }
        try await b.waitUntilHealthy()

        // On PostgreSQL the suite's database outlives the processes: a new account each run.
        let run = UUID().uuidString.prefix(8).lowercased()
        let signedUp = try await a.post("/api/v1/auth/signup", json: ["email": "cache-\(run)@example.com", "password": "password1", "nickname": "캐시\(run)"])
        XCTAssertEqual(signedUp.status, .created)
        let token = try XCTUnwrap(signedUp.json["accessToken"] as? String)
        for _ in 0..<3 {
            let awaited = try await b.get("/api/v1/me", token: token).status
            XCTAssertEqual(awaited, .ok)
        }
        let loggedOut = try await a.send(.POST, "/api/v1/auth/logout", json: [String: String](), token: token)
        XCTAssertEqual(loggedOut.status, .noContent)
        let start = ContinuousClock.now
        var status = HTTPResponseStatus.ok
        while status == .ok, ContinuousClock.now - start < .seconds(5) {
            status = try await b.get("/api/v1/me", token: token).status
            if status == .ok { try await Task.sleep(for: .milliseconds(20)) }
        }
        let elapsed = ContinuousClock.now - start
        XCTAssertEqual(status, .unauthorized)
        XCTAssertLessThan(elapsed, .seconds(1), "instance B forgot the session \(elapsed) after the logout on A")
    }

    /// A new account moves the lists of accounts (`accountsVersion`, which the console's People and
    /// Today follow) and nothing remembered: pages that name people are not made again by a sign-up.
    func testANewAccountMovesOnlyTheListsOfAccounts() throws {
        let cache = SessionCache()
        let id = UUID()
        XCTAssertEqual(SessionCache.Change(message: SessionCache.Change.created(id).message), .created(id), "it travels the bus")
        let (accounts, generation) = (cache.accountsVersion, cache.generation)
        cache.apply(.created(id))
        XCTAssertEqual(cache.accountsVersion, accounts + 1)
        XCTAssertEqual(cache.generation, generation, "no remembered session or user is stale")
        cache.apply(.user(id))
        XCTAssertEqual(cache.accountsVersion, accounts + 2, "a changed account moves the lists too")
        XCTAssertGreaterThan(cache.generation, generation)
    }
}
