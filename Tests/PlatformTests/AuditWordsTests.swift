import Foundation
import XCTest

/// Issue 61: the console's audit log in words. Every action a store writes (`AuditEntry(… action:
/// "x.y.z"` and the features' `audit("x.y.z"` helpers) has its sentence in every language, and
/// every subject type its name, so no entry is shown in machine words but one added without them
/// (this test then fails).
final class AuditWordsTests: XCTestCase {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")

    func sources() throws -> String {
        let folder = root.appendingPathComponent("Sources")
        var text = ""
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            if file.pathExtension == "swift" { text += try String(contentsOf: file, encoding: .utf8) }
        }
        return text
    }

    func testEveryAuditedActionAndSubjectHasWordsInEveryLanguage() throws {
        let code = try sources()
        // Every dotted literal on a line that names an action (`action: hide ? "…" : "…"` too).
        let actionLines = code.split(separator: "\n").filter { $0.contains("action: ") || $0.contains("audit(\"") }
        let actions = Set(actionLines.flatMap { $0.matches(of: /"([a-z_]+\.[a-z_]+\.[a-z_]+)"/).map { String($0.1) } })
        let subjects = Set(code.matches(of: /subjectType: "([a-z_]+)"/).map { String($0.1) })
        XCTAssertGreaterThan(actions.count, 20, "the scan finds the actions: \(actions.sorted())")
        XCTAssertGreaterThan(subjects.count, 8)
        for language in ["ko", "en", "ja"] {
            let url = root.appendingPathComponent("Resources/translations/\(language).json")
            let texts = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: String])
            XCTAssertEqual(actions.filter { texts["admin.audit.action.\($0)"] == nil }.sorted(), [], language)
            XCTAssertEqual(subjects.filter { texts["admin.audit.subject.\($0)"] == nil }.sorted(), [], language)
        }
    }
}
