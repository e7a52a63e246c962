import Mates
import Platform
import SesacStudyApp
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTest

/// 24-hex ids of our UUIDs (`ObjectID`), as both seed apps' servers gave them out.
final class ObjectIDTests: XCTestCase {
    func testAnIDIsTheFirst96BitsInLowerCaseHexAndNamesItsUUIDsRange() throws {
        for _ in 0..<1_000 {
            let uuid = UUID()
            let id = ObjectID.of(uuid)
            XCTAssertEqual(id, String(uuid.uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(24)))
            let range = try XCTUnwrap(ObjectID.range(id))
            XCTAssertLessThanOrEqual(range.lower.uuidString, uuid.uuidString)
            XCTAssertGreaterThanOrEqual(range.upper.uuidString, uuid.uuidString)
        }
        XCTAssertEqual(ObjectID.of(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))), String(repeating: "0", count: 24))
        for notAnID in ["", "66d6c7cedfc6560142283221x", "66D6C7CEDFC6560142283221".replacingOccurrences(of: "6", with: "g"), "not-an-id"] {
            XCTAssertNil(ObjectID.range(notAnID), notAnID)
        }
    }
}
