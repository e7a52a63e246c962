@testable import BurgerMap
import BurgerMapTesting
import WhatWeEatTesting
import XCTest

/// What is kept per place is current while its place's version and the version of everything
/// stand; announcements from other instances move them as a local write does.
final class PlaceVersionsTests: XCTestCase {
    func testAPlaceMovesAloneAndEverythingMovesAll() {
        let versions = PlaceVersions()
        let (a, b) = (UUID(), UUID())
        let before = versions.versions(of: [a, b])
        versions.changed([a])
        XCTAssertNotEqual(versions.version(of: a), before[0])
        XCTAssertEqual(versions.version(of: b), before[1])
        versions.changedEverything()
        XCTAssertNotEqual(versions.version(of: b), before[1])
    }

    func testAnnouncementsNameThePlacesOrEverything() {
        let versions = PlaceVersions()
        let (a, b) = (UUID(), UUID())
        let start = versions.versions(of: [a, b])

        versions.apply(message: PlaceVersions.message(places: []))
        XCTAssertEqual(versions.versions(of: [a, b]), start, "a like or a comment changes no place")

        versions.apply(message: PlaceVersions.message(places: [b]))
        XCTAssertEqual(versions.version(of: a), start[0])
        XCTAssertNotEqual(versions.version(of: b), start[1])

        let onlyB = versions.versions(of: [a, b])
        versions.apply(message: PlaceVersions.message(places: nil))
        XCTAssertTrue(zip(versions.versions(of: [a, b]), onlyB).allSatisfy { $0 != $1 }, "\"changed\": every place")

        for garbled in ["places:not-a-uuid", "something else", ""] {
            let seen = versions.version(of: a)
            versions.apply(message: garbled)
            XCTAssertNotEqual(versions.version(of: a), seen, "\(garbled): an announcement it cannot read counts as everything")
        }
    }
}
