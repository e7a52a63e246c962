import Foundation
import WhatWeEatTesting
import XCTest

/// What the module graph in Package.swift cannot say, checked on the sources. (Which unit may use
/// which is the compiler's job: a feature that imports another does not build.)
final class LayeringTests: XCTestCase {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources").standardized

    func swiftFiles(under folder: String) throws -> [URL] {
        let root = Self.sources.appendingPathComponent(folder)
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        return enumerator.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    func modules() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).sorted()
    }

    /// The file's imports as `import X` (`@testable import X` kept as it is), whatever their access
    /// level (`package import X`, `public import X`: every module builds with `InternalImportsByDefault`).
    func imports(of file: URL) throws -> [String] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init).compactMap { line in
            for level in ["public ", "package ", "internal "] where line.hasPrefix(level + "import ") { return String(line.dropFirst(level.count)) }
            return line.hasPrefix("import ") || line.hasPrefix("@testable import ") || line.hasPrefix("@_exported import ") ? line : nil
        }
    }

    /// The server reads the machine's clock in one place, `WallClock` (issue 59): everything else is
    /// handed a clock (`Now`) by what built it, so a test that moves time moves it for all it built.
    /// No `Date()`, `Date.now` or `timeIntervalSinceNow` anywhere else in Sources.
    func testTheWallClockIsReadInOnePlace() throws {
        var reads: [String] = []
        var checked = 0
        for module in try modules() {
            for file in try swiftFiles(under: module) {
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    let readsTheClock = ["Date()", "Date.now", "timeIntervalSinceNow", "Date(timeIntervalSinceNow"].contains { line.contains($0) }
                    if readsTheClock, !line.contains("package static let now: Now = { Date() }") {
                        reads.append("\(module)/\(file.lastPathComponent):\(number + 1)")
                    }
                }
                checked += 1
            }
        }
        XCTAssertEqual(reads, [])
        XCTAssertGreaterThan(checked, 300, "the sources were found")
    }

    /// A feature's services and stores read time from their environment (`now`, which tests move),
    /// not even the wall clock's one definition: no `WallClock` under any `Service/` or `Store/`
    /// folder (migrations, which are history, aside).
    func testServicesAndStoresReadTheirEnvironmentsClock() throws {
        var checked = 0
        for module in try modules() {
            for folder in ["Service", "Store"] where FileManager.default.fileExists(atPath: Self.sources.appendingPathComponent("\(module)/\(folder)").path) {
                for file in try swiftFiles(under: "\(module)/\(folder)") where !file.lastPathComponent.hasSuffix("Migrations.swift") {
                    let code = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                        .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                    let reads = code.filter { $0.contains("WallClock") || $0.contains("siteClock") }
                    XCTAssertEqual(reads, [], "\(module)/\(folder)/\(file.lastPathComponent)")
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 40, "the Service and Store folders were found")
    }

    /// Rules (each feature's `Rules/`) are plain Swift: Foundation, and at most a plain value type of
    /// the platform (or of Payments) by a scoped import (`import struct Platform.Coordinate`), never
    /// Vapor, Fluent or a whole module.
    func testRulesFilesImportOnlyFoundation() throws {
        var checked = 0
        for module in try modules() {
            let rules = Self.sources.appendingPathComponent("\(module)/Rules")
            guard FileManager.default.fileExists(atPath: rules.path) else { continue }
            for file in try swiftFiles(under: "\(module)/Rules") {
                let allowed = try imports(of: file).filter { line in
                    line != "import Foundation" && !["struct", "enum"].contains { kind in
                        ["Platform", "Payments"].contains { line.hasPrefix("import \(kind) \($0).") }
                    }
                }
                XCTAssertEqual(allowed, [], "\(module)/Rules/\(file.lastPathComponent)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 5, "the Rules folders were found")
    }

    /// Platform is a core (errors, settings, events, jobs, storage, budgets, metrics, audit, i18n,
    /// JSON) and a web shell (`Platform/Web/`: layout, frame, fragments, CSRF, the console's parts).
    /// The core writes no markup, so nothing below the shell reaches for it (issue 59).
    func testPlatformsCoreWritesNoMarkup() throws {
        let web = Self.sources.appendingPathComponent("Platform/Web").standardizedFileURL.path
        var core = 0
        for file in try swiftFiles(under: "Platform") where !file.standardizedFileURL.path.hasPrefix(web + "/") {
            XCTAssertFalse(try imports(of: file).contains("import Plot"), "\(file.lastPathComponent) is in Platform's core: markup belongs in Platform/Web")
            core += 1
        }
        XCTAssertGreaterThan(core, 20, "Platform's core files were found")
    }

    /// Plot writes attribute values unescaped; `Plot+EscapedAttributes.swift` shadows its string
    /// modifiers with escaping ones, but a declaration shadows only inside its own module. So every
    /// module that writes markup compiles the one file (a symbolic link to Platform's): a module
    /// without it would silently use Plot's unescaped modifiers.
    func testEveryModuleThatWritesMarkupEscapesItsAttributes() throws {
        let original = Self.sources.appendingPathComponent("Platform/Web/Plot+EscapedAttributes.swift")
        var writers: [String] = []
        for module in try modules() {
            let usesPlot = try swiftFiles(under: module).contains { try imports(of: $0).contains("import Plot") }
            guard usesPlot else { continue }
            writers.append(module)
            guard module != "Platform" else { continue }
            let shadow = Self.sources.appendingPathComponent("\(module)/Web/Plot+EscapedAttributes.swift")
            XCTAssertEqual(shadow.resolvingSymlinksInPath().path, original.path,
                           "\(module) imports Plot: Sources/\(module)/Web/Plot+EscapedAttributes.swift must link to Platform's")
        }
        XCTAssertTrue(writers.contains("BurgerMap") && writers.contains("Platform"), "\(writers)")
    }
}
