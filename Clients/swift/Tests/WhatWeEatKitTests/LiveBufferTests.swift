import Foundation
import NIOConcurrencyHelpers
import WhatWeEatKit
import XCTest

/// A live room an app stops reading keeps the newest `liveBufferLimit` events, not every frame the
/// server sends while the app is away.
final class LiveBufferTests: XCTestCase {
    /// `close()` is called once the room has taken every frame (its stream finished), so the flag
    /// says the reader can start; the source stream's own termination fires at `finish()`, before
    /// the room has read its buffer, which made the test race the room on a busy machine.
    struct FloodedSocket: LiveSocket {
        let texts: AsyncThrowingStream<String, any Error>
        let drained: NIOLockedValueBox<Bool>
        func send(_ text: String) async throws {}
        func close() async { drained.withLockedValue { $0 = true } }
    }

    struct Flood: LiveSocketConnector {
        let frames: Int
        let drained: NIOLockedValueBox<Bool>

        func connect(to url: URL, headers: [String: String]) async throws -> any LiveSocket {
            let (texts, continuation) = AsyncThrowingStream<String, any Error>.makeStream()
            continuation.yield(#"{"type":"state","submissionCount":0,"isHost":true,"isClosed":false}"#)
            for count in 1...frames { continuation.yield(#"{"type":"submissionCount","submissionCount":\#(count)}"#) }
            continuation.finish()
            return FloodedSocket(texts: texts, drained: drained)
        }
    }

    func testAnUnreadRoomKeepsTheNewestEvents() async throws {
        let drained = NIOLockedValueBox(false)
        let frames = liveBufferLimit + 1_000
        let app = WhatWeEat(serverURL: URL(string: "http://server.invalid")!, language: "ko", transport: TokenRefreshTests.ExpiringServer(),
                            liveSockets: Flood(frames: frames, drained: drained))
        let room = try await app.groupRoom(pin: "123456")
        // Nobody reads until the socket has delivered everything.
        let deadline = Date().addingTimeInterval(30)
        while !drained.withLockedValue({ $0 }), Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertTrue(drained.withLockedValue { $0 }, "the room never took the whole flood")
        var events: [GroupRoomEvent] = []
        for try await event in room { events.append(event) }
        XCTAssertEqual(events.count, liveBufferLimit)
        XCTAssertEqual(events.first, .submissionCount(frames - liveBufferLimit + 1))
        XCTAssertEqual(events.last, .submissionCount(frames))
    }
}
