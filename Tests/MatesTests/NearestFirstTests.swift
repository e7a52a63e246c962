@testable import Mates
import XCTest

final class NearestFirstTests: XCTestCase {
    /// The heap keeps exactly what sorting everything and taking the first `limit` keeps.
    func testTheNearestAreWhatAFullSortWouldGive() {
        var generator = SystemRandomNumberGenerator()
        for count in [0, 1, 5, 49, 50, 51, 200, 1_500] {
            for limit in [0, 1, 7, 50, 2_000] {
                let found = (0..<count).map { (position: $0, meters: Double(Int.random(in: 0...300, using: &generator))) }
                let expected = found.sorted { $0.meters < $1.meters || ($0.meters == $1.meters && $0.position < $1.position) }.prefix(limit)
                let got = SearchingIndex.nearest(found, limit: limit)
                XCTAssertEqual(got.map(\.position), expected.map(\.position), "count \(count), limit \(limit)")
            }
        }
    }
}
