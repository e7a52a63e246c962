import Fluent
@testable import Mates
import Platform
import WhatWeEatTesting
import XCTVapor

/// `MatesStore` is the one owner of `mates_profiles`: every statement it has runs here (on SQLite,
/// and on PostgreSQL in CI's second pass), each row it reads in place of the model says what the
/// model says, and every write announces itself so the memories (each person's record, the
/// searching index) follow without anyone else telling them.
final class MatesStoreTests: XCTestCase {
    /// The row reads (`readSnapshot`, the remembered `record`, `searchingEntries`, `person`) say
    /// what the model says in every state the pages show.
    func testTheRowsSayWhatTheModelSays() async throws {
        try await withTestApp { app in
            let store = MatesStore(database: app.db, application: app)
            let index = try await MatesService(database: app.db, application: app).loadedIndex()
            func check(_ member: Member, _ note: String) async throws {
                let found = try await store.model(member.id)
                let model = try XCTUnwrap(found, note)
                let snapshot = try model.snapshot
                let row = try await store.readSnapshot(member.id)
                XCTAssertEqual(row, snapshot, note)
                let remembered = try await store.snapshot(member.id)
                XCTAssertEqual(remembered, snapshot, "\(note): the record follows the writes")
                let seen = try await store.person(member.id)
                let person = try XCTUnwrap(seen, note)
                XCTAssertEqual(person.nickname, member.nickname, note)
                XCTAssertEqual([person.gender, person.topics.joined(separator: ",")], [model.gender, model.topics.joined(separator: ",")], note)
                XCTAssertEqual([person.avatar, person.background] + person.reputation, [model.avatar, model.background] + model.reputation, note)
                let states = try await store.states(of: [member.id, UUID()])
                XCTAssertEqual(states, [member.id: model.matesState], note)
                let entries = try await store.searchingEntries(only: member.id)
                if model.matesState == .searching, model.suspendedAt == nil {
                    let entry = try XCTUnwrap(entries.first, note)
                    XCTAssertEqual(entry.nickname, member.nickname, note)
                    XCTAssertEqual([entry.birthYear, entry.ageMin, entry.ageMax], [model.birthYear, model.ageMin, model.ageMax], note)
                    XCTAssertEqual(entry.reputation, model.reputation, note)
                    XCTAssertEqual(index.entry(member.id)?.topics, entry.topics, "\(note): the index holds what the row says")
                } else {
                    XCTAssertEqual(entries.count, 0, "\(note): only searching people are entries")
                    XCTAssertNil(index.entry(member.id), "\(note): the index let them go")
                }
            }
            XCTAssertThrowsError(try MatesProfile().snapshot, "an unsaved profile has no id to show, and gets no random one")
            let asker = try await app.mate("스냅샷하나", birthYear: 1990, gender: "male", ageMin: 20, ageMax: 40)
            let accepter = try await app.mate("스냅샷둘")
            try await check(asker, "verified, idle")
            try await app.search(asker, topics: ["스위프트", "카공"])
            try await check(asker, "searching, with topics and a queue time")
            let searching = try await store.snapshot(asker.id)?.standing
            XCTAssertEqual(searching?.searchPosition?.lat ?? 0, MatesPlaces.cityHall.lat, accuracy: 1e-9, "the gate's standing measures from where one searches")
            let match = try await app.matchPair(asker, accepter)
            try await check(asker, "matched")
            let awaited1 = try await store.snapshot(asker.id)?.standing.searchPosition
            XCTAssertNil(awaited1, "no longer searching")
            let found = try await store.model(asker.id)
            let model = try XCTUnwrap(found)
            XCTAssertEqual(model.matchID, match)
            model.searchBlockedUntil = Date().addingTimeInterval(3600)
            try await store.save(model)
            let awaited2 = try await store.suspend(asker.id, at: Date())
            XCTAssertTrue(awaited2)
            try await check(asker, "suspended and blocked from searching")
            let awaited3 = try await store.suspend(asker.id, at: Date())
            XCTAssertFalse(awaited3, "suspended once")
            let awaited4 = try await store.readSnapshot(UUID())
            XCTAssertNil(awaited4)
            let awaited5 = try await store.snapshot(UUID())
            XCTAssertNil(awaited5, "an account without a profile has no record")
            let awaited6 = try await store.exists(UUID())
            XCTAssertFalse(awaited6)
        }
    }

