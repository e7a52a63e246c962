@testable import Mates
import MatesTesting
import Platform
import WhatWeEatTesting
import XCTest

/// The nearby scan walks a grid and measures by chords on the unit sphere; what it answers must be
/// what measuring everyone with haversine answers: the same people in range, the nearest first,
/// the same most wanted topics.
final class SearchingIndexGridTests: XCTestCase {
    func testTheGridAnswersWhatMeasuringEveryoneAnswers() {
        var generator = SystemRandomNumberGenerator()
        let topics = ["Swift", "알고리즘", "iOS", "SwiftUI", "CS", "영어", "면접", "Kotlin", "밥", "커피"]
        let people = (0..<5_000).map { index in
            SearchingIndex.Entry(
                id: UUID(), nickname: "새싹\(index)", gender: index.isMultiple(of: 2) ? "female" : "male",
                birthYear: Int.random(in: 1970...2008, using: &generator), ageMin: Int.random(in: 18...30, using: &generator),
                ageMax: Int.random(in: 30...70, using: &generator), searchable: Int.random(in: 0..<10, using: &generator) > 0,
                topics: Array(topics.shuffled(using: &generator).prefix(Int.random(in: 0...4, using: &generator))),
                reputation: [0, 0, 0, 0, 0, 0], avatar: 0, background: 0,
                // ±4 km around City Hall, some at the same points (blurred squares share them).
                lat: 37.5665 + Double(Int.random(in: -360...360, using: &generator)) / 10_000,
                lon: 126.9780 + Double(Int.random(in: -450...450, using: &generator)) / 10_000,
                queuedAt: Date())
        }
        let index = SearchingIndex()
        index.replace(with: people)
        XCTAssertEqual(index.count, people.count)

        for query in 0..<60 {
            let viewer = SearchingIndex.Viewer(id: people[query].id, age: Int.random(in: 20...45, using: &generator),
                                               range: 18...Int.random(in: 30...70, using: &generator), year: 2026)
            let point = Coordinate(unchecked: 37.5665 + Double.random(in: -0.03...0.03, using: &generator),
                                   126.9780 + Double.random(in: -0.04...0.04, using: &generator))
            let radius = [300.0, 1_500, 3_000][query % 3]
            let limit = [5, 50, 1_000][query % 3]
            let answer = index.nearby(point, radiusMeters: radius, viewer: viewer, limit: limit, topics: 8)

            let inRange = people.filter { person in
                person.id != viewer.id && viewer.sees(SearchingIndex.Filter(person)) && point.distanceMeters(to: person.coordinate) <= radius
            }
            let distances = answer.people.map { $0.meters }
            XCTAssertEqual(answer.people.count, min(limit, inRange.count), "query \(query)")
            XCTAssertEqual(distances, distances.sorted(), "nearest first")
            for (entry, meters) in answer.people {
                XCTAssertEqual(meters, point.distanceMeters(to: entry.coordinate), "haversine, as before")
            }
            if let farthestShown = distances.last {
                let shown = Set(answer.people.map { $0.entry.id })
                let nearestLeftOut = inRange.filter { !shown.contains($0.id) }.map { point.distanceMeters(to: $0.coordinate) }.min()
                XCTAssertLessThanOrEqual(farthestShown, (nearestLeftOut ?? .infinity) + 1e-6, "none nearer left out")
            }
            XCTAssertEqual(answer.mostWanted, TopicRanking.mostWanted(inRange.map(\.topics), limit: 8), "query \(query)")
        }
    }
}
