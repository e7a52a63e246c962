import MenuGame
import Platform
import WhatWeEatServerTesting
import WhatWeEatTesting
import XCTest

/// Every error code the sources can throw has a message in the catalogs.
final class ErrorCatalogTests: XCTestCase {
    func testEveryThrownCodeHasAMessage() throws {
        let root = FileManager.default.currentDirectoryPath
        let translator = try Translator.load(from: root + "/Resources/translations")
        let korean = try XCTUnwrap(translator.catalogs[.ko])
        guard let files = FileManager.default.enumerator(atPath: root + "/Sources") else { return XCTFail("no Sources") }
        // AppError(.status, "code" …), .badRequest("code" …), .invalid(…), .conflict(…), .notFound(…), rejection(…)
        let pattern = /(?:AppError\(\.[a-zA-Z]+, |\.(?:badRequest|invalid|conflict|notFound)\(|rejection\()"([a-z_]+)"/
        var codes = Set<String>()
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/Sources/" + file, encoding: .utf8)
            for match in text.matches(of: pattern) { codes.insert(String(match.output.1)) }
        }
        // Codes chosen by the error middleware itself.
        codes.formUnion(["malformed_json", "missing_field", "invalid_type", "invalid_value", "not_found", "method_not_allowed",
                         "payload_too_large", "unsupported_media_type", "unauthorized", "forbidden", "too_many_requests",
                         "validation_failed", "bad_request", "internal_error"])
        XCTAssertGreaterThan(codes.count, 40, "the scan finds the codes")
        let missing = codes.filter { korean["error.\($0)"] == nil }.sorted()
        XCTAssertEqual(missing, [], "codes without a message")
    }
}
