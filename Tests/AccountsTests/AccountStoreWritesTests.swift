@testable import Accounts
import Fluent
import Foundation
import Platform
import SQLKit
import WhatWeEatTesting
import XCTVapor

/// The statements of `AccountStore` that keep the accounts and their sessions (SQLite here,
/// PostgreSQL in CI's second pass): users, the sign-in throttle's failures, sessions and refresh
/// tokens — each row read checked against its model, each write against what it changed, and the
/// announcements against the remembered sessions (`SessionCache`).
final class AccountStoreWritesTests: XCTestCase {
    private func store(_ app: Application) -> AccountStore { AccountStore(database: app.db, application: app) }

    private func newUser(_ store: AccountStore, _ nickname: String) async throws -> User {
        let user = User(email: "\(UUID().uuidString.prefix(8).lowercased())@example.com", passwordHash: "hash", nickname: nickname)
        try await store.create(user)
        return user
    }

    /// Remembers `user` signed in on a new session and returns the session's id.
    private func remembered(_ app: Application, _ user: User, session: UUID = UUID()) throws -> UUID {
        app.sessionCache.remember(session: session, expiresAt: Date().addingTimeInterval(3_600), user: user, readAt: app.sessionCache.generation, now: Date())
        XCTAssertNotNil(app.sessionCache.user(session: session, userID: try user.requireID(), now: Date()))
        return session
    }

    func testUsers() async throws {
        try await withTestApp { app in
            let store = store(app)
            let mina = try await newUser(store, "미나")
            let minaID = try mina.requireID()
            let emailTaken = try await store.emailTaken(mina.email)
            let emailFree = try await store.emailTaken("nobody@example.com")
            XCTAssertEqual([emailTaken, emailFree], [true, false])
            let nicknameTaken = try await store.nicknameTaken(key: AccountRules.nicknameKey("미나"), except: nil)
            let ownNickname = try await store.nicknameTaken(key: AccountRules.nicknameKey("미나"), except: minaID)
            XCTAssertEqual([nicknameTaken, ownNickname], [true, false], "one's own nickname is not taken from oneself")
            do {
                try await store.create(User(email: mina.email, passwordHash: "x", nickname: "다른이름"))
                XCTFail("one account per email")
            } catch let error as any DatabaseError where error.isConstraintFailure {}

            let byEmail = try await store.user(email: mina.email)
            let byID = try await store.user(minaID)
            XCTAssertEqual([byEmail?.id, byID?.id], [minaID, minaID])
            XCTAssertEqual(byID?.nickname, "미나")

            // A save is announced: a session remembered with the old account is forgotten.
            let session = try remembered(app, mina)
            mina.nickname = "미나리"
            mina.nicknameKey = AccountRules.nicknameKey("미나리")
            try await store.save(mina)
            XCTAssertNil(app.sessionCache.user(session: session, userID: minaID, now: Date()), "forgotten once saved")
            let saved = try await store.user(minaID)
            XCTAssertEqual(saved?.nickname, "미나리")

            mina.profileImageKey = "picture-key"
            try await store.save(mina)
            let used = try await AccountStore.profileImageUses(fileKey: "picture-key", on: app.db)
            let unused = try await AccountStore.profileImageUses(fileKey: "other-key", on: app.db)
            XCTAssertEqual([used, unused], [true, false])

            let joon = try await newUser(store, "준호")
            let first = try await store.users(CursorPageRequest(limit: 1))
            XCTAssertEqual(first.items.map(\.id), [joon.id], "newest first")
            let second = try await store.users(CursorPageRequest(cursor: PageCursor(encoded: try XCTUnwrap(first.nextCursor)), limit: 1))
            XCTAssertEqual(second.items.map(\.id), [minaID])
        }
    }

