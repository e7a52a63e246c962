import Logging
@testable import Platform
import XCTest

/// Issue 58, item 5: no log line keeps a code's secret parts: tokens, password hashes, whole e-mail
/// addresses or phone numbers; an ordinary line passes untouched.
final class LogRedactionTests: XCTestCase {
    func testWhatNoLogKeepsIsMaskedAndTheRestPasses() {
        let hash = "$2b$12$" + String(repeating: "a", count: 53)
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJlLWJ5dGVz"
        let token = String(repeating: "Zx9_", count: 11)
        let line = "user mina.kim@example.com phone 010-2345-6789 and +821023456789 hash \(hash) bearer \(jwt) refresh \(token)"
        let scrubbed = LogRedaction.scrub(line)
        for secret in ["mina.kim@", "2345-6789", "1023456789", hash, jwt, token] {
            XCTAssertFalse(scrubbed.contains(secret), "\(secret) in \(scrubbed)")
        }
        XCTAssertTrue(scrubbed.contains("m***@example.com"), scrubbed)
        XCTAssertTrue(scrubbed.contains("[password hash]") && scrubbed.contains("[token]") && scrubbed.contains("[secret]"), scrubbed)
        XCTAssertTrue(scrubbed.contains("***89"), "a number's last digits stay, as pages mask it: \(scrubbed)")

        let ordinary = "GET /api/v1/groups/:pin 200 request 9F1C2A3B-0D4E-4F5A-8B6C-7D8E9F0A1B2C took 12.5 ms on 2026-12-06"
        XCTAssertEqual(LogRedaction.scrub(ordinary), ordinary, "ids, dates and times are no secret")
        XCTAssertEqual(LogRedaction.scrub(.array([.string("x@example.com")])), .array([.string("x***@example.com")]))
    }

    func testJSONLinesEscapeWhatJSONMustAndParseBack() throws {
        let tricky = "quote \" backslash \\ newline \n tab \t bell \u{07} 한글 🍔 / end"
        var line = ""
        JSONLogHandler.write(.dictionary(["message": .string(tricky), "list": .array([.string("a"), .stringConvertible(42)])]), into: &line)
        let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(parsed["message"] as? String, tricky)
        XCTAssertEqual(parsed["list"] as? [String], ["a", "42"])
    }

    func testADeliberateLinePassesOnlyWhereItMayAndLosesItsMark() {
        let recorder = RecordingHandler()
        var development = RedactingLogHandler(recorder, allowsDeliberateLines: true)
        development.logLevel = .trace
        Logger(label: "t", factory: { _ in development }).notice("code for mina@example.com: 123456", metadata: OperatorLogs.deliberate)
        var production = RedactingLogHandler(recorder, allowsDeliberateLines: false)
        production.logLevel = .trace
        Logger(label: "t", factory: { _ in production }).notice("code for mina@example.com: 123456", metadata: OperatorLogs.deliberate)
        XCTAssertEqual(recorder.lines.map(\.message), ["code for mina@example.com: 123456", "code for m***@example.com: 123456"])
        XCTAssertTrue(recorder.lines.allSatisfy { $0.metadata["deliberate"] == nil })
    }
}

private final class RecordingHandler: LogHandler, @unchecked Sendable {
    var lines: [(message: String, metadata: Logger.Metadata)] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
        lines.append((message.description, metadata ?? [:]))
    }
}