    /// Each write changes what it says and announces the person: the record read before it is
    /// forgotten, the searching index follows, nobody else tells them.
    func testEveryWriteIsAnnounced() async throws {
        try await withTestApp { app in
            let store = MatesStore(database: app.db, application: app)
            let index = try await MatesService(database: app.db, application: app).loadedIndex()
            let one = try await app.mate("알림하나"), two = try await app.mate("알림둘")
            func record(_ member: Member) async throws -> MatesOwnRecord {
                let found = try await store.record(member.id)
                return try XCTUnwrap(found)
            }

            _ = try await record(one)
            let started = try await store.startSearching(one.id, at: Coordinate(unchecked: MatesPlaces.cityHall.lat, MatesPlaces.cityHall.lon),
                                                         topics: ["독서"], now: Date())
            XCTAssertTrue(started)
            let awaited8 = try await record(one).profile.state
            XCTAssertEqual(awaited8, .searching)
            XCTAssertEqual(index.entry(one.id)?.topics, ["독서"], "the index took the search at once")

            let awaited9 = try await store.stopSearching(one.id)
            XCTAssertTrue(awaited9)
            let awaited10 = try await record(one).profile.state
            XCTAssertEqual(awaited10, .idle)
            XCTAssertNil(index.entry(one.id))

            let start = Coordinate(unchecked: MatesPlaces.cityHall.lat, MatesPlaces.cityHall.lon)
            _ = try await store.startSearching(one.id, at: start, topics: [], now: Date().addingTimeInterval(-7 * 3600))
            _ = try await store.startSearching(two.id, at: start, topics: [], now: Date())
            let awaited11 = try await store.stopSearches(renewedBefore: Date().addingTimeInterval(-6 * 3600))
            XCTAssertEqual(awaited11, [one.id], "only the stale search")
            let awaited12 = try await record(one).profile.state
            XCTAssertEqual(awaited12, .idle)
            let awaited13 = try await record(two).profile.state
            XCTAssertEqual(awaited13, .searching)

            _ = try await store.startSearching(one.id, at: start, topics: [], now: Date())
            let match = UUID()
            let awaited14 = try await store.moveToMatch(one.id, match: match)
            XCTAssertTrue(awaited14)
            let awaited15 = try await store.startSearching(one.id, at: start, topics: [], now: Date())
            XCTAssertFalse(awaited15, "a matched person cannot search")
            let awaited16 = try await store.stopSearching(one.id)
            XCTAssertFalse(awaited16, "nor stop")
            let awaited17 = try await store.moveToMatch(one.id, match: UUID())
            XCTAssertFalse(awaited17, "nor be matched twice")
            let awaited18 = try await record(one).profile.matchID
            XCTAssertEqual(awaited18, match)
            XCTAssertNil(index.entry(one.id))
            try await store.leaveMatch(match)
            let left = try await record(one).profile
            XCTAssertEqual([left.state.rawValue, left.matchID?.uuidString ?? "none"], ["idle", "none"])

            try await store.addReputation(two.id, picked: [0, 5])
            let awaited19 = try await record(two).profile.reputation
            XCTAssertEqual(awaited19, [1, 0, 0, 0, 0, 1])
            XCTAssertEqual(index.entry(two.id)?.reputation, [1, 0, 0, 0, 0, 1], "others see the reputation at once")

            let until = Date().addingTimeInterval(600)
            try await store.blockSearching(two.id, until: until)
            let awaited20 = try await record(two).profile.searchBlockedUntil?.timeIntervalSince1970 ?? 0
            XCTAssertEqual(awaited20, until.timeIntervalSince1970, accuracy: 0.001)
            try await store.blockSearching(two.id, until: nil)
            let awaited21 = try await record(two).profile.searchBlockedUntil
            XCTAssertNil(awaited21)

            let awaited22 = try await store.suspend(two.id, at: Date())
            XCTAssertTrue(awaited22)
            let awaited23 = try await record(two).profile.suspended
            XCTAssertTrue(awaited23)
            XCTAssertNil(index.entry(two.id), "a suspended person leaves the index")
            let lifted = try await store.liftSuspension(two.id, at: Date())
            XCTAssertNotNil(lifted?.reportsClearedAt)
            let awaited24 = try await record(two).profile.suspended
            XCTAssertFalse(awaited24)
            let awaited25 = try await store.liftSuspension(UUID(), at: Date())
            XCTAssertNil(awaited25)

            let twoModel = try await store.model(two.id)
            let model = try XCTUnwrap(twoModel)
            model.avatar = 3
            try await store.save(model)
            let awaited26 = try await record(two).profile.avatar
            XCTAssertEqual(awaited26, 3)

            let holding = try await store.holder(ofDestination: model.verifiedDestinationHash)
            let holder = try XCTUnwrap(holding)
            XCTAssertEqual(holder.id, two.id)
            let again = try await store.markVerified(one.id, channel: .email, destinationHash: "store-test", masked: "s***@example.com")
            XCTAssertEqual(again.verifiedMasked, "s***@example.com")
            let awaited27 = try await record(one).profile.verifiedMasked
            XCTAssertEqual(awaited27, "s***@example.com")
            do {
                _ = try await store.markVerified(two.id, channel: .email, destinationHash: "store-test", masked: "x")
                XCTFail("one destination verifies one account")
            } catch let error as AppError {
                XCTAssertEqual(error.code, "destination_in_use")
            }
            let awaited28 = try await record(two).profile.verifiedChannel
            XCTAssertEqual(awaited28, "phone", "the refused write changed nothing")
        }
    }