    func testRemovingAnAccountSettlesFirstAndAnnouncesAfter() async throws {
        try await withTestApp { app in
            let store = store(app)
            let mina = try await newUser(store, "미나")
            let minaID = try mina.requireID()
            _ = try await store.recordLoginAttempt(email: mina.email, at: Date())
            let sessionID = try await store.startSession(userID: minaID, kind: .api, userAgent: nil, expiresAt: Date().addingTimeInterval(3_600),
                                                         refreshHash: "hash-of-mina")
            let session = try remembered(app, mina, session: sessionID)
            let settled = SettledCount()
            let removals = AccountRemovals()
            removals.register(beforeDelete: { user, transaction in
                // Inside the transaction, before the row goes: the account is still there.
                let row = try await User.find(user, on: transaction)
                if row != nil { settled.increment() }
            })
            try await store.remove(mina, settling: removals.all)
            XCTAssertEqual(settled.value, 1)
            let gone = try await store.user(minaID)
            XCTAssertNil(gone)
            let failures = try await store.loginFailures(email: mina.email, after: .distantPast)
            XCTAssertTrue(failures.isEmpty, "its sign-in failures went with it")
            let token = try await store.refreshToken(hash: "hash-of-mina")
            XCTAssertNil(token, "its sessions and tokens by cascade")
            XCTAssertNil(app.sessionCache.user(session: session, userID: minaID, now: Date()))
        }
    }

    func testTheSignInThrottlesRows() async throws {
        try await withTestApp { app in
            let store = store(app)
            let now = Date()
            let old = try await store.recordLoginAttempt(email: "a@example.com", at: now.addingTimeInterval(-600))
            let recent = try await store.recordLoginAttempt(email: "a@example.com", at: now.addingTimeInterval(-10))
            _ = try await store.recordLoginAttempt(email: "b@example.com", at: now)
            let inWindow = try await store.loginFailures(email: "a@example.com", after: now.addingTimeInterval(-60))
            XCTAssertEqual(inWindow.map(\.id), [recent])
            let model = try await LoginFailure.find(recent, on: app.db)
            XCTAssertEqual(inWindow.first?.failedAt, model?.failedAt)

            try await store.forgetLoginFailures(email: "a@example.com", upTo: now.addingTimeInterval(-60))
            let left = try await store.loginFailures(email: "a@example.com", after: .distantPast)
            XCTAssertEqual(left.map(\.id), [recent], "out of the window: forgotten")
            XCTAssertFalse(left.map(\.id).contains(old))
            try await store.deleteLoginAttempt(recent)
            let none = try await store.loginFailures(email: "a@example.com", after: .distantPast)
            XCTAssertTrue(none.isEmpty)
            try await store.forgetLoginFailures(email: "b@example.com")
            let noneForB = try await store.loginFailures(email: "b@example.com", after: .distantPast)
            XCTAssertTrue(noneForB.isEmpty)
        }
    }

