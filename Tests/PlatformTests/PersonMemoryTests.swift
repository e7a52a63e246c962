import Foundation
@testable import Platform
import XCTest

/// `PersonMemory.values`: those remembered are not read again, the missing are read in one go,
/// and a read that began before a change is not kept.
final class PersonMemoryTests: XCTestCase {
    func testSeveralPeopleAreReadOnlyForWhoIsMissing() async throws {
        let memory = PersonMemory<String>(topic: "test.people", lifetime: 60)
        let (one, two, three) = (UUID(), UUID(), UUID())
        memory.remember("one", for: one, readAt: memory.generation)
        var asked: [[UUID]] = []
        let first = await memory.values(for: [one, two, three, two]) { missing in
            asked.append(missing.sorted { $0.uuidString < $1.uuidString })
            return Dictionary(uniqueKeysWithValues: missing.map { ($0, $0 == two ? "two" : "three") })
        }
        XCTAssertEqual(first, [one: "one", two: "two", three: "three"])
        XCTAssertEqual(asked, [[two, three].sorted { $0.uuidString < $1.uuidString }], "one read, of the missing only, each once")
        let again = await memory.values(for: [two, three]) { _ in
            XCTFail("everyone is remembered")
            return [:]
        }
        XCTAssertEqual(again, [two: "two", three: "three"])
        XCTAssertEqual(memory.count, 3)
    }

    func testAReadThatStartedBeforeAChangeIsNotKept() async throws {
        let memory = PersonMemory<String>(topic: "test.people", lifetime: 60)
        let person = UUID()
        let read = await memory.values(for: [person]) { missing in
            memory.apply(forgetting: UUID())  // a change lands while the read is on its way
            return [person: "stale"]
        }
        XCTAssertEqual(read, [person: "stale"], "the caller gets what it read")
        XCTAssertNil(memory.value(for: person), "but it is not kept")
        let left = await memory.values(for: [person]) { _ in [:] }
        XCTAssertEqual(left, [:], "a person the read leaves out is neither returned nor kept")
        XCTAssertEqual(memory.count, 0)
    }
}