    /// Inside `transaction` the memories hear of a change only once it committed; a rollback tells
    /// them nothing, and leaves nothing half-written.
    func testATransactionAnnouncesAfterItsCommit() async throws {
        try await withTestApp { app in
            let store = MatesStore(database: app.db, application: app)
            let member = try await app.mate("거래")
            _ = try await store.record(member.id)
            let start = Coordinate(unchecked: MatesPlaces.cityHall.lat, MatesPlaces.cityHall.lon)
            struct Abandoned: Error {}
            do {
                try await store.transaction { inner in
                    _ = try await inner.startSearching(member.id, at: start, topics: [], now: Date())
                    XCTAssertNotNil(app.matesRecords.value(for: member.id), "not announced before the commit")
                    throw Abandoned()
                }
                XCTFail("the transaction was abandoned")
            } catch is Abandoned {}
            XCTAssertNotNil(app.matesRecords.value(for: member.id), "a rollback announces nothing")
            let awaited29 = try await store.readSnapshot(member.id)?.state
            XCTAssertEqual(awaited29, .idle, "and writes nothing")

            try await store.transaction { inner in
                _ = try await inner.startSearching(member.id, at: start, topics: [], now: Date())
            }
            XCTAssertNil(app.matesRecords.value(for: member.id), "announced once committed")
            let awaited30 = try await store.record(member.id)?.profile.state
            XCTAssertEqual(awaited30, .searching)
        }
    }

    /// Another instance's announcement (the event bus) makes this one forget the person, and the
    /// last ended match is part of the record (the state reads it from memory).
    func testAnnouncementsFromElsewhereAndTheLastEndedMatch() async throws {
        try await withTestApp { app in
            let store = MatesStore(database: app.db, application: app)
            let one = try await app.mate("끝하나"), two = try await app.mate("끝둘")
            let awaited31 = try await store.record(one.id)?.lastEnded
            XCTAssertNil(awaited31)
            await app.events.publish(one.id.uuidString, to: MatesStore.topic)
            try await waitUntil { app.matesRecords.value(for: one.id) == nil }
            let match = try await app.matchPair(one, two)
            let finished = try await app.send(.POST, "/api/v1/mates/match/finish", token: one.token)
            XCTAssertEqual(finished.status, .ok, finished.text)
            for member in [one, two] {
                let ended = try await store.record(member.id)?.lastEnded
                XCTAssertEqual(ended?.id, match, "both records know the match ended")
                let awaited32 = try await store.readLastEndedMatch(member.id)
                XCTAssertEqual(ended, awaited32)
            }
            let state = try await app.mateState(two)
            XCTAssertEqual(state.lastMatch?.matchId, match, "the state shows the ended match for review")
        }
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<200 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertTrue(condition(), "within two seconds")
    }
}