    func testSessionsAndRefreshTokens() async throws {
        try await withTestApp { app in
            let store = store(app)
            let mina = try await newUser(store, "미나"), joon = try await newUser(store, "준호")
            let minaID = try mina.requireID()
            let now = Date()
            let expires = now.addingTimeInterval(3_600)
            let api = try await store.startSession(userID: minaID, kind: .api, userAgent: "test", expiresAt: expires, refreshHash: "first")
            let web = try await store.startSession(userID: minaID, kind: .web, userAgent: nil, expiresAt: expires, cookieHash: "cookie")

            let row = try await store.session(api)
            let model = try await AuthSession.find(api, on: app.db)
            let session = try XCTUnwrap(model)
            XCTAssertEqual(row?.id, session.id)
            XCTAssertEqual(row?.userID, session.$user.id)
            XCTAssertEqual(row?.kind, session.kind)
            XCTAssertEqual(row?.expiresAt, session.expiresAt)
            XCTAssertNil(row?.revokedAt)
            let token = try await store.refreshToken(hash: "first")
            let tokenModel = try await RefreshToken.query(on: app.db).filter(\.$tokenHash == "first").first()
            XCTAssertEqual(token?.sessionID, tokenModel?.$session.id)
            XCTAssertEqual(token?.expiresAt, tokenModel?.expiresAt)
            XCTAssertNil(token?.usedAt)
            XCTAssertNil(token?.sealedSuccessor)

            let live = try await store.liveSession(api, of: minaID, now: now)
            XCTAssertEqual(live?.session.id, api)
            XCTAssertEqual(live?.user.nickname, "미나")
            let someoneElses = try await store.liveSession(api, of: try joon.requireID(), now: now)
            XCTAssertNil(someoneElses, "a session is its own user's")
            let expired = try await store.liveSession(api, of: minaID, now: expires.addingTimeInterval(1))
            XCTAssertNil(expired)
            let browser = try await store.liveWebSession(cookieHash: "cookie", now: now)
            XCTAssertEqual(browser?.session.id, web)
            XCTAssertEqual(browser?.session.kind, .web)

            // A token is claimed once; the claim seals its successor on it.
            let claimed = try await store.claimRefreshToken(hash: "first", at: now, sealedSuccessor: "sealed")
            XCTAssertEqual(claimed?.sessionID, api)
            let again = try await store.claimRefreshToken(hash: "first", at: now, sealedSuccessor: "other")
            XCTAssertNil(again, "of two claims only one gets the row")
            let used = try await store.refreshToken(hash: "first")
            XCTAssertNotNil(used?.usedAt)
            XCTAssertEqual(used?.sealedSuccessor, "sealed")
            let later = now.addingTimeInterval(7_200)
            try await store.rotate(session: api, toTokenHash: "second", expiresAt: later)
            let next = try await store.refreshToken(hash: "second")
            XCTAssertEqual(next?.sessionID, api)
            let extended = try await store.session(api)
            XCTAssertEqual(try XCTUnwrap(extended?.expiresAt).timeIntervalSince1970, later.timeIntervalSince1970, accuracy: 0.001,
                           "the family lives until its new token expires (PostgreSQL keeps microseconds)")

            // A revoke is announced: the remembered session is forgotten; twice changes nothing.
            let remembered = try remembered(app, mina, session: api)
            try await store.revokeSession(api, at: now)
            XCTAssertNil(app.sessionCache.user(session: remembered, userID: minaID, now: Date()))
            let revoked = try await store.session(api)
            try await store.revokeSession(api, at: now.addingTimeInterval(60))
            let revokedAgain = try await store.session(api)
            XCTAssertEqual(revoked?.revokedAt, revokedAgain?.revokedAt, "the first revoke's time stays")
            let gone = try await store.liveSession(api, of: minaID, now: now)
            XCTAssertNil(gone)
        }
    }

    func testChangingThePasswordEndsTheOtherSessions() async throws {
        try await withTestApp { app in
            let store = store(app)
            let mina = try await newUser(store, "미나")
            let minaID = try mina.requireID()
            let expires = Date().addingTimeInterval(3_600)
            let kept = try await store.startSession(userID: minaID, kind: .api, userAgent: nil, expiresAt: expires, refreshHash: "kept")
            let other = try await store.startSession(userID: minaID, kind: .web, userAgent: nil, expiresAt: expires, cookieHash: "other")
            let session = try remembered(app, mina, session: kept)
            let ended = try await store.changePassword(of: mina, toHash: "new-hash", keeping: kept, at: Date())
            XCTAssertEqual(ended, [other])
            let keptRow = try await store.session(kept)
            let otherRow = try await store.session(other)
            XCTAssertNil(keptRow?.revokedAt, "the session asking stays signed in")
            XCTAssertNotNil(otherRow?.revokedAt)
            let saved = try await store.user(minaID)
            XCTAssertEqual(saved?.passwordHash, "new-hash")
            XCTAssertNil(app.sessionCache.user(session: session, userID: minaID, now: Date()), "the account's change is announced")
        }
    }
}

/// A count a `@Sendable` handler can move.
private final class SettledCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
