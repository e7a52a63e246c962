import Accounts
import Fluent
@testable import Mates
import MatesTesting
import Platform
import SesacStudyApp
import SocketIO
import WhatWeEatTesting
import XCTVapor

/// The 2026-11-26 probe, item 2: anyone verified located a searching person to half a metre, by
/// asking `/nearby` from three made-up points (distances to the metre), and the apps' search
/// answered everyone's exact position. Now every answer is computed from a public position (the
/// person's 200 m square, moved by an offset fixed for the search), distances come in 100 m
/// steps, and someone searching is answered from where they search, whatever point they name.
final class MatesLocationPrivacyTests: XCTestCase {
    /// Metres east and north of City Hall.
    static func local(_ point: Coordinate) -> (x: Double, y: Double) {
        let origin = MatesPlaces.cityHall
        return ((point.lon - origin.lon) * 111_320 * cos(origin.lat * .pi / 180), (point.lat - origin.lat) * 111_320)
    }

    static func point(x: Double, y: Double) -> (lat: Double, lon: Double) {
        let origin = MatesPlaces.cityHall
        return (origin.lat + y / 111_320, origin.lon + x / (111_320 * cos(origin.lat * .pi / 180)))
    }

    /// Least-squares trilateration (Gauss–Newton from the probes' centre): where a person is, from
    /// distances to them measured at known points.
    static func trilaterate(_ samples: [(probe: (x: Double, y: Double), distance: Double)]) -> (x: Double, y: Double) {
        var x = samples.map(\.probe.x).reduce(0, +) / Double(samples.count)
        var y = samples.map(\.probe.y).reduce(0, +) / Double(samples.count)
        for _ in 0..<50 {
            var (a11, a12, a22, b1, b2) = (0.0, 0.0, 0.0, 0.0, 0.0)
            for sample in samples {
                let dx = x - sample.probe.x, dy = y - sample.probe.y
                let range = max(1, (dx * dx + dy * dy).squareRoot())
                let (jx, jy, residual) = (dx / range, dy / range, range - sample.distance)
                a11 += jx * jx; a12 += jx * jy; a22 += jy * jy; b1 += jx * residual; b2 += jy * residual
            }
            let determinant = a11 * a22 - a12 * a12
            guard abs(determinant) > 1e-9 else { break }
            x -= (a22 * b1 - a12 * b2) / determinant
            y -= (a11 * b2 - a12 * b1) / determinant
        }
        return (x, y)
    }

