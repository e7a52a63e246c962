import Fluent
import MatesTesting
import Platform
@testable import SesacStudyApp
import WhatWeEatTesting
import XCTVapor

/// Every statement of `AppUserStore` (SQLite here, PostgreSQL in CI's second pass): uids found by
/// account and account by uid, the newest uid winning, and the networks noted, read, pruned and
/// forgotten as the socket binding relies on.
final class AppUserStoreTests: XCTestCase {
    private func appUser(_ uid: String, of account: UUID, createdAt: Date) -> MatesAppUser {
        MatesAppUser(uid: uid, userID: account, projectID: "sesac-test", phoneNumber: "+821012345678", email: "\(uid)@example.com",
                     fcmToken: "fcm", birth: Date(timeIntervalSince1970: 800_000_000), study: "", searchable: false, createdAccount: false,
                     settledMatchID: nil, socketCookieHandedAt: nil, createdAt: createdAt)
    }

    func testUIDsAndAccounts() async throws {
        try await withTestApp { app in
            let store = AppUserStore(database: app.db)
            let mina = try await app.member("미나"), joon = try await app.member("준호")
            try await store.create(appUser("uid-old", of: mina.id, createdAt: Date(timeIntervalSince1970: 1_800_000_000)))
            try await store.create(appUser("uid-new", of: mina.id, createdAt: Date(timeIntervalSince1970: 1_800_000_100)))
            try await store.create(appUser("uid-joon", of: joon.id, createdAt: Date(timeIntervalSince1970: 1_800_000_050)))

            let account = try await store.account(ofUID: "uid-old")
            XCTAssertEqual(account, mina.id)
            let unknown = try await store.account(ofUID: "nobody")
            XCTAssertNil(unknown)
            let uids = try await store.newestUIDs(of: [mina.id, joon.id, UUID()])
            XCTAssertEqual(uids, [mina.id: "uid-new", joon.id: "uid-joon"], "the newest uid of an account wins; accounts without one are absent")

            let found = try await store.appUser("uid-joon")
            let joons = try XCTUnwrap(found)
            XCTAssertNil(joons.socketCookieHandedAt)
            // A request read the row; its cookie is noted meanwhile; then the request writes.
            let handed = try await store.noteSocketCookieHanded(uid: "uid-joon", at: Date(timeIntervalSince1970: 1_800_000_200))
            XCTAssertTrue(handed)
            try await store.update(uid: joons.uid, [(.study, "스위프트"), (.fcmToken, "new-token")])
            let reread = try await store.appUser("uid-joon")
            let saved = try XCTUnwrap(reread)
            XCTAssertEqual([saved.study, saved.fcmToken], ["스위프트", "new-token"])
            XCTAssertEqual(saved.socketCookieHandedAt, Date(timeIntervalSince1970: 1_800_000_200),
                           "a write names its columns: the cookie noted after the read stays noted")
            try await store.delete(joons)
            let deleted = try await store.account(ofUID: "uid-joon")
            XCTAssertNil(deleted)
            let afterDeletion = try await store.newestUIDs(of: [joon.id])
            XCTAssertTrue(afterDeletion.isEmpty)
        }
    }

    func testNetworksAreNotedReadPrunedAndForgotten() async throws {
        try await withTestApp { app in
            let store = AppUserStore(database: app.db)
            let mina = try await app.member("미나")
            try await store.create(appUser("uid-a", of: mina.id, createdAt: Date()))
            try await store.create(appUser("uid-b", of: mina.id, createdAt: Date()))
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            try await store.noteSighting(uid: "uid-a", network: "10.0.0.0/24", at: start)
            try await store.noteSighting(uid: "uid-a", network: "10.0.1.0/24", at: start.addingTimeInterval(60))
            var latest = try await store.latestNetwork(of: "uid-a", since: start.addingTimeInterval(-1))
            XCTAssertEqual(latest, "10.0.1.0/24")
            try await store.noteSighting(uid: "uid-a", network: "10.0.0.0/24", at: start.addingTimeInterval(120))
            latest = try await store.latestNetwork(of: "uid-a", since: start.addingTimeInterval(-1))
            XCTAssertEqual(latest, "10.0.0.0/24", "noting a network again moves it up, not a second row")
            latest = try await store.latestNetwork(of: "uid-a", since: start.addingTimeInterval(120))
            XCTAssertNil(latest, "only sightings after the bound")

            try await store.noteSighting(uid: "uid-b", network: "10.0.2.0/24", at: start.addingTimeInterval(30))
            let pruned = try await store.pruneSightings(before: start.addingTimeInterval(60))
            XCTAssertEqual(pruned, 2, "uid-b's and uid-a's second network")
            latest = try await store.latestNetwork(of: "uid-b", since: start)
            XCTAssertNil(latest)

            try await store.noteSighting(uid: "uid-b", network: "10.0.2.0/24", at: start.addingTimeInterval(200))
            try await store.forgetSightings(uid: "uid-b")
            latest = try await store.latestNetwork(of: "uid-b", since: start)
            XCTAssertNil(latest)
            latest = try await store.latestNetwork(of: "uid-a", since: start)
            XCTAssertEqual(latest, "10.0.0.0/24", "another uid's networks stay")

            try await store.noteSighting(uid: "uid-b", network: "10.0.3.0/24", at: start.addingTimeInterval(300))
            try await store.forgetSightings(ofAccount: mina.id)
            for uid in ["uid-a", "uid-b"] {
                let gone = try await store.latestNetwork(of: uid, since: start)
                XCTAssertNil(gone, "every uid of the account")
            }
        }
    }
    /// Issue 56, item 2: that a uid was handed its binding cookie is written once (the first time
    /// says so); the migration marks the uids with a network on record (each such call was
    /// answered with the cookie) and leaves the others.
    func testTheCookieHandingIsNotedOnceAndTheMigrationMarksUIDsWithANetwork() async throws {
        try await withTestApp { app in
            let store = AppUserStore(database: app.db)
            let mina = try await app.member("미나")
            try await store.create(appUser("uid-called", of: mina.id, createdAt: Date()))
            try await store.create(appUser("uid-quiet", of: mina.id, createdAt: Date()))
            let first = try await store.noteSocketCookieHanded(uid: "uid-quiet", at: Date(timeIntervalSince1970: 1_800_000_000))
            let again = try await store.noteSocketCookieHanded(uid: "uid-quiet", at: Date(timeIntervalSince1970: 1_800_000_100))
            XCTAssertTrue(first)
            XCTAssertFalse(again, "written once")
            let quiet = try await store.appUser("uid-quiet")
            XCTAssertEqual(quiet?.socketCookieHandedAt?.timeIntervalSince1970 ?? 0, 1_800_000_000, accuracy: 0.001)

            // The upgrade: the column comes with the migration, marking the uids seen on a network.
            try await AddMatesAppUserSocketCookie().revert(on: app.db)
            try await store.noteSighting(uid: "uid-called", network: "203.0.113.7", at: Date(timeIntervalSince1970: 1_800_000_500))
            try await AddMatesAppUserSocketCookie().prepare(on: app.db)
            let called = try await store.appUser("uid-called")
            XCTAssertEqual(called?.socketCookieHandedAt?.timeIntervalSince1970 ?? 0, 1_800_000_500, accuracy: 0.001)
            let unmarked = try await store.appUser("uid-quiet")
            XCTAssertNil(unmarked?.socketCookieHandedAt, "a uid with no network on record is left as it was (no column before)")
        }
    }
}
