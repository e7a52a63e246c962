import Fluent
import Mates
import Platform
import WhatWeEatTesting
import XCTVapor

/// The pages read a person's own profile as one written-out row (`profileSnapshot`); it must say
/// what the model says in every state the pages show.
final class MatesProfileSnapshotTests: XCTestCase {
    func testTheRowSaysWhatTheModelSays() async throws {
        try await withTestApp { app in
            let service = MatesService(database: app.db, application: app)
            func check(_ member: Member, _ note: String) async throws {
                let model = try await service.verifiedProfile(member.id)
                let row = try await service.profileSnapshot(member.id)
                let snapshot = try model.snapshot
                XCTAssertEqual(row, snapshot, note)
            }
            XCTAssertThrowsError(try MatesProfile().snapshot, "an unsaved profile has no id to show, and gets no random one")
            let asker = try await app.mate("스냅샷하나", birthYear: 1990, gender: "male", ageMin: 20, ageMax: 40)
            let accepter = try await app.mate("스냅샷둘")
            try await check(asker, "verified, idle")
            try await app.search(asker, topics: ["스위프트", "카공"])
            try await check(asker, "searching, with topics and a queue time")
            let searching = try await service.profileSnapshot(asker.id).standing
            XCTAssertEqual(searching.searchPosition?.lat ?? 0, MatesPlaces.cityHall.lat, accuracy: 1e-9, "the gate's standing measures from where one searches")
            let match = try await app.matchPair(asker, accepter)
            try await check(asker, "matched")
            let matched = try await service.profileSnapshot(asker.id).standing
            XCTAssertNil(matched.searchPosition, "no longer searching")
            let model = try await service.verifiedProfile(asker.id)
            XCTAssertEqual(model.matchID, match)
            model.suspendedAt = Date()
            model.searchBlockedUntil = Date().addingTimeInterval(3600)
            try await model.save(on: app.db)
            try await check(asker, "suspended and blocked from searching")
            do {
                _ = try await service.profileSnapshot(UUID())
                XCTFail("an account without a profile has no snapshot")
            } catch let error as AppError {
                XCTAssertEqual(error.code, "verification_required")
            }
        }
    }
}