    func testNobodyIsLocatedMorePreciselyThanTheirSquare() async throws {
        try await withTestApp { app in
            let spy = try await app.mate("탐정")
            // Eight people searching at points the test knows, within 300 m of City Hall.
            var victims: [(member: Member, at: (x: Double, y: Double))] = []
            for index in 0..<8 {
                let member = try await app.mate("사람\(index)")
                let at = (x: Double.random(in: -300...300), y: Double.random(in: -300...300))
                try await app.search(member, at: Self.point(x: at.x, y: at.y))
                victims.append((member, at))
            }
            // The spy, not searching, asks from twelve points on a 700 m circle.
            var samples: [UUID: [(probe: (x: Double, y: Double), distance: Double)]] = [:]
            for step in 0..<12 {
                let angle = Double(step) / 12 * 2 * .pi
                let probe = (x: 700 * cos(angle), y: 700 * sin(angle))
                let point = Self.point(x: probe.x, y: probe.y)
                let answer = try await app.send(.GET, "\(Application.mates)/nearby?lat=\(point.lat)&lon=\(point.lon)", token: spy.token)
                XCTAssertEqual(answer.status, .ok, answer.text)
                for person in try answer.json(MatesJSON.Nearby.self).people {
                    let meters = try XCTUnwrap(person.distanceMeters)
                    XCTAssertEqual(meters % 100, 0, "distances come in 100 m steps")
                    samples[person.id, default: []].append((probe, Double(meters)))
                }
            }
            var errors: [Double] = []
            for victim in victims {
                let measured = try XCTUnwrap(samples[victim.member.id], "every victim is within the radius of every probe")
                XCTAssertEqual(measured.count, 12)
                let estimate = Self.trilaterate(measured)
                errors.append(((estimate.x - victim.at.x) * (estimate.x - victim.at.x) + (estimate.y - victim.at.y) * (estimate.y - victim.at.y)).squareRoot())
                // What an attacker can find is the public position, and it is never the person's
                // point more precisely than their square: it lies within the square's half-diagonal
                // plus the offset of them.
                let profile = try await MatesStore(database: app.db, application: app).model(victim.member.id)
                let real = Coordinate(unchecked: try XCTUnwrap(profile?.lat), try XCTUnwrap(profile?.lon))
                let shown = SearchPositionBlur.publicPosition(of: real, person: victim.member.id, since: try XCTUnwrap(profile?.queuedAt))
                XCTAssertLessThan(real.distanceMeters(to: shown), 100 * 2.squareRoot() + 80 * 2.squareRoot() + 1)
                let toShown = ((estimate.x - Self.local(shown).x) * (estimate.x - Self.local(shown).x)
                               + (estimate.y - Self.local(shown).y) * (estimate.y - Self.local(shown).y)).squareRoot()
                XCTAssertLessThan(toShown, 60, "the estimate converges on the public position, not the person")
            }
            // Before the fix the median error was half a metre; a square of 200 m leaves tens of metres.
            let median = errors.sorted()[errors.count / 2]
            XCTAssertGreaterThan(median, 30, "trilateration came within \(errors.map { Int($0) }) m")

            // Searching, the spy is answered from where she searches: naming other points changes nothing.
            try await app.search(spy, at: MatesPlaces.cityHall)
            var answers: Set<[Int]> = []
            for probe in [MatesPlaces.cityHall, MatesPlaces.east(900), Self.point(x: -600, y: 600)] {
                let answer = try await app.send(.GET, "\(Application.mates)/nearby?lat=\(probe.lat)&lon=\(probe.lon)", token: spy.token)
                let people = try answer.json(MatesJSON.Nearby.self).people.sorted { $0.id.uuidString < $1.id.uuidString }
                answers.insert(people.map { $0.distanceMeters ?? -1 })
            }
            XCTAssertEqual(answers.count, 1, "the same distances from wherever she says she is")
        }
    }

    /// The apps' search answered exact positions, web users' included: now the public ones,
    /// the same for the whole search.
    func testTheAppsSearchShowsPublicPositionsStableForTheSearch() async throws {
        try await withSesacApp { app, firebase in
            let looker = try SesacAppClient(app: app, firebase: firebase)
            try await looker.signUp(nick: "찾는사람")
            let webUser = try await app.mate("웹사람")
            let exact = (lat: 37.556789, lon: 126.923456)
            try await app.search(webUser, at: exact)
            var seen: Set<String> = []
            for _ in 0..<3 {
                let answer = try await looker.call(.POST, "/v1/queue/search", form: "lat=37.5566&long=126.9234")
                XCTAssertEqual(answer.status, .ok, answer.text)
                let people = try XCTUnwrap(try answer.object()["fromQueueDB"] as? [[String: Any]])
                let person = try XCTUnwrap(people.first)
                let lat = try XCTUnwrap(person["lat"] as? Double), long = try XCTUnwrap(person["long"] as? Double)
                XCTAssertNotEqual(lat, exact.lat)
                XCTAssertNotEqual(long, exact.lon)
                seen.insert("\(lat),\(long)")
                let profile = try await MatesStore(database: app.db, application: app).model(webUser.id)
                let shown = SearchPositionBlur.publicPosition(of: Coordinate(unchecked: exact.lat, exact.lon), person: webUser.id,
                                                              since: try XCTUnwrap(profile?.queuedAt))
                XCTAssertEqual(lat, shown.lat, accuracy: 1e-9)
                XCTAssertEqual(long, shown.lon, accuracy: 1e-9)
            }
            XCTAssertEqual(seen.count, 1, "one position for the whole search")
        }
    }
}
