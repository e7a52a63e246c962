import Fluent
@testable import Mates
import MatesTesting
import Platform
import WhatWeEatTesting
import XCTVapor

/// Mates' rules over time, on the environment's clock (`MatesEnvironment`): searches nobody
/// renews stop after six hours, on every instance's sweep.
final class MatesClockTests: XCTestCase {
    func testASearchNobodyRenewsStopsAfterSixHoursAndARenewalKeepsIt() async throws {
        try await withTestApp { app in
            let clock = app.useTestClock()
            let mina = try await app.mate("미나")
            let joon = try await app.mate("준호")
            _ = try await app.search(mina)
            _ = try await app.search(joon)
            let service = MatesService(database: app.db, application: app)

            clock.advance(by: 3 * 3600)
            _ = try await app.search(joon)  // renewed: searching again from now
            clock.advance(by: 3 * 3600 - 60)
            let early = try await service.expireSearches()
            XCTAssertEqual(early, 0, "a minute before six hours, nobody is stopped")
            let searchingBefore = try await app.mateState(mina).state
            XCTAssertEqual(searchingBefore, "searching")
            let before = try await app.send(.GET, "/api/v1/mates/nearby?lat=\(MatesPlaces.cityHall.lat)&lon=\(MatesPlaces.cityHall.lon)", token: joon.token)
            XCTAssertTrue(try before.json(MatesJSON.Nearby.self).people.map(\.id).contains(mina.id), "shown while searching")

            clock.advance(by: 120)
            let stopped = try await service.expireSearches()
            XCTAssertEqual(stopped, 1, "only the search nobody renewed")
            let minaState = try await app.mateState(mina).state
            let joonState = try await app.mateState(joon).state
            XCTAssertEqual(minaState, "idle")
            XCTAssertEqual(joonState, "searching", "renewed three hours in")
            let nearby = try await app.send(.GET, "/api/v1/mates/nearby?lat=\(MatesPlaces.cityHall.lat)&lon=\(MatesPlaces.cityHall.lon)", token: joon.token)
            XCTAssertEqual(nearby.status, .ok, nearby.text)
            let shown = try nearby.json(MatesJSON.Nearby.self).people.map(\.id)
            XCTAssertFalse(shown.contains(mina.id), "a stopped search is not shown nearby")
        }
    }
}
