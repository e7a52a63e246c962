import Foundation
import XCTest

/// The layering the design states, checked on the sources: Domain code is plain Swift (Foundation
/// only), and Platform never names a feature (features build on Platform, not the other way).
final class LayeringTests: XCTestCase {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/WhatWeEatServer").standardized

    func swiftFiles(under folder: String) throws -> [URL] {
        let root = Self.sources.appendingPathComponent(folder)
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        return enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    func testDomainFilesImportOnlyFoundation() throws {
        let features = try FileManager.default.contentsOfDirectory(atPath: Self.sources.appendingPathComponent("Features").path)
        var checked = 0
        for feature in features {
            let domain = Self.sources.appendingPathComponent("Features/\(feature)/Domain")
            guard FileManager.default.fileExists(atPath: domain.path) else { continue }
            for file in try swiftFiles(under: "Features/\(feature)/Domain") {
                let imports = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                    .filter { $0.hasPrefix("import ") || $0.hasPrefix("@testable import ") || $0.hasPrefix("@_exported import ") }
                XCTAssertEqual(imports.filter { $0 != "import Foundation" }, [], "\(feature)/Domain/\(file.lastPathComponent)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 5, "the Domain folders were found")
    }

    func testPlatformNamesNoFeature() throws {
        let features = try FileManager.default.contentsOfDirectory(atPath: Self.sources.appendingPathComponent("Features").path)
        XCTAssertTrue(features.contains("MenuGame"))
        for file in try swiftFiles(under: "Platform") {
            let code = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                .map { line in line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
                .joined(separator: "\n")
            for feature in features {
                XCTAssertFalse(code.contains(feature), "\(file.lastPathComponent) names the \(feature) feature")
            }
        }
    }
}
