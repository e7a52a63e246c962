import Fluent
@testable import Mates
import MatesTesting
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
                let snapshot = model.snapshot
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
            var model = try XCTUnwrap(found)
            XCTAssertEqual(model.matchID, match)
            model.searchBlockedUntil = Date().addingTimeInterval(3600)
            try await store.save(model, columns: [.searchBlockedUntil])
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
            var model = try XCTUnwrap(twoModel)
            // Another request blocks the search after this one read the row: its save names its columns.
            let blockedUntil = Date(timeIntervalSince1970: 1_900_000_000)
            try await store.blockSearching(two.id, until: blockedUntil)
            model.avatar = 3
            try await store.save(model, columns: [.avatar])
            let awaited26 = try await record(two).profile
            XCTAssertEqual(awaited26.avatar, 3)
            XCTAssertEqual(awaited26.searchBlockedUntil, blockedUntil, "a column the save did not name keeps what another write left")

            let holding = try await store.holder(ofDestination: model.verifiedDestinationHash)
            XCTAssertEqual(holding, two.id)
            let nobody = try await store.holder(ofDestination: "no-such-destination")
            XCTAssertNil(nobody)
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

    /// The profile writes of a 새싹 스터디 app's sign-up: a profile verified by the app's phone
    /// sign-in (made with the app's gender and birth year), and filling in what a profile the web
    /// verified lacks without overwriting what it has. Both are announced.
    func testTheAppSignUpsProfileWrites() async throws {
        try await withTestApp { app in
            let store = MatesStore(database: app.db, application: app)
            let newcomer = try await app.member("앱가입"), other = try await app.member("앱가입둘")
            let missing = try await store.record(newcomer.id)
            XCTAssertNil(missing, "no profile before the sign-up")
            try await store.createVerified(newcomer.id, channel: .phone, destinationHash: "app-sign-up", masked: "+82 10-****-5678",
                                           gender: .male, birthYear: 1990)
            let madeRecord = try await store.record(newcomer.id)
            let made = try XCTUnwrap(madeRecord?.profile, "announced: the record is read again")
            XCTAssertEqual([made.gender, made.verifiedChannel, made.verifiedMasked], ["male", "phone", "+82 10-****-5678"])
            XCTAssertEqual(made.birthYear, 1990)
            XCTAssertEqual(made.state, .idle)
            let found = try await store.model(newcomer.id)
            XCTAssertEqual(try XCTUnwrap(found).snapshot, made, "the row says what the model says")
            let holder = try await store.holder(ofDestination: "app-sign-up")
            XCTAssertEqual(holder, newcomer.id)
            do {
                try await store.createVerified(other.id, channel: .phone, destinationHash: "app-sign-up", masked: "x", gender: .female, birthYear: 1991)
                XCTFail("one destination verifies one account")
            } catch let error as AppError {
                XCTAssertEqual(error.code, "destination_in_use")
            }
            let othersRecord = try await store.record(other.id)
            XCTAssertNil(othersRecord, "the refused write made nothing")

            // The web verified first and set nothing: the app's values fill in.
            _ = try await store.markVerified(other.id, channel: .email, destinationHash: "web-first", masked: "w***@example.com")
            try await store.fillIn(other.id, gender: .female, birthYear: 1993)
            let filledRecord = try await store.record(other.id)
            let filled = try XCTUnwrap(filledRecord?.profile)
            XCTAssertEqual(filled.gender, "female")
            XCTAssertEqual(filled.birthYear, 1993)
            // What the profile has stays.
            try await store.fillIn(other.id, gender: .male, birthYear: 1980)
            let keptRecord = try await store.record(other.id)
            XCTAssertEqual(keptRecord?.profile.gender, "female")
            XCTAssertEqual(keptRecord?.profile.birthYear, 1993)
            // Nothing without a profile.
            try await store.fillIn(UUID(), gender: .male, birthYear: 1980)
        }
    }

    /// The service's calls by account id (the apps' layer holds ids, never mates' models) do what
    /// the profile calls do, and answer 403 for an account that never verified.
    func testTheServiceByAccountID() async throws {
        try await withTestApp { app in
            let service = MatesService(database: app.db, application: app)
            let one = try await app.mate("아이디하나"), two = try await app.mate("아이디둘")
            let stranger = try await app.member("미인증")
            let cityHall = Coordinate(unchecked: MatesPlaces.cityHall.lat, MatesPlaces.cityHall.lon)
            try await service.startSearching(user: one.id, at: cityHall, topics: ["독서"])
            try await service.startSearching(user: two.id, at: cityHall, topics: [])
            let searching = try await service.profileSnapshot(one.id).state
            XCTAssertEqual(searching, .searching)
            let asked = try await service.requestMatch(from: one.id, to: two.id)
            XCTAssertNil(asked, "a first request matches nobody")
            let answered = try await service.requestMatch(from: two.id, to: one.id)
            let match = try XCTUnwrap(answered, "asking back is accepting")
            let matched = try await service.isMatched(one.id, with: two.id)
            XCTAssertTrue(matched)
            let ended = try await service.endMatch(of: one.id, dodged: false)
            XCTAssertEqual(ended.id, match.id)
            XCTAssertEqual(ended.endReason, "finished")
            let after = try await service.isMatched(one.id, with: two.id)
            XCTAssertFalse(after)
            try await service.startSearching(user: one.id, at: cityHall, topics: [])
            try await service.stopSearching(user: one.id)
            let idle = try await service.profileSnapshot(one.id).state
            XCTAssertEqual(idle, .idle)
            let worn = try await service.collection(of: one.id)
            XCTAssertEqual([worn.avatar, worn.background], [0, 0])
            XCTAssertEqual(worn.avatars, [0])
            let reports = try await service.countedReports(of: one.id)
            XCTAssertEqual(reports, 0)
            for call in [{ try await service.stopSearching(user: stranger.id) },
                         { _ = try await service.collection(of: stranger.id) },
                         { _ = try await service.equip(avatar: 0, background: nil, for: stranger.id) }] as [@Sendable () async throws -> Void] {
                do {
                    try await call()
                    XCTFail("an account that never verified")
                } catch let error as AppError {
                    XCTAssertEqual(error.code, "verification_required")
                }
            }
        }
    }

    /// Inside `transaction` the memories hear of a change only once it committed; a rollback tells
    /// them nothing, and leaves nothing half-written.
    func testATransactionAnnouncesAfterItsCommit() async throws {
        try await withTestApp { app in
            let member = try await app.mate("거래")
            // A memory that hears only the store's own forgets: on PostgreSQL the echo of the
            // profile's earlier announcement may arrive over LISTEN at any moment and empty the
            // shared one, which would read as an announcement before the commit. (A store takes
            // its environment when made: this one is made after.)
            app.matesRecords = PersonMemory(topic: MatesStore.topic, lifetime: 300)
            let store = MatesStore(database: app.db, application: app)
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
